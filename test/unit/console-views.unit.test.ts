import { describe, expect, it } from "vitest";
import type { JobRecord } from "../../functions/storage/tenant-jobs";
import { wordDiffHtml } from "../../functions/http/console/description-diff";
import { graphView } from "../../functions/http/console/graph-view";
import { jobProgress } from "../../functions/http/console/job-progress";
import { problemMessage } from "../../functions/http/console/service-api";
import { toolStatusRows } from "../../functions/http/console/tool-status";
import { ToolPage } from "../../functions/http/console/views/tool";
import { StoredProtocol } from "../../functions/storage/protocol-store";

const tool = (name: string, hash = `h-${name}`) => ({ definition: { name, operation: `GET /${name}` }, hash, source: "test" });
const protocol = (tool: string, hash: string, version = 1, pinned = false) => ({
  tool,
  version,
  hash,
  kvKey: `protocol/t/${tool}/${hash}`,
  source: "probe" as const,
  score: null,
  jobId: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  pinned,
});
const idle = { calls: 0, okCalls: 0, lastProbe: null, lastProbeError: null, recentScores: [] };

describe("tool status rows", () => {
  it("tells documented, stale, failed, probing and never-probed tools apart, with success rates", () => {
    const rows = toolStatusRows([tool("a"), tool("b"), tool("c"), tool("d"), tool("e")], [protocol("a", "h-a", 2, true), protocol("b", "old-hash")], {
      a: { ...idle, calls: 4, okCalls: 3 },
      c: { ...idle, lastProbe: "failed", lastProbeError: "404 from the tool" },
      d: { ...idle, lastProbe: "probing" },
    });
    const byName = new Map(rows.map((r) => [r.name, r]));
    expect(byName.get("a")).toMatchObject({ probe: "documented", version: 2, pinned: true, successRate: 0.75, stale: false });
    expect(byName.get("b")).toMatchObject({ probe: "never", stale: true, version: 1 });
    expect(byName.get("c")).toMatchObject({ probe: "failed", probeError: "404 from the tool", successRate: null });
    expect(byName.get("d")?.probe).toBe("probing");
    expect(byName.get("e")).toMatchObject({ probe: "never", version: null, calls: 0 });
  });
});

describe("graph view", () => {
  it("has one node per tool, start/end only when transitions use them, and marks broken tools", () => {
    const rows = toolStatusRows([tool("search"), tool("details"), tool("flaky")], [], {
      flaky: { ...idle, calls: 4, okCalls: 1 },
    });
    const view = graphView(rows, {
      nodes: [
        { tool: "search", score: 2 },
        { tool: "details", score: -1 },
        { tool: "flaky", score: 0 },
      ],
      edges: [
        { from: "<start>", to: "search", count: 3, weight: 0.6 },
        { from: "search", to: "details", count: 2, weight: 0.5 },
        { from: "search", to: "gone", count: 1, weight: 0.1 },
      ],
    });
    expect(view.nodes.filter((n) => n.kind === "tool").map((n) => n.id)).toEqual(["search", "details", "flaky"]);
    expect(view.nodes.map((n) => n.kind)).toEqual(["start", "tool", "tool", "tool"]);
    expect(view.nodes.filter((n) => n.broken).map((n) => n.id)).toEqual(["details", "flaky"]);
    // Edges by node index, weight ×1000; the edge to an unregistered tool is not drawn.
    expect(view.edges).toEqual([
      [0, 1, 600, 3],
      [1, 2, 500, 2],
    ]);
  });
});

function job(overrides: Partial<JobRecord>): JobRecord {
  return {
    id: "job_1",
    kind: "probe",
    status: "running",
    request: { tools: ["a", "b", "c", "d"] },
    progress: {},
    result: null,
    usage: {},
    attempts: 1,
    lastError: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    items: [],
    ...overrides,
  };
}

