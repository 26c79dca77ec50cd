import { requireSource, type GraphNode, type ToolGraph } from "./tool-graph";

/**
 * Transition weights, eq. 5–8 of the paper, computed from one source node's out-neighbours.
 *
 * Eq. 7 as printed reads Δw_ij = f(s_i) / Σ_{v_j ∈ oneigh(v_i)} f(s_j). We read the numerator
 * as f(s_j), the accumulated score of the TARGET node: with f(s_i), every edge leaving v_i would
 * get the same Δw whatever its target, one source's Δw would not sum to 1, and Δw could exceed
 * 1, against the paper's own "Δw ∈ (0, 1] denotes the normalized gradient". The evaluator
 * scores nodes ("evaluating the tools equates to assessing the nodes visited"), so a broken
 * tool's falling score lowers every edge into it, each normalised over its source's
 * out-neighbours.
 */

/** f of eq. 8: maps an accumulated score to (0, ∞); f(0) = 1 on both branches. */
export function scoreMass(score: number, alpha: number): number {
  return score >= 0 ? alpha * score + 1 : Math.exp(alpha * score);
}

/**
 * w⁽⁰⁾ of eq. 6: eq. 5's count / total over the source's observed transitions. A structural
 * edge never observed gets 0 here, so it stays reachable only through eq. 6's (1 − β)·Δw term,
 * below an observed transition to an equally scored tool. A source with no observation at all
 * is the paper's non-informative graph: equal weights over its out-neighbours (for start, §3.2's
 * "connects all tools except the end with equal weights").
 */
export function staticWeight(count: number, outTotal: number, outDegree: number): number {
  if (outTotal > 0) return count / outTotal;
  return outDegree > 0 ? 1 / outDegree : 0;
}

/**
 * Calls `visit(target, w)` with w_ij of eq. 6 for every out-neighbour of `source`, in the
 * order of its edge map. Two passes over the out-edges, the first for eq. 7's denominator:
 * O(out-degree), touching no other node. The denominator is summed with Neumaier's compensation
 * so that it barely depends on edge order, which differs between a graph and its reloaded copy.
 */
export function visitTransitionWeights(graph: ToolGraph, source: GraphNode, visit: (target: GraphNode, weight: number) => void): void {
  const { alpha, beta } = graph.settings;
  const degree = source.out.size;
  const total = source.outTotal;
  let sum = 0;
  let compensation = 0;
  for (const edge of source.out.values()) {
    const mass = scoreMass(edge.target.score, alpha);
    const next = sum + mass;
    compensation += Math.abs(sum) >= mass ? sum - next + mass : mass - next + sum;
    sum = next;
  }
  const normaliser = sum + compensation;
  for (const edge of source.out.values()) {
    const prior = staticWeight(edge.count, total, degree); // eq. 5
    // eq. 7 (target's score). Every mass can underflow to 0 (e^{αx} below x ≈ −745/α, e.g. start
    // when its only tools keep failing); they are then equal, and so is Δw.
    const learned = normaliser > 0 ? scoreMass(edge.target.score, alpha) / normaliser : 1 / degree;
    visit(edge.target, beta * prior + (1 - beta) * learned); // eq. 6
  }
}

/** Every out-neighbour of `from` (a tool or START) with its weight w of eq. 6, unsorted. */
export function transitionWeights(graph: ToolGraph, from: string): { to: string; weight: number }[] {
  const source = requireSource(graph, from, "transitionWeights()");
  const weights: { to: string; weight: number }[] = [];
  visitTransitionWeights(graph, source, (target, weight) => weights.push({ to: target.id, weight }));
  return weights;
}

/** The weight w of one edge; 0 when `to` is not an out-neighbour of `from`. */
export function transitionWeight(graph: ToolGraph, from: string, to: string): number {
  const source = requireSource(graph, from, "transitionWeight()");
  let found = 0;
  visitTransitionWeights(graph, source, (target, weight) => {
    if (target.id === to) found = weight;
  });
  return found;
}
