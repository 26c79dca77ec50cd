import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import { addTools, applyFeedback, createGraph, END, exportGraph, START, transitionWeight, type ToolGraph } from "../../functions/toolnet/graph/index";

function graphABC(): ToolGraph {
  const graph = createGraph();
  addTools(graph, ["A", "B", "C"]);
  return graph;
}

function caught(fn: () => unknown): Failure {
  try {
    fn();
  } catch (error) {
    if (error instanceof Failure) return error;
    throw error;
  }
  throw new Error("expected a graph Failure");
}

function scores(graph: ToolGraph): Record<string, number> {
  return Object.fromEntries(exportGraph(graph).nodes.map((n) => [n.tool, n.score]));
}

describe("dynamic construction: accumulated scores s_i = Σ_n Δ_i⁽ⁿ⁾", () => {
  it("adds each iteration's score to the tools of the trajectory, and only to them", () => {
    const graph = graphABC();
    const first = applyFeedback(graph, { tools: ["A", "B"], scores: [3, -1] });
    expect(first).toEqual({
      updated: [
        { tool: "A", delta: 3, score: 3 },
        { tool: "B", delta: -1, score: -1 },
      ],
      skippedTools: [],
    });
    applyFeedback(graph, { tools: ["B", "C"], scores: [-3, 0] });
    expect(scores(graph)).toEqual({ A: 3, B: -4, C: 0 });
  });

  it("a tool used at several steps gets one Δ per iteration: the mean of its step scores", () => {
    const graph = graphABC();
    // A at steps 1 and 3: Δ_A = (3 + (-2)) / 2 = 0.5; Δ_B = 1.
    applyFeedback(graph, { tools: ["A", "B", "A"], scores: [3, 1, -2] });
    expect(scores(graph)).toEqual({ A: 0.5, B: 1, C: 0 });
  });

  it("a failing tool sinks on every edge into it, from every source", () => {
    const graph = graphABC();
    const before = transitionWeight(graph, START, "B");
    applyFeedback(graph, { tools: ["B"], scores: [-3] });
    expect(transitionWeight(graph, START, "B")).toBeLessThan(before);
    // the self-loop B→B is an edge into B too
    expect(transitionWeight(graph, "B", "B")).toBeLessThan(transitionWeight(graph, "B", END));
  });
});

describe("extreme accumulated scores", () => {
  it("keep weights finite and normalised when every mass underflows to 0", () => {
    const graph = createGraph({ alpha: 1 });
    addTools(graph, ["Only"]);
    for (let n = 0; n < 300; n += 1) applyFeedback(graph, { tools: ["Only"], scores: [-3] }); // s = -900, e^{-900} = 0
    expect(transitionWeight(graph, START, "Only")).toBe(1);
    expect(transitionWeight(graph, "Only", END)).toBeGreaterThan(transitionWeight(graph, "Only", "Only"));
  });
});

describe("evaluator scores are validated before anything changes", () => {
  it("refuses scores outside [-3, 3] and non-integers, naming the steps", () => {
    const graph = graphABC();
    const range = caught(() => applyFeedback(graph, { tools: ["A", "B", "C"], scores: [3, 4, -4] }));
    expect(range.code).toBe("invalid_scores");
    expect(range.message).toContain("step 2 (B): 4");
    expect(range.message).toContain("step 3 (C): -4");
    expect(range.names).toEqual(["B", "C"]);
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, -0.1]) {
      expect(caught(() => applyFeedback(graph, { tools: ["A"], scores: [bad] })).code).toBe("invalid_scores");
    }
    const notANumber = JSON.parse('{"tools": ["A"], "scores": ["2"]}') as { tools: string[]; scores: number[] };
    expect(caught(() => applyFeedback(graph, notANumber)).code).toBe("invalid_scores");
    expect(scores(graph)).toEqual({ A: 0, B: 0, C: 0 });
  });

  it("refuses a wrong number of scores, empty evaluations, start/end and unknown tools", () => {
    const graph = graphABC();
    expect(caught(() => applyFeedback(graph, { tools: ["A", "B"], scores: [1] })).message).toMatch(/one score per step: 2 steps, 1 scores/);
    expect(caught(() => applyFeedback(graph, { tools: ["A"], scores: [1, 1] })).code).toBe("invalid_scores");
    expect(caught(() => applyFeedback(graph, { tools: [], scores: [] })).code).toBe("invalid_trajectory");
    expect(caught(() => applyFeedback(graph, { tools: ["A", END], scores: [1, 1] })).code).toBe("reserved_name");
    const unknown = caught(() => applyFeedback(graph, { tools: ["A", "Gone", "Gone"], scores: [1, 1, 1] }));
    expect(unknown.code).toBe("unknown_tool");
    expect(unknown.names).toEqual(["Gone"]);
    expect(scores(graph)).toEqual({ A: 0, B: 0, C: 0 });
  });

  it("with unknownTools: skip, scores the tools it knows", () => {
    const graph = graphABC();
    const result = applyFeedback(graph, { tools: ["A", "Gone"], scores: [2, -3] }, { unknownTools: "skip" });
    expect(result.skippedTools).toEqual(["Gone"]);
    expect(scores(graph)).toEqual({ A: 2, B: 0, C: 0 });
  });
});
