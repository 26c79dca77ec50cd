import { tenantObject } from "../helpers/tenant-object";
import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcp, serviceFetch, MCP_URL } from "../helpers/mcp-client";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const fence = (code: string) => `Here is the program.\n\`\`\`ts\n${code}\n\`\`\``;

let service: TestService;
let model: ScriptedModel;
let movies: { id: string; key: string };
let shop: { id: string; key: string };
const clients: Client[] = [];

const connect = async (key: string): Promise<Client> => {
  const client = await connectMcp(service, key);
  clients.push(client);
  return client;
};

interface FoundTools {
  via: string;
  previous: string | null;
  candidates: { name: string; weight: number; description: string; inputSchema?: Record<string, unknown> }[];
}

const call = async (
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (p: { progress: number; message?: string }) => void,
): Promise<CallToolResult> =>
  CallToolResultSchema.parse(
    await client.callTool({ name, arguments: args }, CallToolResultSchema, onprogress === undefined ? {} : { onprogress, timeout: 60_000 }),
  );

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({
    outbound: async (request) => (new URL(request.url).hostname === "model.atc.test" ? model.handle(request) : Response.json({ shop: true })),
    bindings: { MCP_LIST_CHANGED_POLL_MS: "100" },
  });
  movies = await createTenant(service, "mcp-movies");
  shop = await createTenant(service, "mcp-shop");
  await service.json("POST", "/v1/tools/import", { key: movies.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  await service.json("POST", "/v1/tools/import", {
    key: shop.key,
    body: {
      format: "list",
      source: "shop",
      tools: [{ name: "listOrders", method: "GET", url: "https://shop.example.com/orders", description: "List the shop's orders" }],
    },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await service.dispose();
});

describe("the tenant's MCP server at /mcp", () => {
  it("initializes with the SDK client and lists the four service tools", async () => {
    const client = await connect(movies.key);
    expect(client.getServerVersion()?.name).toBe("atc-edge");
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect(client.getInstructions()).toContain("find_tools");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["find_tools", "call_tool", "run_task", "give_feedback"]);
    const find = tools.find((t) => t.name === "find_tools");
    expect(find?.inputSchema.required).toEqual(["task"]);
    expect(Object.keys(find?.inputSchema.properties ?? {})).toEqual(["task", "previous_tool", "k", "max_tokens"]);
  });

  it("find_tools returns the same candidates as POST /v1/route, first step and after a tool", async () => {
    const client = await connect(movies.key);
    const task = "Who directed the movie Inception? search the movie first";
    const rest = await service.json<RouteAnswer>("POST", "/v1/route", { key: movies.key, body: { task, k: 5 } });
    const found = await call(client, "find_tools", { task, k: 5 });
    expect(found.isError).toBeUndefined();
    const answer = found.structuredContent as unknown as FoundTools;
    expect(answer.via).toBe(rest.body.via);
    expect(answer.candidates.map(({ inputSchema: _schema, ...candidate }) => candidate)).toEqual(rest.body.candidates);
    for (const tool of rest.body.tools ?? []) {
      expect(answer.candidates.find((c) => c.name === tool.function.name)?.inputSchema).toEqual(tool.function.parameters);
    }
    expect(JSON.parse((found.content[0] as { text: string }).text)).toEqual(answer);

    // A token budget goes through as it does for /v1/route.
    const restSmall = await service.json<RouteAnswer & { overBudget: { name: string }[] }>("POST", "/v1/route", {
      key: movies.key,
      body: { task, k: 8, maxTokens: 300 },
    });
    const small = (await call(client, "find_tools", { task, k: 8, max_tokens: 300 })).structuredContent as unknown as FoundTools & {
      overBudget: { name: string }[];
      tokens: RouteAnswer["tokens"];
    };
    expect(restSmall.body.overBudget.length).toBeGreaterThan(0);
    expect(small.overBudget).toEqual(restSmall.body.overBudget);
    // The budget is spent on the schemas find_tools returns: no prompt block is counted.
    expect(small.tokens).toEqual(restSmall.body.tokens);
    expect(small.tokens.prompt).toBe(0);
    expect(small.candidates.map((c) => c.name)).toEqual(restSmall.body.candidates.map((c) => c.name));

    await service.json("POST", "/v1/graph/trajectories", {
      key: movies.key,
      body: { trajectories: [{ id: "m1", tools: ["getSearchMovie", "getMovieMovieIdCredits"] }] },
    });
    const restNext = await service.json<RouteAnswer>("POST", "/v1/route", { key: movies.key, body: { task, previousTool: "getSearchMovie", k: 3 } });
    const next = (await call(client, "find_tools", { task, previous_tool: "getSearchMovie", k: 3 })).structuredContent as unknown as FoundTools;
    expect(next.via).toBe(restNext.body.via);
    expect(next.previous).toBe("getSearchMovie");
    expect(next.candidates.map((c) => c.name)).toEqual(restNext.body.candidates.map((c) => c.name));
    expect(next.candidates[0]?.name).toBe("getMovieMovieIdCredits");
  });

  it("call_tool reaches the simulated world through the safe-call path; refusals carry the REST problem type", async () => {
    const client = await connect(movies.key);
    const result = await call(client, "call_tool", { name: "getSearchPerson", arguments: { query: "Christopher Nolan" } });
    expect(result.isError).toBeUndefined();
    const outcome = result.structuredContent as { ok: boolean; status: number; body: { results: unknown[] }; request: { url: string } };
    expect(outcome.ok).toBe(true);
    expect(outcome.status).toBe(200);
    expect(outcome.request.url).toBe(`${WORLD_ORIGIN}/tmdb/search/person?query=Christopher+Nolan`);
    const rest = await service.json<{ body: unknown }>("POST", "/v1/tools/getSearchPerson/call", {
      key: movies.key,
      body: { arguments: { query: "Christopher Nolan" } },
    });
    expect(outcome.body).toEqual(rest.body.body);

    const refused = await call(client, "call_tool", { name: "getSearchPerson", arguments: { query: 42, nope: 1 } });
    const restRefused = await service.json<{ type: string }>("POST", "/v1/tools/getSearchPerson/call", {
      key: movies.key,
      body: { arguments: { query: 42, nope: 1 } },
    });
    expect(refused.isError).toBe(true);
    expect(restRefused.status).toBe(422);
    expect((refused.structuredContent as { type: string }).type).toBe(restRefused.body.type);

    const missing = await call(client, "call_tool", { name: "noSuchTool", arguments: {} });
    expect(missing.isError).toBe(true);
    expect((missing.structuredContent as { type: string }).type).toBe("https://atc-edge.dev/problems/not-found");

    const badInput = await call(client, "find_tools", { k: 0 });
    expect(badInput.isError).toBe(true);
    expect(badInput.structuredContent).toMatchObject({ type: "https://atc-edge.dev/problems/invalid-request", status: 400 });
  });

  it("run_task streams progress notifications with the scripted model and returns a run id that give_feedback takes", async () => {
    model.reset();
    const program = [
      'const found = await tools.getSearchPerson({ query: "Bradley Cooper" });',
      "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: found.results[0].id });",
      "return `${credits.cast.length} movies`;",
    ].join("\n");
    model.on({ name: "generate", match: (r) => r.lastUserMessage.includes("Query: How many movies"), answer: { text: fence(program) } });
    const client = await connect(movies.key);
    const progress: { progress: number; message?: string }[] = [];
    const result = await call(
      client,
      "run_task",
      { task: "How many movies has Bradley Cooper acted in?", tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"] },
      (p) => progress.push(p),
    );
    expect(result.isError).toBeUndefined();
    const run = result.structuredContent as { run_id: string; status: string; answer: string; tools_called: string[] };
    expect(run.status).toBe("succeeded");
    expect(run.answer).toMatch(/^\d+ movies$/);
    expect(run.tools_called).toEqual(["getSearchPerson", "getPersonPersonIdMovieCredits"]);
    expect(progress.map((p) => p.message)).toEqual([
      "attempt 1: writing a program",
      "attempt 1: running the program",
      "attempt 1: getSearchPerson answered (HTTP 200)",
      "attempt 1: getPersonPersonIdMovieCredits answered (HTTP 200)",
      "attempt 1: answer ready",
    ]);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5]);
    expect((await service.json("GET", `/v1/runs/${run.run_id}`, { key: movies.key })).status).toBe(200);

    const feedback = await call(client, "give_feedback", { run_id: run.run_id, score: 2 });
    expect(feedback.isError).toBeUndefined();
    expect((feedback.structuredContent as { updated: { tool: string }[] }).updated.map((u) => u.tool)).toEqual([
      "getSearchPerson",
      "getPersonPersonIdMovieCredits",
    ]);
    const graph = await service.json<{ nodes: { tool: string; score: number }[] }>("GET", "/v1/graph", { key: movies.key });
    expect(graph.body.nodes.find((n) => n.tool === "getSearchPerson")?.score).toBeGreaterThan(0);

    const byTools = await call(client, "give_feedback", { tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"], scores: [1, -1] });
    expect((byTools.structuredContent as { updated: { tool: string; delta: number }[] }).updated.map((u) => u.tool)).toEqual([
      "getSearchPerson",
      "getPersonPersonIdMovieCredits",
    ]);
    const mismatched = await call(client, "give_feedback", { tools: ["getSearchPerson", "getSearchMovie"], scores: [1] });
    expect(mismatched.structuredContent).toMatchObject({
      type: "https://atc-edge.dev/problems/invalid-request",
      errors: [{ path: "scores", message: "one score per tool" }],
    });
    const unknownRun = await call(client, "give_feedback", { run_id: "run_missing", score: 1 });
    expect(unknownRun.structuredContent).toMatchObject({ type: "https://atc-edge.dev/problems/not-found" });
  });

  it("run_task takes one of the tenant's run slots, as POST /v1/runs does", async () => {
    const slots = (await tenantObject(service, movies.id)).store("runSlots");
    const held = ["a", "b", "c", "d"].map((k) => `held-${k}`);
    for (const key of held) expect((await slots.acquire(key, Date.now())).ok).toBe(true);
    const client = await connect(movies.key);
    const refused = await call(client, "run_task", { task: "How many movies has Bradley Cooper acted in?", tools: ["getSearchPerson"] });
    const rest = await service.json<{ type: string }>("POST", "/v1/runs", {
      key: movies.key,
      body: { task: "How many movies has Bradley Cooper acted in?", tools: ["getSearchPerson"] },
    });
    expect(rest.status).toBe(429);
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as { type: string }).type).toBe(rest.body.type);
    for (const key of held) await slots.release(key);
  });

  it("another tenant's key sees only its own tools", async () => {
    const client = await connect(shop.key);
    const found = (await call(client, "find_tools", { task: "search a person or a movie, or list orders", k: 10 })).structuredContent as unknown as FoundTools;
    expect(found.candidates.map((c) => c.name)).toEqual(["listOrders"]);
    const theirs = await call(client, "call_tool", { name: "getSearchPerson", arguments: { query: "x" } });
    expect(theirs.structuredContent).toMatchObject({ type: "https://atc-edge.dev/problems/not-found" });
  });

  it("a bad or missing key gets 401 before any MCP handling", async () => {
    const post = (authorization?: string) =>
      serviceFetch(service)(MCP_URL, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    for (const response of [await post("Bearer atc_mcp-movies_wrongsecret"), await post()]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(((await response.json()) as { type: string }).type).toBe("https://atc-edge.dev/problems/unauthorized");
    }
    await expect(connectMcp(service, "atc_mcp-movies_wrongsecret")).rejects.toThrow(/401/);
  });

  it("answers a lone JSON-RPC POST without a session, as the README's curl example sends it", async () => {
    const response = await serviceFetch(service)(MCP_URL, {
      method: "POST",
      headers: { authorization: `Bearer ${movies.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "find_tools", arguments: { task: "Who directed the movie Inception?", k: 3 } },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const data = (await response.text()).split("\n").find((line) => line.startsWith("data: "));
    const message = JSON.parse(data?.slice("data: ".length) ?? "null") as { id: number; result: { structuredContent: FoundTools } };
    expect(message.id).toBe(1);
    expect(message.result.structuredContent.candidates).toHaveLength(3);
  });

  it("lists the top routed tools directly when the tenant asks, and calls them like call_tool", async () => {
    const put = await service.json("PUT", "/v1/settings/mcp", { key: movies.key, body: { routedTools: 2 } });
    expect(put.status).toBe(200);
    const client = await connect(movies.key);
    const names = (await client.listTools()).tools.map((t) => t.name);
    // Every routed tool has one transition in so far (the trajectory, the run); the learned weight
    // of starting with a tool breaks the tie: the two search tools are the usual first steps.
    expect(names).toEqual(["find_tools", "call_tool", "run_task", "give_feedback", "getSearchPerson", "getSearchMovie"]);
    const direct = await call(client, "getSearchMovie", { query: "Inception" });
    expect((direct.structuredContent as { ok: boolean; request: { url: string } }).request.url).toBe(`${WORLD_ORIGIN}/tmdb/search/movie?query=Inception`);
    await service.json("PUT", "/v1/settings/mcp", { key: movies.key, body: { routedTools: 0 } });
    expect((await client.listTools()).tools).toHaveLength(4);
  });

  it("stamps the catalog for the list_changed look: a tool change changes the stamp, an eviction keeps it", async () => {
    const object = await tenantObject(service, shop.id);
    const registry = object.store("registry");
    const before = await registry.catalogStamp();
    await object.simulateEviction();
    expect(await registry.catalogStamp()).toBe(before);
    const added = await service.json("POST", "/v1/tools/import", {
      key: shop.key,
      body: { format: "list", source: "shop3", tools: [{ name: "listRefunds", method: "GET", url: "https://shop.example.com/refunds" }] },
    });
    expect(added.status).toBe(200);
    expect(await registry.catalogStamp()).not.toBe(before);
  });

  it("sends notifications/tools/list_changed on the open GET stream when the registry changes", async () => {
    const client = await connect(shop.key);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    // Give the GET stream time to open and take its first look at the registry.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await service.json("POST", "/v1/tools/import", {
      key: shop.key,
      body: { format: "list", source: "shop2", tools: [{ name: "getOrder", method: "GET", url: "https://shop.example.com/orders/{id}" }] },
    });
    await expect(Promise.race([changed.then(() => "notified"), new Promise((resolve) => setTimeout(() => resolve("silent"), 8_000))])).resolves.toBe(
      "notified",
    );
  });
});
