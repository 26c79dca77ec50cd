import { describe, expect, it } from "vitest";
import type { TokenUsage } from "../../functions/llm/usage";
import {
  probeTools,
  rankHelpers,
  type DirectCallResult,
  type ProbeDependencies,
  type ProbeEvent,
  type ProbeOptions,
  type ProbePurpose,
  type ProgramCall,
  type ProgramRun,
} from "../../functions/probing/chain-of-probing";
import type { ProbeMessage } from "../../functions/probing/prompts";
import { ProbedProtocol } from "../../functions/probing/protocol";
import { ToolDefinition } from "../../functions/tools/definition";

/**
 * A small fake world: `searchThings` returns thing ids; `getThing` answers only for an id that
 * `searchThings` returns (B needs what only A gives); `getStatus` is callable from its schema
 * alone; `getReport` needs a `ref` no rule can guess; `listOrders`/`getOrder` need the model to
 * see that an order's `code` is the `ref` to pass.
 */

function def(name: string, path: string, parameters: unknown[], description = ""): ToolDefinition {
  return ToolDefinition.parse({ name, method: "GET", serverUrl: "https://api.example.com", path, operation: `GET ${path}`, description, parameters });
}

const searchThings = def(
  "searchThings",
  "/search/thing",
  [{ name: "query", in: "query", required: true, schema: { type: "string" } }],
  "Search for things by name.",
);
const getThing = def(
  "getThing",
  "/thing/{thing_id}",
  [{ name: "thing_id", in: "path", required: true, schema: { type: "integer" } }],
  "Get a thing's details by id.",
);
const getStatus = def("getStatus", "/status", [
  { name: "mode", in: "query", required: true, schema: { type: "string", enum: ["fast", "slow"] } },
  { name: "verbose", in: "query", required: false, schema: { type: "boolean", default: false } },
]);
const getReport = def("getReport", "/report", [{ name: "ref", in: "query", required: true, schema: { type: "string" } }], "Get a report.");
const listOrders = def("listOrders", "/orders", [], "List recent orders.");
const getOrder = def("getOrder", "/order", [{ name: "ref", in: "query", required: true, schema: { type: "string" } }], "Get one order by its reference.");

const getMaker = def("getMaker", "/maker/{maker_id}", [{ name: "maker_id", in: "path", required: true, schema: { type: "integer" } }], "Get a maker by id.");

const THING = { id: 42, name: "Widget", tags: ["blue"], price: 9.5, maker: { id: 7, name: "Acme" } };

function answer(name: string, args: Record<string, unknown>): DirectCallResult {
  switch (name) {
    case "searchThings":
      return { ok: true, status: 200, body: { page: 1, results: [{ id: 42, name: "Widget" }] } };
    case "getThing":
      return args["thing_id"] === 42
        ? { ok: true, status: 200, body: THING }
        : { ok: false, status: 404, body: { message: "no such thing" }, error: "no such thing" };
    case "getMaker":
      return args["maker_id"] === 7
        ? { ok: true, status: 200, body: { id: 7, name: "Acme", country: "US" } }
        : { ok: false, status: 404, body: null, error: "no such maker" };
    case "getStatus":
      return { ok: true, status: 200, body: { status: "ok", mode: args["mode"] } };
    case "getReport":
      return args["ref"] === "R-1"
        ? { ok: true, status: 200, body: { ref: "R-1", lines: [{ n: 1 }] } }
        : { ok: false, status: 400, body: null, error: "unknown ref" };
    case "listOrders":
      return { ok: true, status: 200, body: [{ code: "O-7", total: 12.5 }] };
    case "getOrder":
      return args["ref"] === "O-7"
        ? { ok: true, status: 200, body: { code: "O-7", items: [{ sku: "a" }] } }
        : { ok: false, status: 404, body: null, error: "no order" };
    default:
      return { ok: false, status: 404, body: null, error: "unknown tool" };
  }
}

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (tools: unknown) => Promise<unknown>;

