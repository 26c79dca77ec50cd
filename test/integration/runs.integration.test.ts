import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };
const upstream: { method: string; url: string }[] = [];

const fence = (code: string) => `Here is the program.\n\`\`\`ts\n${code}\n\`\`\``;

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.hostname === "model.atc.test") return model.handle(request);
      upstream.push({ method: request.method, url: request.url });
      if (url.pathname === "/orders" && request.method === "POST") return Response.json({ orderId: 77, status: "created" }, { status: 201 });
      return Response.json({ ok: true });
    },
  });
  tenant = await createTenant(service, "runner");
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: {
      format: "list",
      source: "shop",
      tools: [
        {
          name: "createOrder",
          method: "POST",
          url: "https://shop.example.com/orders",
          parameters: [{ name: "item", type: "string", in: "body", required: true }],
        },
        { name: "orderStatus", method: "GET", url: "https://shop.example.com/orders/{order_id}" },
      ],
    },
  });
});
afterAll(async () => service.dispose());

interface RunBody {
  id: string;
  status: string;
  answer?: unknown;
  finalProgram: string;
  attempts: {
    program: string;
    ok: boolean;
    error?: { kind: string; message: string };
    attributedTool?: string;
    attributedBy?: string;
    trace: { tool: string; ok: boolean; sent: boolean; replayed: boolean; status?: number }[];
  }[];
  modelCalls: { purpose: string; usage: { totalTokens: number } }[];
  usage: { totalTokens: number };
  trajectory: string[];
}

