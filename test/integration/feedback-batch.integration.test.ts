import { tenantObject } from "../helpers/tenant-object";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, type TestService } from "../helpers/service";

let service: TestService;

interface Graph {
  nodes: { tool: string; score: number }[];
}
interface FeedbackReport {
  updated: { tool: string; delta: number; score: number }[];
  skippedTools: string[];
}
interface Problem {
  type: string;
  status: number;
  detail: string;
  errors: { path: string; message: string }[];
}

const TOOLS = ["alpha", "beta", "gamma", "delta"];

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

async function tenantWithTools(id: string): Promise<{ id: string; key: string }> {
  const t = await createTenant(service, id);
  const tools = TOOLS.map((name) => ({ name, method: "GET", url: `https://api.example.com/${name}` }));
  const imported = await service.json("POST", "/v1/tools/import", { key: t.key, body: { format: "list", tools } });
  expect(imported.status).toBe(200);
  return t;
}

const graphOf = async (key: string): Promise<Graph> => (await service.json<Graph>("GET", "/v1/graph", { key })).body;

function tenantStub(id: string) {
  return tenantObject(service, id);
}

/** A stored run whose final program called `tools` (what run feedback scores). */
async function storeRun(tenantId: string, runId: string, tools: string[]): Promise<void> {
  const trace = tools.map((tool) => ({ tool, sent: true }));
  const record = {
    id: runId,
    task: "t",
    status: "succeeded",
    attempts: [{ trace }],
    candidates: tools,
    candidateSource: "request",
    createdAt: new Date(0).toISOString(),
    timings: { totalMs: 1 },
  };
  await (await tenantStub(tenantId)).store("runs").save(runId, "t", "succeeded", JSON.stringify(record));
}

/** A varied, repeatable list of updates: repeated tools within a trajectory, all scores in [-3, 3]. */
function updates(count: number): { tools: string[]; scores: number[] }[] {
  return Array.from({ length: count }, (_, i) => {
    const tools = [TOOLS[i % 4] ?? "alpha", TOOLS[(i * 3 + 1) % 4] ?? "beta", TOOLS[(i + 2) % 4] ?? "gamma"].slice(0, 1 + (i % 3));
    return { tools, scores: tools.map((_, j) => ((i + 2 * j) % 7) - 3) };
  });
}