/** Runs a program body against the fake world, tracing calls as the sandbox would. */
async function runProgram(program: string, allowed: string[], log: { name: string; args: Record<string, unknown> }[]): Promise<ProgramRun> {
  const trace: ProgramCall[] = [];
  const tools = new Proxy(
    {},
    {
      get: (_target, name) => async (args: Record<string, unknown>) => {
        if (typeof name !== "string" || !allowed.includes(name)) throw new Error(`tools.${String(name)} is not available`);
        log.push({ name, args });
        const result = answer(name, args);
        trace.push(
          result.ok
            ? { tool: name, arguments: args, ok: true, result: result.body }
            : { tool: name, arguments: args, ok: false, error: result.error ?? "failed" },
        );
        if (!result.ok) throw new Error(`${name} failed: ${result.error ?? ""}`);
        return result.body;
      },
    },
  );
  try {
    return { ok: true, answer: await new AsyncFunction("tools", program)(tools), trace };
  } catch (error) {
    return { ok: false, error: { message: String(error) }, trace };
  }
}

type Reply = string | ((messages: ProbeMessage[], tool: string) => string);

/** Fake dependencies: every call is recorded; the model answers from a script per purpose. */
function harness(script: Partial<Record<ProbePurpose, Reply[]>> = {}) {
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const programCalls: { name: string; args: Record<string, unknown> }[] = [];
  const chats: { purpose: ProbePurpose; tool: string; messages: ProbeMessage[] }[] = [];
  const programs: { program: string; allowed: string[] }[] = [];
  const events: ProbeEvent[] = [];
  const persisted: string[] = [];
  const failed: { tool: string; error: string }[] = [];
  const order: string[] = [];
  const queues = { probe: [...(script.probe ?? [])], select: [...(script.select ?? [])], describe: [...(script.describe ?? [])] };
  let seq = 0;
  const deps: ProbeDependencies = {
    callTool: async (name, args) => {
      calls.push({ name, args });
      order.push(`call:${name}`);
      return answer(name, args);
    },
    runProgram: async (program, allowed) => {
      programs.push({ program, allowed });
      return runProgram(program, allowed, programCalls);
    },
    chat: async (messages, purpose, tool) => {
      chats.push({ purpose, tool, messages });
      const next = queues[purpose].shift();
      if (next === undefined) throw new Error(`unscripted ${purpose} chat for ${tool}`);
      seq++;
      const usage: TokenUsage = { promptTokens: 100 * seq, completionTokens: 10 * seq, totalTokens: 110 * seq };
      return { content: typeof next === "string" ? next : next(messages, tool), usage, durationMs: 5 };
    },
    onProgress: (event) => events.push(event),
    onProbed: async (protocol) => {
      persisted.push(protocol.name);
      order.push(`persist:${protocol.name}`);
    },
    onFailed: (tool, error) => {
      failed.push({ tool, error });
    },
    now: () => new Date("2025-01-02T03:04:05.000Z"),
  };
  return { deps, calls, programCalls, chats, programs, events, persisted, failed, order };
}

const targets = (...defs: ToolDefinition[]) => defs.map((definition) => ({ definition, hash: `hash-${definition.name}` }));

function result(report: Awaited<ReturnType<typeof probeTools>>, tool: string) {
  const found = report.results.find((r) => r.tool === tool);
  if (found === undefined) throw new Error(`no result for ${tool}`);
  return found;
}

function probedResult(report: Awaited<ReturnType<typeof probeTools>>, tool: string) {
  const found = result(report, tool);
  if (found.status !== "probed") throw new Error(`${tool} was not probed: ${found.error}`);
  return found;
}

const programAnswer = (query: string, program: string) => `Your query: "${query}"\nTest program:\n\`\`\`ts\n${program}\n\`\`\``;