describe("ATC runs on RestBench TMDB", () => {
  it("repairs a program that reads a missing field, attributing the failure to the right tool", async () => {
    model.reset();
    const wrong = [
      "// getSearchPerson",
      'const found = await tools.getSearchPerson({ query: "Bradley Cooper" });',
      "const personId = found.result[0].id;",
      "// getPersonPersonIdMovieCredits",
      "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: personId });",
      "return credits.cast.length;",
    ].join("\n");
    const right = [
      "// getSearchPerson",
      'const found: { results: { id: number }[] } = await tools.getSearchPerson({ query: "Bradley Cooper" });',
      "const personId = found.results[0].id;",
      "// getPersonPersonIdMovieCredits",
      "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: personId });",
      "return `${credits.cast.length} movies`;",
    ].join("\n");
    model.on({ name: "revise", match: (r) => r.lastUserMessage.includes("Attempt 1"), answer: { text: fence(right) } });
    model.on({ name: "generate", match: (r) => r.lastUserMessage.includes("Query: How many movies"), answer: { text: fence(wrong) } });

    const res = await service.json<RunBody>("POST", "/v1/runs", {
      key: tenant.key,
      body: { task: "How many movies has Bradley Cooper acted in?", tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"] },
    });
    expect(res.status).toBe(201);
    const run = res.body;
    expect(run.status).toBe("succeeded");
    expect(run.attempts).toHaveLength(2);
    expect(run.attempts[0]?.error?.message).toMatch(/TypeError/);
    expect(run.attempts[0]?.attributedTool).toBe("getSearchPerson");
    expect(run.answer).toMatch(/^\d+ movies$/);
    expect(run.trajectory).toEqual(["getSearchPerson", "getPersonPersonIdMovieCredits"]);
    expect(run.modelCalls.map((m) => m.purpose)).toEqual(["generate", "revise"]);
    expect(run.usage.totalTokens).toBeGreaterThan(0);

    // The revision prompt carried the earlier program, its error, and the attributed tool's protocol.
    const revision = model.requests.find((r) => r.rule === "revise");
    expect(revision?.lastUserMessage).toContain("found.result[0].id");
    expect(revision?.lastUserMessage).toContain("full protocol of getSearchPerson");

    const stored = await service.json<RunBody>("GET", `/v1/runs/${run.id}`, { key: tenant.key });
    expect(stored.status).toBe(200);
    expect(stored.body.finalProgram).toContain("found.results[0].id");
    const otherTenant = await createTenant(service, "runner-other");
    expect((await service.json("GET", `/v1/runs/${run.id}`, { key: otherTenant.key })).status).toBe(404);

    // Learning: the run's trajectory is now a graph transition.
    const graph = await service.json<{ trajectories: { id: string; tools: string[] }[] }>("GET", "/v1/graph", { key: tenant.key });
    expect(graph.body.trajectories).toContainEqual({ id: `run:${run.id}`, tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"] });
  });

  it("does not send a successful side effect again in a later attempt", async () => {
    model.reset();
    const first = [
      'const order = await tools.createOrder({ item: "book" });',
      "const status = await tools.orderStatus({ order_id: order.orderId });",
      "return status.missing.field;",
    ].join("\n");
    const second = ['const order = await tools.createOrder({ item: "book" });', "return `order ${order.orderId}`;"].join("\n");
    model.on({ name: "revise", match: (r) => r.lastUserMessage.includes("Attempt 1"), answer: { text: fence(second) } });
    model.on({ name: "generate", match: /Query: Order a book/, answer: { text: fence(first) } });
    const before = upstream.filter((u) => u.method === "POST").length;
    const res = await service.json<RunBody>("POST", "/v1/runs", { key: tenant.key, body: { task: "Order a book", tools: ["createOrder", "orderStatus"] } });
    expect(res.body.status).toBe("succeeded");
    expect(res.body.answer).toBe("order 77");
    expect(upstream.filter((u) => u.method === "POST").length - before).toBe(1);
    const [a1, a2] = res.body.attempts;
    expect(a1?.trace[0]).toMatchObject({ tool: "createOrder", sent: true, replayed: false, ok: true });
    expect(a2?.trace[0]).toMatchObject({ tool: "createOrder", sent: false, replayed: true, ok: true });
  });

  it("streams progress as server-sent events", async () => {
    model.reset();
    model.on({ name: "generate", answer: { text: fence('const r = await tools.getSearchPerson({ query: "x" });\nreturn r.results.length;') } });
    const response = await service.fetch("/v1/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ task: "count people named x", tools: ["getSearchPerson"] }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events).toEqual(["attempt_started", "program", "tool_called", "answer", "run"]);
  });

  it("answers a failing model endpoint with a 502 problem, not a stack trace", async () => {
    model.reset();
    model.on({ name: "down", answer: { status: 503, body: { error: { message: "overloaded" } } } });
    const res = await service.json<{ type: string; detail: string }>("POST", "/v1/runs", {
      key: tenant.key,
      body: { task: "anything", tools: ["getSearchPerson"] },
    });
    expect(res.status).toBe(502);
    expect(res.body.type).toBe("https://atc-edge.dev/problems/upstream-error");
    expect(res.body.detail).not.toContain("sk-test-model-key");
  });

  it("streams a failing model endpoint as the same upstream-error problem the JSON answer gives", async () => {
    model.reset();
    model.on({ name: "down", answer: { status: 503, body: { error: { message: "overloaded" } } } });
    const response = await service.fetch("/v1/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ task: "anything", tools: ["getSearchPerson"] }),
    });
    const text = await response.text();
    const problem = /^event: problem\ndata: (.+)$/m.exec(text)?.[1];
    expect(problem, text).toBeDefined();
    expect(JSON.parse(problem ?? "{}")).toMatchObject({ type: "https://atc-edge.dev/problems/upstream-error", status: 502, instance: "/v1/runs" });
    expect(problem).toContain("The model endpoint failed");
    expect(text).not.toContain("sk-test-model-key");
  });

  it("queues tools that runs keep misusing for optimisation, only when the tenant turned it on", async () => {
    const failing = 'const found = await tools.getSearchPerson({ query: "x" });\nreturn found.nothing.here;';
    const runOnce = async () => {
      model.reset();
      model.on({ name: "generate", answer: { text: fence(failing) } });
      return service.json<RunBody>("POST", "/v1/runs", { key: tenant.key, body: { task: "misuse", tools: ["getSearchPerson"], maxAttempts: 1 } });
    };
    const optimizeJobs = async () =>
      (await service.json<{ jobs: { kind: string }[] }>("GET", "/v1/jobs", { key: tenant.key })).body.jobs.filter((j) => j.kind === "optimize");
    expect((await service.json<{ autoOptimize: boolean }>("GET", "/v1/settings/optimization", { key: tenant.key })).body.autoOptimize).toBe(false);
    const first = await runOnce();
    expect(first.body.attempts[0]?.attributedTool).toBe("getSearchPerson");
    expect(await optimizeJobs()).toHaveLength(0);
    const on = await service.json("PUT", "/v1/settings/optimization", { key: tenant.key, body: { autoOptimize: true, failureThreshold: 2 } });
    expect(on.status).toBe(200);
    await runOnce();
    const jobs = await optimizeJobs();
    expect(jobs).toHaveLength(1);
    const job = await service.json<{ request: { tool: string } }>("GET", `/v1/jobs/${(jobs[0] as unknown as { id: string }).id}`, { key: tenant.key });
    expect(job.body.request.tool).toBe("getSearchPerson");
    await service.json("PUT", "/v1/settings/optimization", { key: tenant.key, body: { autoOptimize: false, failureThreshold: 3 } });
  });

  it("takes explicit feedback for a whole run and applies it to every tool the run called", async () => {
    model.reset();
    model.on({ name: "generate", answer: { text: fence('const r = await tools.getSearchPerson({ query: "y" });\nreturn r.results.length;') } });
    const run = await service.json<RunBody>("POST", "/v1/runs", { key: tenant.key, body: { task: "count people named y", tools: ["getSearchPerson"] } });
    const scoreOf = async () =>
      (await service.json<{ nodes: { tool: string; score: number }[] }>("GET", "/v1/graph", { key: tenant.key })).body.nodes.find(
        (n) => n.tool === "getSearchPerson",
      )?.score ?? 0;
    const before = await scoreOf();
    const fed = await service.json<{ updated: { tool: string }[] }>("POST", "/v1/feedback", { key: tenant.key, body: { runId: run.body.id, score: -2 } });
    expect(fed.status).toBe(200);
    expect(fed.body.updated.map((u) => u.tool)).toEqual(["getSearchPerson"]);
    expect(await scoreOf()).toBe(before - 2);
    expect((await service.json("POST", "/v1/feedback", { key: tenant.key, body: { runId: "run_nope", score: 1 } })).status).toBe(404);
    expect((await service.json("POST", "/v1/feedback", { key: tenant.key, body: { runId: run.body.id, score: 7 } })).status).toBe(400);
  });

  /** The quota counts `totals` today, and a count since tomorrow finds nothing without reading the stored rows (an index answers it). */
  async function expectTodaysTokensFromIndex(
    key: string,
    totals: readonly number[],
    countSince: (sinceIso: string) => Promise<{ tokens: number | null; rowsRead: number }>,
  ): Promise<void> {
    const sum = totals.reduce((a, b) => a + b, 0);
    const quotas = await service.json<{ modelTokensToday: number }>("GET", "/v1/settings/quotas", { key });
    expect(quotas.body.modelTokensToday).toBe(sum);
    const midnight = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
    expect((await countSince(midnight)).tokens).toBe(sum);
    const tomorrow = await countSince(new Date(Date.now() + 86_400_000).toISOString());
    expect(tomorrow.tokens).toBeNull();
    expect(tomorrow.rowsRead).toBeLessThanOrEqual(1);
  }

  it("counts today's model tokens for a run's admission from an index, without reading every stored run", async () => {
    const counted = await createTenant(service, "token-count");
    const object = await tenantObject(service, counted.id);
    const runs = object.store("runs");
    const totals = Array.from({ length: 30 }, (_, i) => i + 1);
    for (const [i, totalTokens] of totals.entries()) {
      await runs.save(
        `run_${i}`,
        "count me",
        "succeeded",
        JSON.stringify({ id: `run_${i}`, usage: { promptTokens: totalTokens, completionTokens: 0, totalTokens } }),
      );
    }
    await runs.save("run_unfinished", "no usage", "failed", JSON.stringify({ id: "run_unfinished", attempts: [] }));
    await expectTodaysTokensFromIndex(counted.key, totals, (since) => object.runTokensSince(since));
  });

  it("counts today's job tokens for an admission from an index, without reading every stored job", async () => {
    const counted = await createTenant(service, "job-token-count");
    const object = await tenantObject(service, counted.id);
    const jobs = object.store("jobs");
    const totals = Array.from({ length: 30 }, (_, i) => i + 1);
    for (const totalTokens of totals) {
      const { id } = await jobs.create("optimize", { tool: `tool_${totalTokens}` }, null);
      await jobs.progress(id, {}, { totalTokens });
    }
    await expectTodaysTokensFromIndex(counted.key, totals, (since) => object.jobTokensSince(since));
  });

  it("makes three calls to the tenant object per run: admission, setting the run up, finishing it", async () => {
    model.reset();
    model.on({ name: "generate", answer: { text: fence("return 1;") } });
    const object = await tenantObject(service, tenant.id);
    await object.takeCalls();
    const json = await service.json<RunBody>("POST", "/v1/runs", {
      key: tenant.key,
      body: { task: "count nothing", tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"] },
    });
    expect(json.body.status).toBe("succeeded");
    expect(await object.takeCalls()).toEqual(["admit", "runSlots", "runSlots"]);
    // The streamed run, and one routing chooses the tools of, too.
    const streamed = await service.fetch("/v1/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ task: "find a person's movie credits" }),
    });
    expect(await streamed.text()).toMatch(/^event: run$/m);
    expect(await object.takeCalls()).toEqual(["admit", "runSlots", "runSlots"]);
    // The run was stored and learned from in the finishing call.
    const stored = await service.json<{ status: string }>("GET", `/v1/runs/${json.body.id}`, { key: tenant.key });
    expect(stored.body.status).toBe("succeeded");
  });

  it("holds no run slot after a run that was refused or failed, and stores nothing for a refused one", async () => {
    const single = await createTenant(service, "single-slot");
    await service.json("POST", "/v1/tools/import", { key: single.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
    expect((await service.json("PUT", "/v1/settings/runs", { key: single.key, body: { maxConcurrentRuns: 1 } })).status).toBe(200);
    const object = await tenantObject(service, single.id);
    await object.takeCalls();
    const unknown = await service.json("POST", "/v1/runs", { key: single.key, body: { task: "x", tools: ["noSuchTool"] } });
    expect(unknown.status).toBe(400);
    // Admission and `begin` only: a run with unknown tools takes no slot, so it has none to release.
    expect(await object.takeCalls()).toEqual(["admit", "runSlots"]);
    model.reset();
    model.on({ name: "down", answer: { status: 503, body: { error: { message: "overloaded" } } } });
    expect((await service.json("POST", "/v1/runs", { key: single.key, body: { task: "x", tools: ["getSearchPerson"] } })).status).toBe(502);
    model.reset();
    model.on({ name: "generate", answer: { text: fence("return 1;") } });
    const after = await service.json<RunBody>("POST", "/v1/runs", { key: single.key, body: { task: "x", tools: ["getSearchPerson"] } });
    expect(after.status).toBe(201);
    const listed = await service.json<{ runs: { status: string }[] }>("GET", "/v1/runs", { key: single.key });
    // The failed run is listed with what failed; the refused one is not there at all.
    expect(listed.body.runs.map((r) => r.status).sort()).toEqual(["failed", "succeeded"]);
  });

  it("rejects bad run requests", async () => {
    const empty = await service.json("POST", "/v1/runs", { key: tenant.key, body: { task: "  " } });
    expect(empty.status).toBe(400);
    const unknown = await service.json<{ detail: string }>("POST", "/v1/runs", { key: tenant.key, body: { task: "x", tools: ["noSuchTool"] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain("noSuchTool");
    const absurd = await service.json("POST", "/v1/runs", { key: tenant.key, body: { task: "x", maxAttempts: 50 } });
    expect(absurd.status).toBe(400);
    const absurdLimits = await service.json("POST", "/v1/runs", { key: tenant.key, body: { task: "x", limits: { maxToolCalls: 100000 } } });
    expect(absurdLimits.status).toBe(400);
  });
});
