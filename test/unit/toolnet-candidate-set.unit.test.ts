import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import { addTools, addTrajectories, candidateSet, createGraph, type CandidateSetOptions, type ToolGraph } from "../../functions/toolnet/graph/index";

/**
 * β = 1, so path weights are products of eq. 5 frequencies:
 *   t1 [S1, A, B]   t2 [S1, A]   t3 [S1, D]   t4 [A, B, C]
 *   S1: A 2/3, D 1/3 │ A: B 2/3, end 1/3 │ B: end 1/2, C 1/2 │ C, D: end
 * From seed S1: S1 1 (0 hops), A 2/3 (1), B 2/3·2/3 = 4/9 (2), D 1/3 (1), C 4/9·1/2 = 2/9 (3).
 */
function chainGraph(): ToolGraph {
  const graph = createGraph({ beta: 1 });
  addTools(graph, ["S1", "A", "B", "C", "D"]);
  addTrajectories(graph, [
    { id: "t1", tools: ["S1", "A", "B"] },
    { id: "t2", tools: ["S1", "A"] },
    { id: "t3", tools: ["S1", "D"] },
    { id: "t4", tools: ["A", "B", "C"] },
  ]);
  return graph;
}

const COSTS: Record<string, number> = { S1: 100, A: 100, B: 300, C: 10, D: 50 };
const options = (overrides: Partial<CandidateSetOptions> = {}): CandidateSetOptions => ({
  hops: 3,
  maxTools: 10,
  tokenBudget: 10_000,
  costOf: (tool) => COSTS[tool] ?? 0,
  ...overrides,
});

describe("candidateSet: seeds plus their strongest successors, best-first by path weight", () => {
  it("orders by path weight and records each tool's best path", () => {
    const result = candidateSet(chainGraph(), ["S1"], options());
    expect(result.candidates.map((c) => [c.tool, c.hops, c.via])).toEqual([
      ["S1", 0, null],
      ["A", 1, "S1"],
      ["B", 2, "A"],
      ["D", 1, "S1"],
      ["C", 3, "B"],
    ]);
    const weights = result.candidates.map((c) => c.pathWeight);
    expect(weights[0]).toBe(1);
    expect(weights[1]).toBeCloseTo(2 / 3, 12);
    expect(weights[2]).toBeCloseTo(4 / 9, 12);
    expect(weights[3]).toBeCloseTo(1 / 3, 12);
    expect(weights[4]).toBeCloseTo(2 / 9, 12);
    expect(result.tokens).toBe(560);
    expect(result.overBudget).toEqual([]);
  });

  it("respects hops", () => {
    const graph = chainGraph();
    expect(candidateSet(graph, ["S1"], options({ hops: 0 })).candidates.map((c) => c.tool)).toEqual(["S1"]);
    expect(candidateSet(graph, ["S1"], options({ hops: 1 })).candidates.map((c) => c.tool)).toEqual(["S1", "A", "D"]);
    expect(candidateSet(graph, ["S1"], options({ hops: 2 })).candidates.map((c) => c.tool)).toEqual(["S1", "A", "B", "D"]);
  });

  it("stays within the token budget: a tool that does not fit is passed over, and not expanded", () => {
    // S1 100 → 100, A 100 → 200, B 300 would make 500 > 260: left out (so C, behind it, is never
    // reached), D 50 → 250.
    const result = candidateSet(chainGraph(), ["S1"], options({ tokenBudget: 260 }));
    expect(result.candidates.map((c) => c.tool)).toEqual(["S1", "A", "D"]);
    expect(result.tokens).toBe(250);
    expect(result.tokens).toBeLessThanOrEqual(260);
    expect(result.overBudget).toEqual(["B"]);
    expect(candidateSet(chainGraph(), ["S1"], options({ tokenBudget: 0 })).candidates).toEqual([]);
  });

  it("stops at maxTools, keeps seeds in retrieval order, and ignores repeated seeds", () => {
    const graph = chainGraph();
    expect(candidateSet(graph, ["S1"], options({ maxTools: 2 })).candidates.map((c) => c.tool)).toEqual(["S1", "A"]);
    const twoSeeds = candidateSet(graph, ["D", "S1", "D"], options({ hops: 1 }));
    expect(twoSeeds.candidates.map((c) => [c.tool, c.via])).toEqual([
      ["D", null],
      ["S1", null],
      ["A", "S1"],
    ]);
  });

  it("refuses unknown seeds and bad options", () => {
    const graph = chainGraph();
    expect(() => candidateSet(graph, ["S1", "Nope"], options())).toThrow(/Nope/);
    for (const bad of [{ hops: -1 }, { hops: 9 }, { hops: 1.5 }, { maxTools: 0 }, { tokenBudget: Number.NaN }]) {
      expect(() => candidateSet(graph, ["S1"], options(bad))).toThrow(Failure);
    }
    expect(() => candidateSet(graph, ["S1"], options({ costOf: () => -1 }))).toThrow(/costOf\(S1\)/);
    expect(() => candidateSet(graph, ["S1"], options({ costOf: () => Number.NaN }))).toThrow(Failure);
  });
});