describe("POST /v1/feedback/batch", () => {
  it("ends where the same updates sent one by one end, with the same per-item reports", async () => {
    const one = await tenantWithTools("batch-one-by-one");
    const batched = await tenantWithTools("batch-batched");
    const list = updates(40);
    await storeRun(one.id, "run-1", ["gamma", "delta", "gamma"]);
    await storeRun(batched.id, "run-1", ["gamma", "delta", "gamma"]);
    const items = [...list.slice(0, 20), { runId: "run-1", score: -2 }, ...list.slice(20)];

    const singles: FeedbackReport[] = [];
    for (const body of items) {
      const res = await service.json<FeedbackReport>("POST", "/v1/feedback", { key: one.key, body });
      expect(res.status).toBe(200);
      singles.push(res.body);
    }
    const batch = await service.json<{ applied: number; results: FeedbackReport[] }>("POST", "/v1/feedback/batch", {
      key: batched.key,
      body: { updates: items },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.applied).toBe(items.length);
    expect(batch.body.results).toEqual(singles);
    const graph = await graphOf(batched.key);
    expect(graph).toEqual(await graphOf(one.key));
    expect(graph.nodes.some((n) => n.score !== 0)).toBe(true);

    // Persisted, not only in memory: the same after the object forgets its state.
    await (await tenantStub(batched.id)).simulateEviction();
    expect(await graphOf(batched.key)).toEqual(graph);
  });

  it("stores every score of a batch that re-scores 130 tools", async () => {
    const t = await createTenant(service, "batch-many-tools");
    // 13 updates of 10 tools each: every one of the 130 re-scored tools must be stored.
    const names = Array.from({ length: 130 }, (_, i) => `tool_${i}`);
    const tools = names.map((name) => ({ name, method: "GET", url: `https://api.example.com/${name}` }));
    expect((await service.json("POST", "/v1/tools/import", { key: t.key, body: { format: "list", tools } })).status).toBe(200);
    const items = Array.from({ length: 13 }, (_, i) => {
      const group = names.slice(i * 10, i * 10 + 10);
      return { tools: group, scores: group.map((_, j) => ((i + j) % 7) - 3 || 1) };
    });
    const batch = await service.json<{ applied: number; results: FeedbackReport[] }>("POST", "/v1/feedback/batch", { key: t.key, body: { updates: items } });
    expect(batch.status).toBe(200);
    const reported = new Map(batch.body.results.flatMap((r) => r.updated.map((u) => [u.tool, u.score] as const)));
    expect(reported.size).toBe(130);
    await (await tenantStub(t.id)).simulateEviction();
    const stored = new Map((await graphOf(t.key)).nodes.map((n) => [n.tool, n.score]));
    for (const [tool, score] of reported) expect(stored.get(tool), tool).toBe(score);
  });

  it("applies nothing when one update is refused, and names that update", async () => {
    const t = await tenantWithTools("batch-refused");
    const before = await graphOf(t.key);
    const good = updates(6);

    const unknownTool = await service.json<Problem>("POST", "/v1/feedback/batch", {
      key: t.key,
      body: { updates: [...good.slice(0, 3), { tools: ["alpha", "ghost"], scores: [1, 1] }, ...good.slice(3)] },
    });
    expect(unknownTool.status).toBe(422);
    expect(unknownTool.body.type).toBe("https://atc-edge.dev/problems/feedback-refused");
    expect(unknownTool.body.errors).toEqual([{ path: "updates.3.tools.1", message: expect.stringContaining("ghost") }]);
    expect(unknownTool.body.detail).toContain("Update 3");

    const missingRun = await service.json<Problem>("POST", "/v1/feedback/batch", {
      key: t.key,
      body: { updates: [...good, { runId: "no-such-run", score: 1 }] },
    });
    expect(missingRun.status).toBe(422);
    expect(missingRun.body.errors).toEqual([{ path: "updates.6.runId", message: "No run no-such-run." }]);

    const outOfRange = await service.json<Problem>("POST", "/v1/feedback/batch", {
      key: t.key,
      body: { updates: [...good.slice(0, 3), { tools: ["alpha", "beta"], scores: [1, 4] }] },
    });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.errors.map((e) => e.path)).toContain("updates.3.scores.1");

    const empty = await service.json<Problem>("POST", "/v1/feedback/batch", { key: t.key, body: { updates: [] } });
    expect(empty.status).toBe(400);

    expect(await graphOf(t.key)).toEqual(before);
    // The refused batches left no half-applied scores in memory either: a good batch lands on zero.
    const after = await service.json<{ results: FeedbackReport[] }>("POST", "/v1/feedback/batch", {
      key: t.key,
      body: { updates: [{ tools: ["alpha"], scores: [2] }] },
    });
    expect(after.body.results[0]?.updated).toEqual([{ tool: "alpha", delta: 2, score: 2 }]);
  });

  it("loses nothing when the object is evicted while batched and single updates are being written", async () => {
    const t = await tenantWithTools("batch-evicted");
    const stub = await tenantStub(t.id);
    const batch = { updates: Array.from({ length: 50 }, () => ({ tools: ["alpha", "beta"], scores: [1, -1] })) };
    const requests: Promise<{ status: number }>[] = [];
    const evictions: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      requests.push(service.json("POST", "/v1/feedback/batch", { key: t.key, body: batch }));
      requests.push(service.json("POST", "/v1/feedback", { key: t.key, body: { tools: ["gamma"], scores: [3] } }));
      if (i % 4 === 0) evictions.push(stub.simulateEviction());
    }
    const results = await Promise.all(requests);
    await Promise.all(evictions);
    expect(results.map((r) => r.status)).toEqual(requests.map(() => 200));
    await stub.simulateEviction();
    expect((await graphOf(t.key)).nodes).toEqual([
      { tool: "alpha", score: 1000 },
      { tool: "beta", score: -1000 },
      { tool: "delta", score: 0 },
      { tool: "gamma", score: 60 },
    ]);
  });
});

describe("the quota family of feedback batches", () => {
  it("counts five feedback batches as routing traffic: a writes rate of 1/s refuses none, and still limits writes", async () => {
    const t = await tenantWithTools("batch-quota-family");
    const limited = await service.json("PUT", "/v1/settings/quotas", { key: t.key, body: { rates: { writes: { perSecond: 1, burst: 1 } } } });
    expect(limited.status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const batch = await service.json("POST", "/v1/feedback/batch", { key: t.key, body: { updates: updates(3) } });
      statuses.push(batch.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // The writes bucket itself still holds: four imports at once cannot all get one of its tokens (1/s).
    const list = { format: "list", tools: [{ name: "epsilon", method: "GET", url: "https://api.example.com/epsilon" }] };
    const writes = await Promise.all([0, 1, 2, 3].map(() => service.json("POST", "/v1/tools/import", { key: t.key, body: list })));
    expect(writes.map((w) => w.status)).toContain(429);
  });

  it("still counts tool calls in their own family, declared with their route", async () => {
    const t = await tenantWithTools("call-quota-family");
    await service.json("PUT", "/v1/settings/quotas", { key: t.key, body: { rates: { toolCalls: { perSecond: 1, burst: 1 } } } });
    const calls = await Promise.all([0, 1, 2, 3].map(() => service.json("POST", "/v1/tools/alpha/call", { key: t.key, body: { arguments: {} } })));
    expect(calls.map((call) => call.status)).toContain(429);
    // Writes keep their default room meanwhile.
    expect((await service.json("PUT", "/v1/settings/quotas", { key: t.key, body: { maxConcurrentJobs: 4 } })).status).toBe(200);
  });
});
