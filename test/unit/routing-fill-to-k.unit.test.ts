import { describe, expect, it } from "vitest";
import { DataFlowIndex } from "../../functions/toolnet/data-flow";
import { addTools, addTrajectories, applyFeedback, createGraph, graphStepSuccessors, successors } from "../../functions/toolnet/graph";
import { toolDocument, ToolIndex } from "../../functions/toolnet/retrieval";
import { startingListOf, startingTools } from "../../functions/toolnet/route-fallback";
import { fillToK, routeStandIns } from "../../functions/toolnet/fill-to-k";
import type { FusedCandidate } from "../../functions/toolnet/signal-fusion";
import { ToolDefinition } from "../../functions/tools/definition";

const tool = (name: string, summary: string, parameters: ToolDefinition["parameters"] = [], server = "https://api.example.com"): ToolDefinition =>
  ToolDefinition.parse({ name, method: "GET", serverUrl: server, path: `/${name}`, operation: `GET /${name}`, summary, parameters });

const idParameter = { name: "item_id", in: "path" as const, required: true, schema: { type: "string" } };

/** Twenty tools of four small APIs; only two of them say "invoice". */
function twentyTools(): Map<string, ToolDefinition> {
  const defs = [
    tool("listInvoices", "List invoices", [], "https://billing.example.com"),
    tool("getInvoice", "Get one invoice", [idParameter], "https://billing.example.com"),
    tool("refundPayment", "Refund a payment", [idParameter], "https://billing.example.com"),
    tool("listPayments", "List payments", [], "https://billing.example.com"),
    ...["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"].map((w) =>
      tool(`${w}Status`, `Status of ${w}`, [], "https://ops.example.com"),
    ),
    ...["india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"].map((w) =>
      tool(`${w}Report`, `Report on ${w}`, [idParameter], "https://reports.example.com"),
    ),
  ];
  return new Map(defs.map((d) => [d.name, d]));
}

describe("route answers are filled to k by stand-ins, never by name order", () => {
  it("answers k = 10 on a tenant of 20 tools whose task matches two of them, the matches first", () => {
    const defs = twentyTools();
    const index = ToolIndex.build([...defs.values()].map((d) => toolDocument(d)));
    const graph = createGraph();
    addTools(graph, [...defs.keys()]);
    const task = "invoices";
    const fused: FusedCandidate[] = index.search(task, 30).map((r, i) => ({ tool: r.name, score: r.score, why: { relevance: { rank: i + 1 } } }));
    expect(fused.map((c) => c.tool).sort()).toEqual(["getInvoice", "listInvoices"]);
    const standIns = routeStandIns({
      index,
      graph,
      starting: startingListOf(defs),
      flow: new DataFlowIndex(defs),
      siblingsOf: (t) => (t === "listInvoices" ? ["getInvoice", "refundPayment", "listPayments"] : []),
      task,
      previous: null,
      best: fused[0]?.tool,
    });
    const filled = fillToK(fused, 10, standIns);
    const names = filled.ranked.map((c) => c.tool);
    expect(names).toHaveLength(10);
    expect(new Set(names).size).toBe(10);
    expect(names.slice(0, 2)).toEqual(fused.map((c) => c.tool));
    // Then the best match's API, then tools that need no identifier, before those that do.
    expect(names.slice(2, 4)).toEqual(["refundPayment", "listPayments"]);
    expect(names.slice(4).every((name) => name.endsWith("Status"))).toBe(true);
    expect(filled.fallback).toBeUndefined();
    // Scores keep the order and stay positive, every stand-in below every fused candidate.
    const scores = filled.ranked.map((c) => c.score);
    expect(scores.every((s, i) => s > 0 && (i === 0 || s <= (scores[i - 1] ?? 0)))).toBe(true);
  });

  it("says which stand-in answered when nothing matched, and fills from the next ones", () => {
    const standIns = [
      { method: "partial-match" as const, reason: "partial", rank: () => [] },
      { method: "learned-start" as const, reason: "learned", rank: () => [{ tool: "b", score: 3, why: {} }] },
      { method: "starting-tools" as const, reason: "start", rank: () => ["b", "c", "d"].map((t, i) => ({ tool: t, score: 3 - i, why: {} })) },
    ];
    const filled = fillToK([], 3, standIns);
    expect(filled.fallback?.method).toBe("learned-start");
    expect(filled.ranked.map((c) => c.tool)).toEqual(["b", "c", "d"]);
    // Excluded tools (the previous tool at a later step) are never stand-ins.
    expect(fillToK([], 3, standIns, ["c"]).ranked.map((c) => c.tool)).toEqual(["b", "d"]);
  });

  it("orders starting tools by likeness to the task, not by name", () => {
    const defs = new Map(
      [
        tool("aardvarkFacts", "Facts about aardvarks"),
        tool("currentTemperature", "Current temperature readings"),
        tool("zebraFacts", "Facts about zebras"),
        tool("getReading", "One reading", [idParameter]),
      ].map((d) => [d.name, d]),
    );
    const flow = new DataFlowIndex(defs);
    expect(startingTools(startingListOf(defs), flow, 3, "temprature now")[0]).toBe("currentTemperature");
    expect(startingTools(startingListOf(defs), flow, 3, "zebras")[0]).toBe("zebraFacts");
    // A tool that needs an identifier from another tool still comes last.
    expect(startingTools(startingListOf(defs), flow, 4, "one reading").at(-1)).toBe("getReading");
  });
});

describe("graph mode does not offer the previous tool's unobserved self-loop first", () => {
  it("ranks the one observed transition above a well-scored tool's own self-loop", () => {
    const graph = createGraph();
    addTools(graph, ["searchMovie", "getCredits", "getReviews"]);
    addTrajectories(graph, [{ id: "t1", tools: ["searchMovie", "getCredits"] }]);
    // searchMovie works well (its score rises), getCredits once failed: eq. 6 now favours the self-loop.
    for (let i = 0; i < 5; i += 1) applyFeedback(graph, { tools: ["searchMovie"], scores: [3] });
    applyFeedback(graph, { tools: ["getCredits"], scores: [-1] });
    expect(successors(graph, "searchMovie", 3)[0]?.tool).toBe("searchMovie");
    const ranked = graphStepSuccessors(graph, "searchMovie", 3);
    expect(ranked[0]?.tool).toBe("getCredits");
    expect(ranked.at(-1)?.tool).toBe("searchMovie");
    // Once the repeat is observed, eq. 4's order stands.
    addTrajectories(graph, [{ id: "t2", tools: ["searchMovie", "searchMovie"] }]);
    expect(graphStepSuccessors(graph, "searchMovie", 3)).toEqual(successors(graph, "searchMovie", 3));
  });
});
