import type { DataFlowLookup } from "./data-flow-links";
import { learnedSuccessors, START, type ToolGraph } from "./graph";
import { laterStepPrior } from "./later-step-prior";
import { startingTools, type RouteFallback, type StartingToolSource } from "./route-fallback";
import type { ToolIndex } from "./retrieval";
import type { FusedCandidate, Why } from "./signal-fusion";

/**
 * An answer of k tools even when fewer match the task as written: a caller asked for k choices,
 * and a short answer hides tools the task may well need. The fused ranking comes first, then
 * stand-in rankings in the order given (partial word matches, what the tenant has learned,
 * tools that start chains), each tool once. Nothing is ever filled by name order.
 */

/** One stand-in ranking, computed only when the answer is still short when its turn comes. */
export interface StandIn {
  readonly method: RouteFallback["method"];
  readonly reason: string;
  readonly rank: (wanted: number) => readonly FusedCandidate[];
}

export interface FilledAnswer {
  readonly ranked: FusedCandidate[];
  /** Set when the fused ranking was empty: the stand-in that gave the answer's first tool. */
  readonly fallback?: RouteFallback;
}

/**
 * Stand-ins rank below every fused candidate: their scores are scaled under the fused ranking's
 * last, so the weights an answer shows (per mille of the best) keep the fused order's meaning.
 */
const STAND_IN_SHARE = 0.5;

/** `ranked`, filled to `k` tools from `standIns` (tools already present, and `excluded` ones, are skipped). */
export function fillToK(ranked: readonly FusedCandidate[], k: number, standIns: readonly StandIn[], excluded: readonly string[] = []): FilledAnswer {
  const out = ranked.slice(0, k);
  const seen = new Set([...out.map((c) => c.tool), ...excluded]);
  let fallback: RouteFallback | undefined;
  let floor = out.length === 0 ? 1 : (out[out.length - 1]?.score ?? 1) * STAND_IN_SHARE;
  for (const standIn of standIns) {
    if (out.length >= k) break;
    const added = standIn.rank(k - out.length + seen.size).filter((c) => !seen.has(c.tool));
    if (added.length === 0) continue;
    if (ranked.length === 0 && fallback === undefined) fallback = { method: standIn.method, reason: standIn.reason };
    const top = Math.max(...added.map((c) => c.score), Number.MIN_VALUE);
    for (const candidate of added) {
      if (out.length >= k) break;
      seen.add(candidate.tool);
      // Positive and strictly below what came before, in the stand-in's own order.
      const score = floor * (0.5 + (0.5 * Math.max(0, candidate.score)) / top);
      out.push({ ...candidate, score });
    }
    floor = (out[out.length - 1]?.score ?? floor) * STAND_IN_SHARE;
  }
  return fallback === undefined ? { ranked: out } : { ranked: out, fallback };
}

/** What the stand-ins read: the tenant's routing state, the task and the step. */
export interface StandInSources {
  readonly index: Pick<ToolIndex, "looseSearch">;
  readonly graph: ToolGraph;
  /** Every tool's starting form, read as a stored list (no definition is parsed). */
  readonly starting: StartingToolSource;
  readonly flow: DataFlowLookup;
  /** The other operations of a tool's API (small APIs only). */
  readonly siblingsOf: (tool: string) => readonly string[];
  readonly task: string;
  /** The previous tool; null at the first step. */
  readonly previous: string | null;
  /** The fused ranking's best tool, whose API's other operations are the first stand-ins after partial words. */
  readonly best: string | undefined;
}

const PARTIAL_REASON = "No tool matched the task's words as written; tools matching word beginnings or near spellings are shown.";

/**
 * Stand-ins for tools the task's words did not find, best first: partial words (prefixes, near
 * spellings), the other operations of the best candidate's API, what this tenant's runs start
 * with (after a tool: what tasks most often go on to), then tools that start chains.
 */
export function routeStandIns(sources: StandInSources): StandIn[] {
  const { index, graph, starting, flow, siblingsOf, task, previous, best } = sources;
  const inOrder = (tools: readonly string[], why: (tool: string) => Why): FusedCandidate[] =>
    tools.map((tool, i) => ({ tool, score: tools.length - i, why: why(tool) }));
  return [
    {
      method: "partial-match",
      reason: PARTIAL_REASON,
      rank: (wanted) => index.looseSearch(task, wanted).map((hit, i) => ({ tool: hit.name, score: hit.score, why: { relevance: { rank: i + 1 } } })),
    },
    { method: "partial-match", reason: PARTIAL_REASON, rank: () => (best === undefined ? [] : inOrder(siblingsOf(best), () => ({ sibling: { of: best } }))) },
    {
      method: "learned-start",
      reason: "No tool matched the task's words; the tools this tenant's runs most often start with are shown.",
      rank: () =>
        previous === null
          ? learnedSuccessors(graph, START).map((step) => ({
              tool: step.tool,
              score: step.exact,
              why: { transition: { from: START, weight: Math.round(step.exact * 1000), observed: step.observed } },
            }))
          : laterStepPrior(graph)
              .filter((p) => p.tool !== previous)
              .map((p) => ({ tool: p.tool, score: p.observed, why: { prior: { observed: p.observed } } })),
    },
    {
      method: "starting-tools",
      reason: "No tool matched the task's words and no run history exists; tools that need no other tool's output, and feed the most others, are shown.",
      rank: (wanted) => inOrder(startingTools(starting, flow, wanted, task), () => ({})),
    },
  ];
}
