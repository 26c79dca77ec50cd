import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import {
  addTools,
  addTrajectories,
  applyFeedback,
  createGraph,
  DEFAULT_SETTINGS,
  END,
  promptWeight,
  resolveSettings,
  scoreMass,
  START,
  staticWeight,
  successors,
  transitionWeight,
  transitionWeights,
  updateSettings,
  type ToolGraph,
} from "../../functions/toolnet/graph/index";

/**
 * Tiny corpus used for hand computation. With start and end added (eq. 5):
 *   t1 [A, B]     start→A, A→B, B→end
 *   t2 [A, C]     start→A, A→C, C→end
 *   t3 [A, B, A]  start→A, A→B, B→A, A→end   (a cycle: just transitions)
 * Counts: start: A 3 │ A: B 2, C 1, end 1 (total 4) │ B: end 1, A 1 (total 2) │ C: end 1.
 * Out-neighbours (§3): start → A, B, C; A → B, C, end, A (self, never observed).
 */
function tinyGraph(settings: { alpha?: number; beta?: number } = {}): ToolGraph {
  const graph = createGraph(settings);
  addTools(graph, ["A", "B", "C"]);
  addTrajectories(graph, [
    { id: "t1", tools: ["A", "B"] },
    { id: "t2", tools: ["A", "C"] },
    { id: "t3", tools: ["A", "B", "A"] },
  ]);
  return graph;
}

function weightsFrom(graph: ToolGraph, from: string): Record<string, number> {
  return Object.fromEntries(transitionWeights(graph, from).map(({ to, weight }) => [to, weight]));
}

describe("eq. 8: f maps accumulated scores to (0, ∞)", () => {
  it("is αx + 1 for x ≥ 0 and e^{αx} below, meeting at f(0) = 1", () => {
    expect(scoreMass(0, 0.5)).toBe(1);
    expect(scoreMass(3, 0.5)).toBe(2.5); // 0.5·3 + 1
    expect(scoreMass(-2, 0.5)).toBeCloseTo(0.36787944, 8); // e^{-1}
    expect(scoreMass(-3, 1)).toBeCloseTo(0.04978707, 8); // e^{-3}
    expect(scoreMass(-1e6, 1)).toBeGreaterThanOrEqual(0); // underflows to 0, never negative
  });
});

describe("eq. 5: static weights are normalised 2-gram frequencies", () => {
  it("with β = 1, w = w⁽⁰⁾ exactly: count / total over the source's observations", () => {
    const graph = tinyGraph({ beta: 1 });
    // A: B 2/4, C 1/4, end 1/4; the self-loop exists (§3) but was never observed: 0.
    expect(weightsFrom(graph, "A")).toEqual({ B: 0.5, C: 0.25, [END]: 0.25, A: 0 });
    // B: end 1/2, A 1/2, self 0.
    expect(weightsFrom(graph, "B")).toEqual({ [END]: 0.5, A: 0.5, B: 0 });
    // start → A in all three trajectories.
    expect(weightsFrom(graph, START)).toEqual({ A: 1, B: 0, C: 0 });
  });

  it("a source with no observation is the paper's non-informative graph: equal weights", () => {
    const graph = createGraph({ beta: 1 });
    addTools(graph, ["X", "Y", "Z"]);
    expect(weightsFrom(graph, START)).toEqual({ X: 1 / 3, Y: 1 / 3, Z: 1 / 3 });
    expect(weightsFrom(graph, "X")).toEqual({ X: 0.5, [END]: 0.5 }); // itself and end
    expect(staticWeight(0, 0, 0)).toBe(0);
  });
});

