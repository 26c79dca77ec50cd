import type { Ranked } from "./retrieval/ranked";

/**
 * One ranking from several routing signals, each candidate with the reasons it is there.
 * Signals are rankings of different kinds (BM25 scores, eq. 6 weights, data-flow confidence,
 * votes of earlier tasks) with no common scale, so they are merged by weighted reciprocal rank
 * fusion: score = Σ_signal weight / (K + rank). A tool that several signals agree on rises; a
 * tool only one signal knows (a never-observed transition the task asks for) is still there.
 */

/** Why a tool is a candidate: one entry per signal that ranked it (ranks from 1). */
export interface Why {
  /** Rank in retrieval over tool documents for the task text. */
  relevance?: { rank: number };
  /** Learned transition from the previous tool (eq. 6 weight per mille, observed count). */
  transition?: { from: string; weight: number; observed: number };
  /** Data flow: the previous (or a seed) tool's output field fills this tool's required input. */
  dataFlow?: { from: string; field: string; parameter: string };
  /** Data flow backwards: this tool's output `field` fills `parameter`, a required input of `to` (a relevant tool). */
  feeds?: { to: string; field: string; parameter: string };
  /** Earlier tasks of this tenant like this one used it (how many of them). */
  history?: { tasks: number };
  /** An operation of the same API (server) as `of`, one of the tools most relevant to the task. */
  sibling?: { of: string };
  /**
   * Later steps: observed this many times after some tool (the backoff when nothing else knows
   * the step). First step: this many of the tenant's conversations started with it (a usual start).
   */
  prior?: { observed: number };
  /**
   * First step: among the tools this tenant's users chose where the request's words found
   * nothing, this rank (1: the most chosen so; first-step-prior.ts unmatchedChoices).
   */
  unmatched?: { rank: number };
}

export interface FusedCandidate {
  readonly tool: string;
  readonly score: number;
  readonly why: Why;
}

export type Signal = "relevance" | "transition" | "dataFlow" | "history" | "sibling" | "prior";
export const SIGNALS: readonly Signal[] = ["relevance", "transition", "dataFlow", "history", "sibling", "prior"];

/**
 * Weights of each signal and the RRF constant; the defaults are measured in
 * bench/routing-generalisation.ts. A first step's `prior` (the usual starts) is scaled again by
 * the tenant's calibrated weight (signal-calibration.ts `starts`), as are the tools chosen where the
 * words found nothing (`unmatched`).
 */
export interface FusionWeights {
  readonly k: number;
  readonly relevance: number;
  readonly transition: number;
  readonly dataFlow: number;
  readonly history: number;
  readonly sibling: number;
  readonly prior: number;
}

export const DEFAULT_FUSION: FusionWeights = { k: 10, relevance: 1, transition: 0.3, dataFlow: 0.7, history: 1, sibling: 0.5, prior: 1 };

export interface Contribution {
  readonly signal: Signal;
  readonly tools: readonly string[];
  readonly explain: (tool: string, rank: number) => Why;
  /** How much of the signal's weight a tool gets (default all of it): how much evidence there is for it. */
  readonly strength?: (tool: string) => number;
  /** Each tool's position (from 0) in the signal's whole ranking, when `tools` is only part of it (default: its index). */
  readonly positions?: readonly number[];
}

/**
 * Tools in order of their rank in `relevance`, tools it does not rank after them in their given
 * order. Data flow says which tools CAN follow; among them, the task says which it needs.
 */
export function byRelevance(tools: readonly string[], relevance: readonly Ranked[]): string[] {
  if (tools.length === 0) return [];
  const rank = new Map(relevance.map((r, i) => [r.name, i]));
  return tools
    .map((tool, i) => ({ tool, key: rank.get(tool) ?? relevance.length + i }))
    .sort((a, b) => a.key - b.key)
    .map((t) => t.tool);
}

/** A tool's fused score, and where each signal ranked it (contribution index, position), for its reasons. */
interface FusedEntry {
  readonly tool: string;
  score: number;
  /** The contribution that ranked it last: a tool a signal ranks twice counts once. */
  lastContribution: number;
  readonly ranks: number[];
}

/**
 * `contributions` fused, best first. Reasons are made for the first `explained` candidates only
 * (the rest get none): a later step shows k tools of a ranking of dozens, and building every
 * candidate's reasons cost more than fusing.
 */
export function fuse(
  contributions: readonly Contribution[],
  weights: FusionWeights,
  enabled: ReadonlySet<Signal>,
  explained = Number.POSITIVE_INFINITY,
): FusedCandidate[] {
  const entries = new Map<string, FusedEntry>();
  contributions.forEach(({ signal, tools, strength, positions }, contribution) => {
    const weight = weights[signal];
    // A signal of weight 0 is off: it must not add its tools to the ranking with no score.
    if (!enabled.has(signal) || weight <= 0) return;
    for (let index = 0; index < tools.length; index += 1) {
      const tool = tools[index] ?? "";
      let entry = entries.get(tool);
      if (entry === undefined) entries.set(tool, (entry = { tool, score: 0, lastContribution: -1, ranks: [] }));
      else if (entry.lastContribution === contribution) continue;
      entry.lastContribution = contribution;
      const position = positions?.[index] ?? index;
      entry.score += (weight * (strength === undefined ? 1 : strength(tool))) / (weights.k + position + 1);
      entry.ranks.push(contribution, position);
    }
  });
  const sorted = [...entries.values()].sort((a, b) => b.score - a.score || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  return sorted.map((entry, i) => ({ tool: entry.tool, score: entry.score, why: i < explained ? reasons(entry, contributions) : {} }));
}

/** A fused tool's reasons, merged in the order of the signals that ranked it. */
function reasons({ tool, ranks }: FusedEntry, contributions: readonly Contribution[]): Why {
  const why: Why = {};
  for (let i = 0; i < ranks.length; i += 2) {
    const position = ranks[i + 1] ?? 0;
    Object.assign(why, contributions[ranks[i] ?? 0]?.explain(tool, position + 1));
  }
  return why;
}
