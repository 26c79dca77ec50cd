import type { DataFlowLink } from "./data-flow";
import { byRelevance, fuse, SIGNALS, type FusedCandidate, type FusionWeights, type Signal } from "./fusion-core";
import type { PriorTool } from "./later-step-prior";
import type { Ranked } from "./retrieval/ranked";
import type { Vote } from "./task-memory";

/** A later step's fusion (signal-fusion.ts holds the first step's and a run's): learned transitions, relevance, data flow, similar tasks and the prior. */

/**
 * Later steps weigh signals differently from the first step and run sets: what was observed to
 * follow the previous tool is direct evidence for the next one, while the task text often names
 * only what the task starts with. A small RRF constant lets each signal's first choices lead.
 * Tuned on half a of bench/routing-generalisation.ts, reported on half b too.
 */
export const DEFAULT_NEXT_STEP_FUSION: FusionWeights = { k: 3, relevance: 1, transition: 1, dataFlow: 0.5, history: 0.35, sibling: 0, prior: 0.3 };

/** A learned successor: its eq. 6 weight (exact, in [0, 1]) and observed 2-gram count. */
export interface LearnedStep {
  readonly tool: string;
  readonly exact: number;
  readonly observed: number;
}

export interface NextStepInput {
  readonly previous: string;
  /** Observed successors of `previous`, heaviest first. */
  readonly learned: readonly LearnedStep[];
  /** Retrieval for the task text, as at the first step. */
  readonly relevance: readonly Ranked[];
  /** Data-flow successors of `previous`, best first. */
  readonly dataFlow: readonly DataFlowLink[];
  /** Votes of similar earlier tasks of the tenant for the tool they used after `previous`. */
  readonly history?: readonly Vote[];
  /** Tools by how often they were observed after any tool (see later-step-prior.ts). */
  readonly prior?: readonly PriorTool[];
  /** Each tool's position in `prior` (laterStepPriorRanks); with `take`, the prior is read for the tools that can make the top `take` only. */
  readonly priorRanks?: ReadonlyMap<string, number>;
  /**
   * Only the best `take` candidates are wanted: the result's first `take` entries are then exactly
   * those of the whole ranking (same scores and reasons), but a prior of every tool of a large
   * tenant is not fused and sorted in full at every step.
   */
  readonly take?: number;
  /** The signals that take part (default: all; routing leaves transitions out for a tenant whose own steps show them misleading). */
  readonly signals?: ReadonlySet<Signal>;
}

/**
 * Knobs only benches turn (bench/routing-generalisation.ts measures each choice against its
 * alternative): a request never sets them, so they reach fuseNextStep as a second argument that
 * routing does not pass (as FusionAblation for the first step).
 */
export interface NextStepAblation {
  readonly weights?: FusionWeights;
  /** Learned transitions observed fewer times than this are left out (default MIN_TRANSITION_EVIDENCE). */
  readonly minEvidence?: number;
  /** A transition observed n times gets n / (n + evidencePrior) of its weight (default EVIDENCE_PRIOR; 0: all of it). */
  readonly evidencePrior?: number;
}

/**
 * A transition seen once is one task's habit, not the tenant's: on Seal-Tools, whose multi-tool
 * requests string unrelated tools together, such transitions lowered later-step hit@5 from 0.861
 * to 0.795 (fused without and with them). A step a similar earlier task took is still offered,
 * by task history (which weighs it by how similar that task is), and such a transition keeps its
 * own weight too: evidence from a related task (API-Bank's later-step hit@5 0.744 → 0.774 on half
 * a, 0.678 → 0.694 on half b; no other set moved). Chosen on half a of
 * bench/routing-generalisation.ts among 1, 2 and 3.
 */
export const MIN_TRANSITION_EVIDENCE = 2;

/**
 * The soft alternative to the threshold: a transition observed n times weighs n / (n + C). 0 (off):
 * measured with C = 1 and no threshold on half a, it kept more of API-Bank (0.759 against 0.744)
 * but left Seal-Tools 0.015 below fusing without transitions (the threshold: 0.003).
 */
export const EVIDENCE_PRIOR = 0;

/**
 * A later step: learned transitions (eq. 6), task relevance and data flow from the previous
 * tool's output. The previous tool itself is offered only when it was observed to repeat.
 */