describe("eq. 6–7: w = β·w⁽⁰⁾ + (1 − β)·Δw, Δw normalised over the source's out-neighbours", () => {
  it("before any evaluation all masses are f(0) = 1, so Δw is uniform and the prior orders the edges", () => {
    const graph = tinyGraph(); // α 0.5, β 0.3
    // A has 4 out-neighbours: Δw = 1/4 each.
    // A→B: 0.3·0.5  + 0.7·0.25 = 0.15  + 0.175 = 0.325
    // A→C: 0.3·0.25 + 0.7·0.25 = 0.075 + 0.175 = 0.25   (same for A→end)
    // A→A: 0.3·0    + 0.7·0.25 =         0.175           (reachable, below every observed edge)
    const w = weightsFrom(graph, "A");
    expect(w["B"]).toBeCloseTo(0.325, 12);
    expect(w["C"]).toBeCloseTo(0.25, 12);
    expect(w[END]).toBeCloseTo(0.25, 12);
    expect(w["A"]).toBeCloseTo(0.175, 12);
    expect(Object.values(w).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it("Δw_ij uses the TARGET's accumulated score s_j (our reading of eq. 7)", () => {
    const graph = tinyGraph(); // α 0.5, β 0.3
    applyFeedback(graph, { tools: ["A", "B"], scores: [2, -2] }); // s_A = 2, s_B = -2
    // f(s_A) = 0.5·2 + 1 = 2; f(s_B) = e^{-1} = 0.367879; f(s_C) = f(s_end) = 1.
    // From A (out-neighbours B, C, end, A): Z = 0.367879 + 1 + 1 + 2 = 4.367879
    //   Δw: B 0.084224, C 0.228944, end 0.228944, A 0.457888
    //   A→B: 0.3·0.5  + 0.7·0.084224 = 0.208957
    //   A→C: 0.3·0.25 + 0.7·0.228944 = 0.235261   (A→end the same)
    //   A→A: 0.3·0    + 0.7·0.457888 = 0.320522   (a well-scored tool pulls its own self-loop up)
    const fromA = weightsFrom(graph, "A");
    expect(fromA["B"]).toBeCloseTo(0.208957, 6);
    expect(fromA["C"]).toBeCloseTo(0.235261, 6);
    expect(fromA[END]).toBeCloseTo(0.235261, 6);
    expect(fromA["A"]).toBeCloseTo(0.320522, 6);
    expect(Object.values(fromA).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    // Every edge into B falls, from any source. From start (A, B, C): Z = 2 + 0.367879 + 1 = 3.367879
    //   start→A: 0.3·1 + 0.7·2/Z = 0.715692; start→B: 0.7·0.367879/Z = 0.076462; start→C: 0.7/Z = 0.207846
    const fromStart = weightsFrom(graph, START);
    expect(fromStart["A"]).toBeCloseTo(0.715692, 6);
    expect(fromStart["B"]).toBeCloseTo(0.076462, 6);
    expect(fromStart["C"]).toBeCloseTo(0.207846, 6);
    expect(transitionWeight(graph, START, "B")).toBe(fromStart["B"]);
    expect(transitionWeight(graph, "C", "A")).toBe(0); // not an out-neighbour of C
  });

  it("β = 0 is pure Δw; α and β can change at any time and weights follow", () => {
    const graph = tinyGraph({ beta: 0 });
    applyFeedback(graph, { tools: ["B"], scores: [3] }); // s_B = 3, f = 2.5
    // From A: Z = 2.5 + 1 + 1 + 1 = 5.5 → A→B = 2.5/5.5
    expect(transitionWeight(graph, "A", "B")).toBeCloseTo(2.5 / 5.5, 12);
    updateSettings(graph, { alpha: 1 }); // f(3) = 4 → 4/7
    expect(transitionWeight(graph, "A", "B")).toBeCloseTo(4 / 7, 12);
    updateSettings(graph, { beta: 1 });
    expect(transitionWeight(graph, "A", "B")).toBe(0.5);
  });
});

describe("settings", () => {
  it("defaults α = 0.5, β = 0.3 and refuses values outside their ranges", () => {
    expect(DEFAULT_SETTINGS).toEqual({ alpha: 0.5, beta: 0.3 });
    expect(resolveSettings({ beta: 0 })).toEqual({ alpha: 0.5, beta: 0 });
    for (const bad of [{ alpha: 0 }, { alpha: -1 }, { alpha: Number.NaN }, { beta: 1.5 }, { beta: -0.1 }]) {
      expect(() => createGraph(bad)).toThrow(Failure);
    }
    expect(() => updateSettings(createGraph(), { beta: 2 })).toThrow(/beta must be in \[0, 1\]/);
  });
});

describe("prompt weights: w × 1000 as integers (§4.2.3's ×10 format)", () => {
  it("rounds half up, as the decimal would", () => {
    expect(promptWeight(0)).toBe(0);
    expect(promptWeight(1)).toBe(1000);
    expect(promptWeight(0.325)).toBe(325);
    expect(promptWeight(0.0004)).toBe(0);
    expect(promptWeight(0.0005)).toBe(1);
    expect(0.5005 * 1000).toBeLessThan(500.5); // binary noise…
    expect(promptWeight(0.5005)).toBe(501); // …rounded like the decimal
  });

  it("successors report both the integer and the exact weight", () => {
    const graph = tinyGraph();
    expect(successors(graph, "A", 4, { includeEnd: true })).toEqual([
      { tool: "B", weight: 325, exact: expect.closeTo(0.325, 12) },
      { tool: END, weight: 250, exact: expect.closeTo(0.25, 12) }, // ties by name: "<end>" < "C"
      { tool: "C", weight: 250, exact: expect.closeTo(0.25, 12) },
      { tool: "A", weight: 175, exact: expect.closeTo(0.175, 12) },
    ]);
  });
});
