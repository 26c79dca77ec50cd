import { isOpaqueInput, type DataFlowLink, type DataFlowSource } from "./data-flow";
import type { PriorTool } from "./later-step-prior";
import { withNameLookups } from "./name-lookup";
import type { Ranked } from "./retrieval/ranked";
import type { Vote } from "./task-memory";

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
  /** Later steps: observed this many times after some tool (the backoff when nothing else knows the step). */
  prior?: { observed: number };
}

export interface FusedCandidate {
  readonly tool: string;
  readonly score: number;
  readonly why: Why;
}

export type Signal = "relevance" | "transition" | "dataFlow" | "history" | "sibling" | "prior";
export const SIGNALS: readonly Signal[] = ["relevance", "transition", "dataFlow", "history", "sibling", "prior"];

/** Weights of each signal and the RRF constant; the defaults are measured in bench/routing-generalisation.ts. */
export interface FusionWeights {
  readonly k: number;
  readonly relevance: number;
  readonly transition: number;
  readonly dataFlow: number;
  readonly history: number;
  readonly sibling: number;
  readonly prior: number;
}

export const DEFAULT_FUSION: FusionWeights = { k: 10, relevance: 1, transition: 0.3, dataFlow: 0.7, history: 1, sibling: 0.5, prior: 0 };

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

