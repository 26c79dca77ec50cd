import { describe, expect, it } from "vitest";
import { addTools, addTrajectories, createGraph, learnedSuccessors, type ToolGraph } from "../../functions/toolnet/graph";
import { laterStepPrior, laterStepPriorRanks } from "../../functions/toolnet/later-step-prior";
import { fuseNextStep, type NextStepInput } from "../../functions/toolnet/signal-fusion";

/** A seeded walk graph over `size` tools: most tools are observed after some other, so the prior holds nearly all of them. */
function walkGraph(size: number): { graph: ToolGraph; names: string[] } {
  const names = Array.from({ length: size }, (_, i) => `tool${i}`);
  const graph = createGraph();
  addTools(graph, names);
  // mulberry32: a small seeded generator, so the graph is the same on every run.
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
  const trajectories = Array.from({ length: size * 3 }, (_, i) => ({
    id: `t${i}`,
    // Skewed choice: low-numbered tools are observed far more often, so prior positions differ.
    tools: Array.from({ length: 4 }, () => names[Math.min(next(size), next(size))] ?? ""),
  }));
  addTrajectories(graph, trajectories);
  return { graph, names };
}

describe("a later step fuses only the prior tools that can make the answer", () => {
  it("gives exactly the whole ranking's best k (scores and reasons) while fusing far fewer tools", () => {
    const { graph, names } = walkGraph(400);
    const prior = laterStepPrior(graph);
    expect(prior.length).toBeGreaterThan(300);
    for (const [i, previous] of ["tool0", "tool1", "tool3", "tool57", "tool399"].entries()) {
      // Relevance and data flow name tools from everywhere in the prior, and the previous tool itself.
      const relevance = [previous, names[390 - i] ?? "", names[5 + i] ?? "", names[200] ?? ""].map((name, rank) => ({ name, score: 10 - rank }));
      const input: NextStepInput = {
        previous,
        learned: learnedSuccessors(graph, previous),
        relevance,
        dataFlow: [{ to: names[350] ?? "", parameter: "id", field: "id", score: 0.9 }],
        history: [{ name: names[300] ?? "", score: 0.8, tasks: 2 }],
        prior,
      };
      const whole = fuseNextStep(input);
      for (const take of [1, 5, 8]) {
        const part = fuseNextStep({ ...input, priorRanks: laterStepPriorRanks(graph), take });
        expect(part.slice(0, take)).toEqual(whole.slice(0, take));
        // Same reasons in the same order (answers show them as JSON).
        expect(JSON.stringify(part.slice(0, take))).toBe(JSON.stringify(whole.slice(0, take)));
        expect(part.length).toBeLessThan(take + 60);
      }
      expect(whole.length).toBeGreaterThan(300);
    }
  });

  it("ranks each tool at its position in the prior, whether or not the previous tool comes before it", () => {
    const { graph } = walkGraph(60);
    const prior = laterStepPrior(graph);
    const ranks = laterStepPriorRanks(graph);
    expect([...ranks].slice(0, 3)).toEqual(prior.slice(0, 3).map((p, i) => [p.tool, i]));
    const previous = prior[2]?.tool ?? "";
    // A tool far down the prior that relevance names: its prior share must be the one the whole prior gives.
    const far = prior[40]?.tool ?? "";
    const input: NextStepInput = { previous, learned: [], relevance: [{ name: far, score: 1 }], dataFlow: [], prior };
    const whole = fuseNextStep(input).find((c) => c.tool === far);
    const part = fuseNextStep({ ...input, priorRanks: ranks, take: 3 }).find((c) => c.tool === far);
    expect(part).toEqual(whole);
    expect(part?.why.prior).toEqual({ observed: prior[40]?.observed });
  });
});
