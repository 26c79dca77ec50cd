import { tenantObject } from "../helpers/tenant-object";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;

let service: TestService;
let tenant: { id: string; key: string };
let other: { id: string; key: string };
let byOperation: Map<string, string>;

beforeAll(async () => {
  service = await startService();
  tenant = await createTenant(service, "graph-co");
  other = await createTenant(service, "graph-other");
  for (const t of [tenant, other]) {
    await service.json("POST", "/v1/tools/import", { key: t.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  }
  const list = await service.json<{ tools: { name: string; operation: string }[] }>("GET", "/v1/tools", { key: tenant.key });
  byOperation = new Map(list.body.tools.map((t) => [t.operation, t.name]));
});
afterAll(async () => service.dispose());

const op = (operation: string): string => byOperation.get(operation) ?? `missing:${operation}`;
const route = (key: string, body: Record<string, unknown>) => service.json<RouteAnswer>("POST", "/v1/route", { key, body });

describe("routing", () => {
  it("ranks first-step tools by retrieval and returns a prompt block and an OpenAI tools array", async () => {
    const res = await route(tenant.key, { task: "Who directed the movie Inception? search the movie first", k: 5, include: ["tools", "prompt"] });
    expect(res.status).toBe(200);
    expect(res.body.via).toBe("retrieval");
    expect(res.body.candidates).toHaveLength(5);
    expect(res.body.candidates.map((c) => c.name)).toContain(op("GET /search/movie"));
    expect(res.body.candidates.every((c) => Number.isInteger(c.weight))).toBe(true);
    // The prompt block gives the weights; the tools array, in the same order, names the tools.
    expect(res.body.tools?.[0]?.function.name).toBe(res.body.candidates[0]?.name);
    expect(res.body.prompt).toContain(`weights ${res.body.candidates.map((c) => c.weight).join(", ")}.`);
    const searchTool = res.body.tools?.find((t) => t.function.name === op("GET /search/movie"));
    expect(searchTool?.type).toBe("function");
    expect(searchTool?.function.parameters?.required).toContain("query");
  });

  it("after a tool, shows its learned successors ranked by weight (static construction)", async () => {
    const search = op("GET /search/movie");
    const credits = op("GET /movie/{movie_id}/credits");
    const details = op("GET /movie/{movie_id}");
    const trajectories = [
      { id: "t1", tools: [search, credits] },
      { id: "t2", tools: [search, credits] },
      { id: "t3", tools: [search, details] },
    ];
    const imported = await service.json<{ added: string[] }>("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } });
    expect(imported.status).toBe(200);
    expect(imported.body.added).toEqual(["t1", "t2", "t3"]);
    const again = await service.json<{ added: string[]; unchanged: string[] }>("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } });
    expect(again.body.added).toEqual([]);
    expect(again.body.unchanged).toHaveLength(3);

    const next = await route(tenant.key, { task: "who directed Inception", previousTool: search, k: 3, mode: "graph", include: ["tools", "prompt"] });
    expect(next.body.via).toBe("graph");
    expect(next.body.candidates.map((c) => c.name).slice(0, 2)).toEqual([credits, details]);
    const [first, second] = next.body.candidates;
    expect(first?.weight).toBeGreaterThan(second?.weight ?? Infinity);
    expect(next.body.prompt).toContain(`After ${search}:`);

    // The other tenant learned nothing.
    const otherNext = await route(other.key, { task: "who directed Inception", previousTool: search, k: 3, mode: "graph" });
    expect(otherNext.body.candidates[0]?.name).not.toBe(credits);
  });

  it("lets negative evaluator scores sink a tool below its alternative", async () => {
    const search = op("GET /search/movie");
    const credits = op("GET /movie/{movie_id}/credits");
    const details = op("GET /movie/{movie_id}");
    for (let i = 0; i < 6; i++) {
      await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: [search, credits], scores: [2, -3] } });
      await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: [search, details], scores: [2, 3] } });
    }
    const next = await route(tenant.key, { task: "who directed Inception", previousTool: search, k: 3, mode: "graph", include: ["tools", "prompt"] });
    expect(next.body.candidates[0]?.name).toBe(details);
  });

  it("rejects bad input with clear problems and changes nothing", async () => {
    const before = await service.json("GET", "/v1/graph", { key: tenant.key });
    const unknown = await service.json<{ detail: string }>("POST", "/v1/graph/trajectories", {
      key: tenant.key,
      body: { trajectories: [{ id: "x", tools: ["noSuchTool"] }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain("noSuchTool");
    const empty = await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories: [{ id: "y", tools: [] }] } });
    expect(empty.status).toBe(400);
    const outOfRange = await service.json<{ errors: { path: string }[] }>("POST", "/v1/feedback", {
      key: tenant.key,
      body: { tools: [op("GET /search/movie")], scores: [4] },
    });
    expect(outOfRange.status).toBe(400);
    const fractional = await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: [op("GET /search/movie")], scores: [1.5] } });
    expect(fractional.status).toBe(400);
    const mismatch = await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: [op("GET /search/movie")], scores: [1, 2] } });
    expect(mismatch.status).toBe(400);
    const unknownFeedback = await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: ["ghost"], scores: [1] } });
    expect(unknownFeedback.status).toBe(400);
    const unknownPrevious = await route(tenant.key, { task: "x", previousTool: "ghost" });
    expect(unknownPrevious.status).toBe(404);
    const emptyTask = await route(tenant.key, { task: "   " });
    expect(emptyTask.status).toBe(400);
    const badSettings = await service.json("PUT", "/v1/settings/graph", { key: tenant.key, body: { beta: 2 } });
    expect(badSettings.status).toBe(400);
    const after = await service.json("GET", "/v1/graph", { key: tenant.key });
    expect(after.body).toEqual(before.body);
  });
});