describe("zero-token probing", () => {
  it("probes a tool with enum/default parameters without any model call", async () => {
    const h = harness();
    const report = await probeTools(targets(getStatus), new Map(), h.deps);
    const status = probedResult(report, "getStatus");
    expect(status.how).toBe("direct");
    expect(h.chats).toHaveLength(0);
    expect(h.calls).toEqual([{ name: "getStatus", args: { mode: "fast", verbose: false } }]);
    expect(status.protocol.responseSchema).toEqual({ status: "str", mode: "str" });
    expect(status.protocol.example.program).toBe('// getStatus\nreturn await tools.getStatus({ mode: "fast", verbose: false });');
    expect(status.protocol.example.query).toBe('Call GET /status (with mode "fast", verbose false).');
    expect(report.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(report).toMatchObject({ probed: 1, failed: 0, resumed: 0, modelCalls: 0, toolCalls: 1 });
    expect(ProbedProtocol.parse(JSON.parse(JSON.stringify(status.protocol)))).toEqual(status.protocol);
  });
});

describe("chain of probing (Algorithm 1)", () => {
  it("B fails alone and is probed with A as helper, by data flow, still without the model", async () => {
    const h = harness();
    const report = await probeTools(targets(getThing, searchThings), new Map(), h.deps, { useModel: false });
    const thing = probedResult(report, "getThing");
    expect(thing.how).toBe("helper_chain");
    expect(thing.helpers).toEqual(["searchThings"]);
    expect(thing.iteration).toBe(1);
    expect(probedResult(report, "searchThings")).toMatchObject({ how: "direct", iteration: 0 });
    // Alone: the placeholder id failed; with the helper, the id searchThings returned worked.
    expect(h.calls.filter((c) => c.name === "getThing").map((c) => c.args)).toEqual([{ thing_id: 1 }, { thing_id: 42 }]);
    expect(thing.protocol.responseSchema).toEqual({ id: "int", name: "str", tags: ["str"], price: "float", maker: { id: "int", name: "str" } });
    expect(thing.protocol.example.program).toContain("const searchThingsResult = await tools.searchThings(");
    expect(thing.protocol.example.program).toContain("return await tools.getThing({ thing_id: searchThingsResult.results[0].id });");
    expect(h.events).toContainEqual({ type: "helpers_selected", tool: "getThing", iteration: 1, helpers: ["searchThings"], by: "data_flow" });
    expect(report).toMatchObject({ probed: 2, failed: 0, iterations: 1, modelCalls: 0 });
    // The synthesised example really runs: it chains the two tools and returns B's response.
    const run = await runProgram(thing.protocol.example.program, ["searchThings", "getThing"], []);
    expect(run).toMatchObject({ ok: true, answer: THING });
    expect(run.trace.map((t) => t.tool)).toEqual(["searchThings", "getThing"]);
  });

  it("leaves B failed when the chain is disabled (β = 0)", async () => {
    const h = harness();
    const report = await probeTools(targets(getThing, searchThings), new Map(), h.deps, { useModel: false, iterations: 0 });
    const thing = result(report, "getThing");
    expect(thing.status).toBe("failed");
    expect(thing.status === "failed" ? thing.error : "").toContain("HTTP 404");
    expect(report).toMatchObject({ probed: 1, failed: 1, iterations: 0 });
    expect(h.calls.filter((c) => c.name === "getThing")).toHaveLength(1);
    expect(h.failed).toEqual([{ tool: "getThing", error: expect.stringContaining("no such thing") }]);
    expect(h.events).toContainEqual({ type: "failed", tool: "getThing", error: expect.any(String) });
  });

  it("does not ask the model about a tool that needs an id before data flow was tried", async () => {
    const h = harness(); // an unscripted chat would throw
    const report = await probeTools(targets(getThing, searchThings), new Map(), h.deps);
    expect(probedResult(report, "getThing").how).toBe("helper_chain");
    expect(h.chats).toHaveLength(0);
  });

  it("follows a chain of data flow in one iteration, longest chains included", async () => {
    const h = harness();
    const report = await probeTools(targets(getMaker, getThing, searchThings), new Map(), h.deps);
    expect(probedResult(report, "getMaker")).toMatchObject({ how: "helper_chain", helpers: ["getThing"], iteration: 1 });
    expect(probedResult(report, "getMaker").protocol.example.program).toContain("maker_id: thingResult.maker.id");
    expect(report).toMatchObject({ probed: 3, iterations: 1, modelCalls: 0 });
    // getMaker was tried again only once getThing had joined the probed tools.
    expect(h.calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`)).toEqual([
      'getMaker({"maker_id":1})',
      'getThing({"thing_id":1})',
      'searchThings({"query":"test"})',
      'getThing({"thing_id":42})',
      'getMaker({"maker_id":7})',
    ]);
  });

  it("gives a deferred tool its turn with the model alone when the chain is disabled", async () => {
    const h = harness({ probe: [programAnswer("Get thing 42", "return await tools.getThing({ thing_id: 42 });")] });
    const report = await probeTools(targets(getThing), new Map(), h.deps, { iterations: 0 });
    expect(probedResult(report, "getThing")).toMatchObject({ how: "model", iteration: 0 });
    expect(h.chats.map((c) => c.purpose)).toEqual(["probe"]);
  });

  it("stops iterating when an iteration probes nothing new", async () => {
    const h = harness();
    const report = await probeTools(targets(getReport, getStatus), new Map(), h.deps, { useModel: false, iterations: 4 });
    expect(result(report, "getReport").status).toBe("failed");
    expect(report.iterations).toBe(1);
  });

  it("lets the model pick helpers and write the chain when data flow finds nothing", async () => {
    const h = harness({
      probe: [
        // Alone: the model guesses a reference that does not exist.
        programAnswer("Get order X", 'return await tools.getOrder({ ref: "X" });'),
        // With helpers: it lists orders first.
        (messages) => {
          expect(messages.map((m) => m.content).join("\n")).toContain("listOrders(args: {}): Promise<");
          return programAnswer(
            "Get the most recent order",
            "const orders = await tools.listOrders({});\nreturn await tools.getOrder({ ref: orders[0].code });",
          );
        },
      ],
      select: ["Selected tools: listOrders"],
    });
    const report = await probeTools(targets(listOrders, getStatus, getOrder), new Map(), h.deps, { samples: 1 });
    const order = probedResult(report, "getOrder");
    expect(order.how).toBe("helper_chain");
    expect(order.helpers).toEqual(["listOrders"]);
    expect(order.protocol.example).toEqual({
      query: "Get the most recent order",
      program: "const orders = await tools.listOrders({});\nreturn await tools.getOrder({ ref: orders[0].code });",
      arguments: { ref: "O-7" },
    });
    expect(h.chats.map((c) => `${c.purpose}:${c.tool}`)).toEqual(["probe:getOrder", "select:getOrder", "probe:getOrder"]);
    // I_s saw the shortlist of probed tools; the program could call only the chosen helper and the tool.
    expect(h.chats[1]?.messages[0]?.content).toContain("listOrders");
    expect(h.chats[1]?.messages[0]?.content).toContain("getStatus");
    expect(h.programs.map((p) => p.allowed)).toEqual([["getOrder"], ["listOrders", "getOrder"]]);
    expect(h.events).toContainEqual({ type: "helpers_selected", tool: "getOrder", iteration: 1, helpers: ["listOrders"], by: "model" });
  });

  it("skips the selection prompt when the pre-selection leaves a single helper", async () => {
    const h = harness({
      probe: [
        programAnswer("x", 'return await tools.getOrder({ ref: "X" });'),
        programAnswer("Get the most recent order", "const orders = await tools.listOrders({});\nreturn await tools.getOrder({ ref: orders[0].code });"),
      ],
    });
    const report = await probeTools(targets(listOrders, getOrder), new Map(), h.deps, { samples: 1 });
    expect(probedResult(report, "getOrder").how).toBe("helper_chain");
    expect(h.chats.map((c) => c.purpose)).toEqual(["probe", "probe"]);
  });

  it("ranks probed tools as helpers by data flow into the failing tool's parameters", () => {
    const protocol = (name: string, samples: { path: string; value: number | string }[]): ProbedProtocol =>
      ProbedProtocol.parse({
        name,
        definitionHash: "h",
        parameters: [],
        responseSchema: {},
        jsonSchema: {},
        example: { query: "q", program: "p" },
        samples,
        how: "direct",
        probedAt: "2025-01-01T00:00:00.000Z",
        usage: { toolCalls: 1, modelCalls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      });
    const ranked = rankHelpers(getThing, [
      { definition: getStatus, protocol: protocol("getStatus", [{ path: "status", value: "ok" }]) },
      { definition: searchThings, protocol: protocol("searchThings", [{ path: "results[0].id", value: 42 }]) },
    ]);
    expect(ranked.map((r) => r.name)).toEqual(["searchThings", "getStatus"]);
    expect(ranked[0]?.flow).toBeGreaterThan(0.5);
    expect(ranked[1]?.flow).toBe(0);
  });
});

describe("the model path (I_p, N samples)", () => {
  it("asks the model when the zero-token path fails, and stops at the first sample that gets a response", async () => {
    const h = harness({
      probe: [
        "I think the tool is broken.",
        programAnswer("Get report R-1", 'const r = await tools.getReport({ ref: "R-1" });\nreturn r;'),
        programAnswer("never asked", "return 1;"),
      ],
    });
    const report = await probeTools(targets(getReport), new Map(), h.deps);
    const probed = probedResult(report, "getReport");
    expect(probed.how).toBe("model");
    expect(h.calls).toEqual([{ name: "getReport", args: { ref: "test" } }]);
    expect(h.chats).toHaveLength(2);
    // The second sample was told why the first one failed.
    expect(h.chats[1]?.messages[1]?.content).toContain("no program");
    expect(probed.protocol.example).toEqual({
      query: "Get report R-1",
      program: 'const r = await tools.getReport({ ref: "R-1" });\nreturn r;',
      arguments: { ref: "R-1" },
    });
    expect(probed.protocol.responseSchema).toEqual({ ref: "str", lines: [{ n: "int" }] });
    // The paper's I_p, over the typed API.
    const prompt = h.chats[0]?.messages.map((m) => m.content).join("\n") ?? "";
    expect(prompt).toContain("you are a programming engineer");
    expect(prompt).toContain("getReport(args: {");
    expect(prompt).toContain('Your query: "propose your query"');
    expect(prompt).toContain("propose a clear and detailed query");
  });

  it("uses at most N samples per probe", async () => {
    const wrong = programAnswer("Get report", 'return await tools.getReport({ ref: "nope" });');
    const h = harness({ probe: [wrong, wrong, wrong, wrong] });
    const report = await probeTools(targets(getReport), new Map(), h.deps, { samples: 2, iterations: 0 });
    expect(result(report, "getReport").status).toBe("failed");
    expect(h.chats).toHaveLength(2);
    expect(h.programs).toHaveLength(2);
    const failed = result(report, "getReport");
    expect(failed.status === "failed" ? failed.error : "").toContain("unknown ref");
    expect(failed.modelCalls).toBe(2);
  });

  it("does not use the model at all when the zero-token path succeeds, nor when it is disabled", async () => {
    const h = harness();
    const report = await probeTools(targets(getReport), new Map(), h.deps, { useModel: false });
    expect(result(report, "getReport").status).toBe("failed");
    expect(h.chats).toHaveLength(0);
  });

  it("skips the zero-token path when it is disabled", async () => {
    const h = harness({ probe: [programAnswer("status", 'return await tools.getStatus({ mode: "slow" });')] });
    const report = await probeTools(targets(getStatus), new Map(), h.deps, { zeroToken: false });
    expect(probedResult(report, "getStatus").how).toBe("model");
    expect(h.calls).toHaveLength(0);
  });

  it("writes a description for an undocumented tool, from the I_p answer", async () => {
    const h = harness({
      probe: [`${programAnswer("Report", 'return await tools.getReport({ ref: "R-1" });')}\nTool description: Returns the lines of a report.`],
    });
    const undocumented = def("getReport", "/report", [{ name: "ref", in: "query", required: true, schema: { type: "string" } }]);
    const report = await probeTools(targets(undocumented), new Map(), h.deps);
    const protocol = probedResult(report, "getReport").protocol;
    expect(protocol).toMatchObject({ description: "Returns the lines of a report.", descriptionSource: "model" });
    expect(h.chats[0]?.messages[1]?.content).toContain("Tool description:");
  });

  it("asks for a description after a direct probe only when describeUndocumented is set", async () => {
    const h = harness({ describe: ["Tool description: Tells the service status."] });
    const report = await probeTools(targets(getStatus), new Map(), h.deps, { describeUndocumented: true });
    expect(probedResult(report, "getStatus").protocol).toMatchObject({ how: "direct", description: "Tells the service status.", descriptionSource: "model" });
    expect(h.chats.map((c) => c.purpose)).toEqual(["describe"]);
    const plain = harness();
    const again = await probeTools(targets(getStatus), new Map(), plain.deps);
    expect(probedResult(again, "getStatus").protocol.description).toBeUndefined();
    expect(plain.chats).toHaveLength(0);
  });
});

describe("resume, persistence and accounting", () => {
  it("does not call already-probed tools again, and still uses them as helpers", async () => {
    const first = harness();
    const before = await probeTools(targets(searchThings), new Map(), first.deps);
    const stored = new Map([["searchThings", probedResult(before, "searchThings").protocol]]);

    const h = harness();
    const report = await probeTools(targets(searchThings, getThing), stored, h.deps, { useModel: false });
    expect(h.calls.map((c) => c.name)).toEqual(["getThing", "getThing"]);
    expect(probedResult(report, "searchThings")).toMatchObject({ resumed: true, toolCalls: 0, modelCalls: 0 });
    expect(probedResult(report, "getThing")).toMatchObject({ how: "helper_chain", helpers: ["searchThings"], resumed: false });
    expect(h.persisted).toEqual(["getThing"]);
    expect(report).toMatchObject({ probed: 1, resumed: 1, failed: 0 });
  });

  it("probes again a tool whose stored protocol is for another definition hash", async () => {
    const first = harness();
    const before = await probeTools(targets(getStatus), new Map(), first.deps);
    const stale = { ...probedResult(before, "getStatus").protocol, definitionHash: "old" };
    const h = harness();
    const report = await probeTools(targets(getStatus), new Map([["getStatus", stale]]), h.deps);
    expect(h.calls).toHaveLength(1);
    expect(probedResult(report, "getStatus")).toMatchObject({ resumed: false, protocol: { definitionHash: "hash-getStatus" } });
  });

  it("persists each tool as soon as it is probed, before the next tool is called", async () => {
    const h = harness();
    await probeTools(targets(getStatus, searchThings, getThing), new Map(), h.deps, { useModel: false });
    expect(h.order).toEqual([
      "call:getStatus",
      "persist:getStatus",
      "call:searchThings",
      "persist:searchThings",
      "call:getThing",
      "call:getThing",
      "persist:getThing",
    ]);
  });

  it("accounts tokens and calls per tool and in total", async () => {
    const h = harness({
      probe: [
        programAnswer("x", 'return await tools.getReport({ ref: "nope" });'),
        programAnswer("Get report R-1", 'return await tools.getReport({ ref: "R-1" });'),
      ],
    });
    const report = await probeTools(targets(getStatus, getReport), new Map(), h.deps);
    const reportTool = probedResult(report, "getReport");
    // Fake usage: call k costs 100k prompt + 10k completion tokens.
    expect(reportTool.usage).toEqual({ promptTokens: 300, completionTokens: 30, totalTokens: 330 });
    expect(reportTool.modelCalls).toBe(2);
    expect(reportTool.toolCalls).toBe(3); // one direct call, one call per program
    expect(reportTool.protocol.usage).toEqual({ toolCalls: 3, modelCalls: 2, promptTokens: 300, completionTokens: 30, totalTokens: 330 });
    expect(probedResult(report, "getStatus").usage.totalTokens).toBe(0);
    expect(report).toMatchObject({ modelCalls: 2, toolCalls: 4, usage: { promptTokens: 300, completionTokens: 30, totalTokens: 330 } });
    expect(reportTool.protocol.probedAt).toBe("2025-01-02T03:04:05.000Z");
  });

  it("lists every tool, probed or failed, in input order", async () => {
    const h = harness();
    const report = await probeTools(targets(getReport, getStatus, getThing, searchThings), new Map(), h.deps, { useModel: false });
    expect(report.results.map((r) => `${r.tool}:${r.status}`)).toEqual(["getReport:failed", "getStatus:probed", "getThing:probed", "searchThings:probed"]);
  });

  it("treats a throwing tool call as a failed call, but lets a model outage stop the job", async () => {
    const h = harness();
    const throwing: ProbeDependencies = { ...h.deps, callTool: () => Promise.reject(new Error("socket hang up")) };
    const report = await probeTools(targets(getStatus), new Map(), throwing, { useModel: false });
    const status = result(report, "getStatus");
    expect(status.status === "failed" ? status.error : "").toContain("socket hang up");
    const down: ProbeDependencies = { ...h.deps, chat: () => Promise.reject(new Error("model unavailable")) };
    await expect(probeTools(targets(getReport), new Map(), down)).rejects.toThrow("model unavailable");
  });

  it("keeps looking past an empty answer, and accepts it when nothing better comes", async () => {
    const calls: Record<string, unknown>[] = [];
    const options: ProbeOptions = { useModel: false };
    const h = harness();
    const search = def("searchThings", "/search/thing", [
      { name: "query", in: "query", required: true, schema: { type: "string", examples: ["zzz", "Widget"] } },
    ]);
    const picky: ProbeDependencies = {
      ...h.deps,
      callTool: async (_name, args) => {
        calls.push(args);
        return { ok: true, body: args["query"] === "Widget" ? { page: 1, results: [{ id: 42 }] } : { page: 1, results: [] } };
      },
    };
    const report = await probeTools(targets(search), new Map(), picky, options);
    expect(calls).toEqual([{ query: "zzz" }, { query: "Widget" }]);
    expect(probedResult(report, "searchThings").protocol.responseSchema).toEqual({ page: "int", results: [{ id: "int" }] });

    const empty: ProbeDependencies = { ...h.deps, callTool: async () => ({ ok: true, body: { page: 1, results: [] } }) };
    const fallback = await probeTools(targets(search), new Map(), empty, options);
    expect(probedResult(fallback, "searchThings").protocol.responseSchema).toEqual({ page: "int", results: [] });
  });
});