describe("job progress", () => {
  it("gives each requested tool of a probe job a bar: pending 0, probing ½, probed or failed 1", () => {
    const progress = jobProgress(
      job({
        items: [
          { tool: "a", status: "probed", detail: { how: "direct" }, updatedAt: "" },
          { tool: "b", status: "failed", detail: { error: "500" }, updatedAt: "" },
          { tool: "c", status: "probing", detail: {}, updatedAt: "" },
        ],
      }),
    );
    expect(progress.tools.map((t) => [t.tool, t.status, t.fraction, t.note])).toEqual([
      ["a", "probed", 1, "direct"],
      ["b", "failed", 1, "500"],
      ["c", "probing", 0.5, null],
      ["d", "pending", 0, null],
    ]);
    expect(progress.fraction).toBeCloseTo(2.5 / 4);
    expect(progress.finished).toBe(false);
    const done = jobProgress(job({ status: "succeeded", items: [{ tool: "a", status: "probed", detail: {}, updatedAt: "" }] }));
    expect(done.fraction).toBe(1);
    expect(done.tools.find((t) => t.tool === "d")).toMatchObject({ status: "failed", note: "not reached" });
  });

  it("measures a Play2Prompt job by beam steps of its two searches, never 100 % before it ends", () => {
    const running = jobProgress(
      job({ kind: "optimize", request: { tool: "rates", settings: { depth: 2 } }, progress: { phase: "descriptions", beams: [1, 2, 3] } }),
    );
    expect(running.tools).toEqual([{ tool: "rates", status: "playing", fraction: 0.75, note: "descriptions: 3 beam steps" }]);
    const overfull = jobProgress(job({ kind: "optimize", request: { tool: "rates", settings: { depth: 1 } }, progress: { beams: [1, 2, 3] } }));
    expect(overfull.fraction).toBeLessThan(1);
  });
});

describe("messages instead of JSON", () => {
  it("turns a problem document into one sentence with its field errors", () => {
    expect(
      problemMessage({ title: "Invalid request", detail: "The request does not match the schema.", errors: [{ path: "task", message: "Required" }] }, 400),
    ).toBe("The request does not match the schema. (task: Required)");
    expect(problemMessage(null, 502)).toBe("The service answered 502.");
  });

  it("diffs descriptions word by word with everything escaped", () => {
    expect(wordDiffHtml("Get rates <old>", "Get exchange rates <new>")).toBe("Get <ins>exchange </ins>rates &lt;<del>old</del><ins>new</ins>&gt;");
  });
});

describe("tool page", () => {
  it("shows protocol versions side by side with the Play2Prompt diff, scores and demonstrations", async () => {
    const session = { kind: "tenant" as const, tenantId: "t", key: "atc_t_secret", csrf: "token", expiresAt: Date.now() + 60_000 };
    const definition = {
      name: "getRates",
      method: "GET" as const,
      serverUrl: "https://rates.example.com",
      path: "/rates",
      operation: "GET /rates",
      description: "Get rates.",
      parameters: [],
      tags: [],
    };
    const base = { source: "probe", score: null, createdAt: "2026-01-01T00:00:00.000Z", hash: "h", jobId: null, pinned: false };
    const probed = StoredProtocol.parse({
      name: "getRates",
      definitionHash: "h",
      description: "Get rates.",
      descriptionSource: "registered",
      parameters: [],
      responseSchema: { rate: "float" },
      jsonSchema: { type: "object", properties: { rate: { type: "number" } } },
      example: { query: "Rates?", program: "return await tools.getRates({});" },
      helpers: [],
      samples: [],
      how: "direct",
      probedAt: "2026-01-01T00:00:00.000Z",
      usage: { toolCalls: 1, modelCalls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    });
    const optimized = StoredProtocol.parse({
      ...probed,
      description: "Get exchange rates between two currencies.",
      descriptionSource: "optimized",
      optimization: {
        jobId: "job_1",
        score: 1,
        originalScore: 1 / 3,
        originalDescription: "Get rates.",
        demonstrations: [{ query: "Euro in dollars?", args: { from: "EUR", to: "USD" }, resultSummary: "1.08", answer: "1.08", score: 0.9 }],
      },
    });
    const html = (
      await ToolPage({
        session,
        definition,
        hash: "h",
        status: undefined,
        versions: [
          { ...base, version: 1, current: false, protocol: probed },
          { ...base, version: 2, source: "optimize", score: 1, current: true, jobId: "job_1", protocol: optimized },
        ],
      }).toString()
    ).replaceAll("\n", "");
    expect(html.match(/class="card/g)).toHaveLength(2);
    expect(html).toContain("demonstrations solved 33 % → 100 %");
    expect(html).toContain("<ins>exchange </ins>");
    expect(html).toContain("Euro in dollars?");
    expect(html).toContain("Roll back to v1");
    expect(html).not.toContain("atc_t_secret");
  });
});