describe("concurrency and persistence", () => {
  it("applies 1,000 concurrent score updates exactly, and concurrent ones share their writes", async () => {
    const t = await createTenant(service, "busy-co");
    await service.json("POST", "/v1/tools/import", {
      key: t.key,
      body: {
        format: "list",
        tools: [
          { name: "alpha", method: "GET", url: "https://api.example.com/a" },
          { name: "beta", method: "GET", url: "https://api.example.com/b" },
        ],
      },
    });
    const object = await tenantObject(service, t.id);
    const writesBefore = await object.routingScoreWrites();
    const requests = Array.from({ length: 1000 }, (_, i) =>
      service.json<{ updated: { tool: string; score: number }[] }>("POST", "/v1/feedback", {
        key: t.key,
        body: { tools: ["alpha", "beta"], scores: [i % 2 === 0 ? 1 : -1, 2] },
      }),
    );
    // Refused updates among them (an unknown tool) are refused alone: the others still apply.
    const refused = Array.from({ length: 10 }, () => service.json("POST", "/v1/feedback", { key: t.key, body: { tools: ["alpha", "ghost"], scores: [3, 3] } }));
    const results = await Promise.all(requests);
    expect((await Promise.all(refused)).map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 400));
    expect(results.every((r) => r.status === 200)).toBe(true);
    // Each update reports the scores it left, as if applied alone: beta's scores are 2, 4, …, 2000 in some order.
    expect(results.map((r) => r.body.updated.find((u) => u.tool === "beta")?.score ?? 0).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 1000 }, (_, i) => 2 * (i + 1)),
    );
    // One update alone writes both tools' rows; updates that arrived together wrote each row once.
    const writesAfter = await object.routingScoreWrites();
    const writes = writesAfter.rows - writesBefore.rows;
    expect(writes).toBeGreaterThanOrEqual(2);
    expect(writes).toBeLessThan(1000);
    // At most two rows per flush (none when a flush held only refused updates), and far fewer flushes than updates.
    expect(writes).toBeLessThanOrEqual(2 * (writesAfter.flushes - writesBefore.flushes));
    expect(writesAfter.flushes - writesBefore.flushes).toBeLessThan(500);
    const snapshot = await service.json<{ nodes: { tool: string; score: number }[] }>("GET", "/v1/graph", { key: t.key });
    expect(snapshot.body.nodes).toEqual([
      { tool: "alpha", score: 0 },
      { tool: "beta", score: 2000 },
    ]);
  });

  it("keeps the graph across an eviction and reload, and exports/imports it", async () => {
    const before = await service.json<{ trajectories: unknown[] }>("GET", "/v1/graph", { key: tenant.key });
    await (await tenantObject(service, tenant.id)).simulateEviction();
    const after = await service.json("GET", "/v1/graph", { key: tenant.key });
    expect(after.body).toEqual(before.body);
    expect(before.body.trajectories.length).toBeGreaterThan(0);

    // Move the learned graph to the other tenant.
    const put = await service.json<{ missingTools: string[] }>("PUT", "/v1/graph", { key: other.key, body: before.body });
    expect(put.status).toBe(200);
    expect(put.body.missingTools).toEqual([]);
    expect((await service.json("GET", "/v1/graph", { key: other.key })).body).toEqual(before.body);
    const corrupt = await service.json("PUT", "/v1/graph", { key: other.key, body: { format: "nope" } });
    expect(corrupt.status).toBe(400);
  });

  it("draws the graph as Graphviz DOT with weighted edges", async () => {
    const res = await service.fetch("/v1/graph?format=dot", { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/vnd.graphviz");
    const dot = await res.text();
    expect(dot).toMatch(/^digraph toolnet \{/);
    expect(dot).toContain(`"${op("GET /search/movie")}" -> "${op("GET /movie/{movie_id}")}" [label="`);
  });
});