interface Contribution {
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
function byRelevance(tools: readonly string[], relevance: readonly Ranked[]): string[] {
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
function fuse(
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

export interface FirstStepInput {
  /** The task text: when it names an entity, the best tools' by-name producers follow them (name-lookup.ts; needs `producersOf`). */
  readonly task?: string;
  /** Ablation: only the first N tools have their name lookups placed after them (default: every ranked tool; 0: none). */
  readonly nameLookupLeaders?: number;
  readonly relevance: readonly Ranked[];
  readonly history: readonly Vote[];
  /** Data-flow producers of a tool's required inputs; with it, the best relevant tools' producers join. */
  readonly producersOf?: (tool: string) => readonly DataFlowSource[];
  /** `producersOf` narrowed to those that find an identifier by name (what name lookups read; cheaper in a big catalog). */
  readonly nameLookupsOf?: ((tool: string) => readonly DataFlowSource[]) | undefined;
  /** The first `count` of `producersOf` that fill an opaque input (what the producers signal reads; cheaper in a big catalog). */
  readonly feedersOf?: FeedersOf | undefined;
  /** The other operations of a tool's API (same server), or none when its API is too large to say much. */
  readonly siblingsOf?: (tool: string) => readonly string[];
  readonly signals?: ReadonlySet<Signal>;
  readonly weights?: FusionWeights;
  /**
   * With no history, the task's best match stays first (default true): structure (data flow,
   * same API) may widen the choice, but only evidence from use may overrule the task's own words.
   */
  readonly bestMatchLeads?: boolean;
  /**
   * Whether similar earlier tasks may overrule the best match (default true). False: the best
   * match stays first and history only widens the rest — the better choice for a tenant whose
   * own tasks show the words pick the first tool more often than history does
   * (bench/routing-generalisation.ts measures that choice made per tenant).
   */
  readonly historyLeads?: boolean;
  /** Same-API operations only join the ranking, not raise those relevance ranks (default true; false: the ablation). */
  readonly siblingsWidenOnly?: boolean;
}

/** Only the most relevant tool lends its API's other operations (with itself first among them). */
export const SIBLING_SEEDS = 1;

/**
 * Operations of the same API as the most relevant tools, in relevance order: a task about one
 * API usually needs several of its operations, and tasks name the API more often than the
 * operation.
 */
function siblingsFor(
  relevance: readonly Ranked[],
  siblingsOf: (tool: string) => readonly string[],
  widenOnly = true,
): { tools: string[]; why: Map<string, Why> } {
  const why = new Map<string, Why>();
  const ranked = new Set(relevance.map((r) => r.name));
  for (const seed of relevance.slice(0, SIBLING_SEEDS)) {
    const family = siblingsOf(seed.name);
    if (family.length === 0) continue;
    // The seed leads its own family, so the family rises above other tools without overtaking it.
    if (!why.has(seed.name)) why.set(seed.name, {});
    // Widening only: operations the task's words already rank keep their place among the other
    // APIs' tools (raising them pushed other APIs' better matches out of ToolAlpaca's top 5).
    for (const sibling of family) if (!why.has(sibling) && !(widenOnly && ranked.has(sibling))) why.set(sibling, { sibling: { of: seed.name } });
  }
  return { tools: byRelevance([...why.keys()], relevance), why };
}

/** How many of the most relevant tools have their inputs' producers offered. */
export const PRODUCER_SEEDS = 3;
/** Producers offered per tool: the best two (a tool's id has a few good sources and many poor ones). */
export const PRODUCERS_PER_TOOL = 2;

/** The first `count` data-flow producers of a tool that fill an opaque input (isOpaqueInput), in producer order. */
export type FeedersOf = (tool: string, count: number) => readonly DataFlowSource[];

/**
 * The tools that can supply the required inputs of `seeds` (best seed first): a task that needs
 * `getPersonMovieCredits` must first find the person, so `searchPerson` belongs near the front.
 */
function producersFor(
  seeds: readonly string[],
  producersOf: (tool: string) => readonly DataFlowSource[],
  feedersOf?: FeedersOf,
): { tools: string[]; why: Map<string, Why> } {
  const why = new Map<string, Why>();
  // A task can say a text or a number itself; an identifier or a token only another tool gives.
  const feeders =
    feedersOf ??
    ((tool: string, count: number) =>
      producersOf(tool)
        .filter((s) => isOpaqueInput(s.parameter))
        .slice(0, count));
  for (const seed of seeds) {
    for (const source of feeders(seed, PRODUCERS_PER_TOOL)) {
      if (!why.has(source.from)) why.set(source.from, { feeds: { to: seed, field: source.field, parameter: source.parameter } });
    }
  }
  return { tools: [...why.keys()], why };
}

/** The first step: retrieval for the task, the producers of the most relevant tools' inputs, and the votes of similar earlier tasks. */
export function fuseFirstStep(input: FirstStepInput): FusedCandidate[] {
  const votes = new Map(input.history.map((v) => [v.name, v.tasks]));
  const producers =
    input.producersOf === undefined
      ? { tools: [], why: new Map<string, Why>() }
      : producersFor(
          input.relevance.slice(0, PRODUCER_SEEDS).map((r) => r.name),
          input.producersOf,
          input.feedersOf,
        );
  const siblings =
    input.siblingsOf === undefined ? { tools: [], why: new Map<string, Why>() } : siblingsFor(input.relevance, input.siblingsOf, input.siblingsWidenOnly);
  const signals = input.signals ?? new Set(SIGNALS);
  const fused = fuse(
    [
      { signal: "relevance", tools: input.relevance.map((r) => r.name), explain: (_tool, rank) => ({ relevance: { rank } }) },
      { signal: "history", tools: input.history.map((v) => v.name), explain: (tool) => ({ history: { tasks: votes.get(tool) ?? 0 } }) },
      { signal: "dataFlow", tools: producers.tools, explain: (tool) => producers.why.get(tool) ?? {} },
      { signal: "sibling", tools: siblings.tools, explain: (tool) => siblings.why.get(tool) ?? {} },
    ],
    input.weights ?? DEFAULT_FUSION,
    signals,
  );
  const historyOverrules = input.history.length > 0 && signals.has("history") && (input.historyLeads ?? true);
  const led = (input.bestMatchLeads ?? true) && !historyOverrules ? bestMatchFirst(fused, input.relevance[0]?.name) : fused;
  return input.task === undefined || input.producersOf === undefined || !signals.has("dataFlow")
    ? led
    : withNameLookups(led, input.task, input.nameLookupsOf ?? input.producersOf, input.nameLookupLeaders);
}

/** `fused` with `best` moved to the front (its score raised to the leader's, so weights stay ordered). */
function bestMatchFirst(fused: FusedCandidate[], best: string | undefined): FusedCandidate[] {
  const at = best === undefined ? -1 : fused.findIndex((c) => c.tool === best);
  const candidate = fused[at];
  const leader = fused[0];
  if (at <= 0 || candidate === undefined || leader === undefined) return fused;
  return [{ ...candidate, score: leader.score }, ...fused.slice(0, at), ...fused.slice(at + 1)];
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
  readonly signals?: ReadonlySet<Signal>;
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
export function fuseNextStep(input: NextStepInput): FusedCandidate[] {
  const minEvidence = input.minEvidence ?? MIN_TRANSITION_EVIDENCE;
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
          return observed / (observed + (input.evidencePrior ?? EVIDENCE_PRIOR)) || 0;
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
    input.weights ?? DEFAULT_NEXT_STEP_FUSION,
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

export interface RunCandidateInput {
  /** The task text: when it names an entity, the best tools' by-name producers follow them (name-lookup.ts). */
  readonly task?: string;
  /** Ablation: only the first N tools have their name lookups placed after them (default: every ranked tool; 0: none). */
  readonly nameLookupLeaders?: number;
  /** Retrieval for the task, deep enough to fill the set on its own. */
  readonly relevance: readonly Ranked[];
  /** Votes of similar earlier tasks for every tool they used. */
  readonly history: readonly Vote[];
  /** How many of the best first-round tools are expanded with their successors. */
  readonly seeds: number;
  readonly learnedAfter: (tool: string) => readonly LearnedStep[];
  readonly dataFlowAfter: (tool: string) => readonly DataFlowLink[];
  readonly producersOf: (tool: string) => readonly DataFlowSource[];
  /** `producersOf` narrowed to name lookups (see FirstStepInput). */
  readonly nameLookupsOf?: ((tool: string) => readonly DataFlowSource[]) | undefined;
  /** `producersOf` narrowed to opaque inputs (see FirstStepInput). */
  readonly feedersOf?: FeedersOf | undefined;
  readonly siblingsOf?: (tool: string) => readonly string[];
  readonly maxTools: number;
  readonly tokenBudget: number;
  readonly costOf: (tool: string) => number;
  readonly signals?: ReadonlySet<Signal>;
  readonly weights?: FusionWeights;
}

export interface RunCandidate extends FusedCandidate {
  readonly cost: number;
}

export interface RunCandidateSet {
  readonly candidates: readonly RunCandidate[];
  readonly tokens: number;
  /** Tools ranked high enough but left out because they did not fit the token budget. */
  readonly overBudget: readonly string[];
}

/**
 * The tools for one run (ATC writes one program for the whole task): retrieval and similar
 * earlier tasks pick seeds; each seed's learned and data-flow successors join; one fused ranking
 * orders them all, and tools are taken best first while they fit `maxTools` and `tokenBudget`.
 */
export function fuseRunCandidates(input: RunCandidateInput): RunCandidateSet {
  const signals = input.signals ?? new Set(SIGNALS);
  const weights = input.weights ?? DEFAULT_FUSION;
  const first = fuseFirstStep({
    relevance: input.relevance,
    history: input.history,
    signals,
    weights,
    producersOf: input.producersOf,
    nameLookupsOf: input.nameLookupsOf,
    feedersOf: input.feedersOf,
    ...(input.task === undefined ? {} : { task: input.task }),
    ...(input.nameLookupLeaders === undefined ? {} : { nameLookupLeaders: input.nameLookupLeaders }),
    ...(input.siblingsOf === undefined ? {} : { siblingsOf: input.siblingsOf }),
  });
  const siblings = input.siblingsOf === undefined ? { tools: [], why: new Map<string, Why>() } : siblingsFor(input.relevance, input.siblingsOf);
  const seeds = first.slice(0, Math.max(0, input.seeds)).map((c) => c.tool);
  // Successors of better seeds come first; within a seed, heavier or more confident first.
  const learned: { tool: string; from: string; step: LearnedStep }[] = [];
  const flows: { tool: string; link: DataFlowLink; from: string }[] = [];
  for (const seed of seeds) {
    if (signals.has("transition")) for (const step of input.learnedAfter(seed)) learned.push({ tool: step.tool, from: seed, step });
    if (signals.has("dataFlow")) for (const link of input.dataFlowAfter(seed)) flows.push({ tool: link.to, link, from: seed });
  }
  const firstLearned = new Map<string, (typeof learned)[number]>();
  for (const entry of learned) if (!firstLearned.has(entry.tool)) firstLearned.set(entry.tool, entry);
  const firstFlow = new Map<string, (typeof flows)[number]>();
  for (const entry of flows) if (!firstFlow.has(entry.tool)) firstFlow.set(entry.tool, entry);
  // Producers of the seeds' required inputs first (a chain needs its start), then relevant successors.
  const producers = signals.has("dataFlow") ? producersFor(seeds, input.producersOf, input.feedersOf) : { tools: [], why: new Map<string, Why>() };
  // Forward data flow is left to later steps: from six seeds it offers dozens of id consumers,
  // which crowded out the tools a task needs (measured in bench/routing-generalisation.ts).
  const dataFlow = producers.tools;
  const votes = new Map(input.history.map((v) => [v.name, v.tasks]));
  const fused = fuse(
    [
      { signal: "relevance", tools: input.relevance.map((r) => r.name), explain: (_tool, rank) => ({ relevance: { rank } }) },
      { signal: "history", tools: input.history.map((v) => v.name), explain: (tool) => ({ history: { tasks: votes.get(tool) ?? 0 } }) },
      { signal: "sibling", tools: siblings.tools, explain: (tool) => siblings.why.get(tool) ?? {} },
      {
        signal: "transition",
        tools: [...firstLearned.keys()],
        explain: (tool) => {
          const entry = firstLearned.get(tool);
          return entry === undefined ? {} : { transition: { from: entry.from, weight: Math.round(entry.step.exact * 1000), observed: entry.step.observed } };
        },
      },
      {
        signal: "dataFlow",
        tools: dataFlow,
        explain: (tool) => {
          const entry = firstFlow.get(tool);
          const feeds = producers.why.get(tool) ?? {};
          return entry === undefined ? feeds : { ...feeds, dataFlow: { from: entry.from, field: entry.link.field, parameter: entry.link.parameter } };
        },
      },
    ],
    weights,
    signals,
  );
  const ranked =
    input.task === undefined || !signals.has("dataFlow")
      ? fused
      : withNameLookups(fused, input.task, input.nameLookupsOf ?? input.producersOf, input.nameLookupLeaders);
  const candidates: RunCandidate[] = [];
  const overBudget: string[] = [];
  let tokens = 0;
  for (const candidate of ranked) {
    if (candidates.length >= input.maxTools) break;
    const cost = input.costOf(candidate.tool);
    if (tokens + cost > input.tokenBudget) {
      overBudget.push(candidate.tool);
      continue;
    }
    tokens += cost;
    candidates.push({ ...candidate, cost });
  }
  return { candidates, tokens, overBudget };
}