export function fuseNextStep(input: NextStepInput, ablation: NextStepAblation = {}): FusedCandidate[] {
  const minEvidence = ablation.minEvidence ?? MIN_TRANSITION_EVIDENCE;
  const history = input.history ?? [];
  const votes = new Map(history.map((v) => [v.name, v.tasks]));
  const signals = input.signals ?? new Set(SIGNALS);
  // A transition with less evidence still counts when a similar earlier task took it (history votes for it).
  const related = (tool: string) => signals.has("history") && votes.has(tool);
  const evident = input.learned.filter((l) => l.observed >= minEvidence || related(l.tool));
  const learned = new Map(evident.map((l) => [l.tool, l]));
  const flows = new Map(input.dataFlow.map((d) => [d.to, d]));
  const dataFlow = byRelevance(
    input.dataFlow.map((d) => d.to),
    input.relevance,
  );
  const relevant = input.relevance.map((r) => r.name);
  const prior = priorSignal(input, [...history.map((v) => v.name), ...evident.map((l) => l.tool), ...dataFlow, ...relevant]);
  return fuse(
    [
      { signal: "prior", tools: prior.tools, positions: prior.positions, explain: (tool) => ({ prior: { observed: prior.observed(tool) } }) },
      { signal: "history", tools: history.map((v) => v.name), explain: (tool) => ({ history: { tasks: votes.get(tool) ?? 0 } }) },
      {
        signal: "transition",
        tools: evident.map((l) => l.tool),
        strength: (tool) => {
          const observed = learned.get(tool)?.observed ?? 0;
          return observed / (observed + (ablation.evidencePrior ?? EVIDENCE_PRIOR)) || 0;
        },
        explain: (tool) => {
          const step = learned.get(tool);
          return step === undefined ? {} : { transition: { from: input.previous, weight: Math.round(step.exact * 1000), observed: step.observed } };
        },
      },
      {
        signal: "dataFlow",
        tools: dataFlow,
        explain: (tool) => {
          const flow = flows.get(tool);
          return flow === undefined ? {} : { dataFlow: { from: input.previous, field: flow.field, parameter: flow.parameter } };
        },
      },
      {
        signal: "relevance",
        tools: relevant.filter((tool) => tool !== input.previous),
        explain: (_tool, rank) => ({ relevance: { rank } }),
      },
    ],
    ablation.weights ?? DEFAULT_NEXT_STEP_FUSION,
    signals,
    input.take,
  );
}

/**
 * The prior's tools (the previous tool left out) with their positions. With `take` and
 * `priorRanks`, only the first `take` of them and those another signal ranks: a tool known to the
 * prior alone at position p scores below the `take` tools before it, so it can never be among
 * the best `take`, while every tool that can gets exactly the contribution the whole prior gives.
 */
function priorSignal(input: NextStepInput, others: readonly string[]): { tools: string[]; positions?: number[]; observed: (tool: string) => number } {
  const all = input.prior ?? [];
  const ranks = input.priorRanks;
  if (input.take === undefined || ranks === undefined) {
    const prior = all.filter((p) => p.tool !== input.previous);
    const observed = new Map(prior.map((p) => [p.tool, p.observed]));
    return { tools: prior.map((p) => p.tool), observed: (tool) => observed.get(tool) ?? 0 };
  }
  const previousAt = ranks.get(input.previous) ?? Number.POSITIVE_INFINITY;
  // Positions in the prior without the previous tool, as the whole signal counts them.
  const position = (at: number): number => (at > previousAt ? at - 1 : at);
  const tools: string[] = [];
  const positions: number[] = [];
  for (let at = 0; at < all.length && tools.length < input.take; at += 1) {
    const tool = all[at]?.tool;
    if (tool === undefined || tool === input.previous) continue;
    tools.push(tool);
    positions.push(position(at));
  }
  const included = new Set(tools);
  for (const tool of others) {
    const at = ranks.get(tool);
    if (at === undefined || tool === input.previous || included.has(tool)) continue;
    included.add(tool);
    tools.push(tool);
    positions.push(position(at));
  }
  return { tools, positions, observed: (tool) => all[ranks.get(tool) ?? -1]?.observed ?? 0 };
}
