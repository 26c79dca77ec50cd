import { isOpaqueInput, type DataFlowLink, type DataFlowSource } from "./data-flow";
import { withNameLookups } from "./name-lookup";
import type { Ranked } from "./retrieval/ranked";
import type { Vote } from "./task-memory";
import type { StartingTool } from "./first-step-prior";
import { byRelevance, DEFAULT_FUSION, fuse, SIGNALS, type Contribution, type FusedCandidate, type FusionWeights, type Signal, type Why } from "./fusion-core";
import type { LearnedStep } from "./next-step-fusion";

/** The first step's and a run's fusion; the shared core is fusion-core.ts, a later step's next-step-fusion.ts. */
export * from "./fusion-core";
export * from "./next-step-fusion";

export interface FirstStepInput {
  /** The task text: when it names an entity, the best tools' by-name producers follow them (name-lookup.ts; needs `producersOf`). */
  readonly task?: string;
  readonly relevance: readonly Ranked[];
  readonly history: readonly Vote[];
  /**
   * Votes of the same similar tasks for every tool they used (TaskMemory `tools: "all"`), at
   * USED_TOOL_VOTE_STRENGTH of a first vote: a task that needs several tools gets candidates for
   * its later needs too, without pushing out the tools similar tasks started with.
   */
  readonly usedVotes?: readonly Vote[];
  /** Data-flow producers of a tool's required inputs; with it, the best relevant tools' producers join. */
  readonly producersOf?: (tool: string) => readonly DataFlowSource[];
  /** `producersOf` narrowed to those that find an identifier by name (what name lookups read; cheaper in a big catalog). */
  readonly nameLookupsOf?: ((tool: string) => readonly DataFlowSource[]) | undefined;
  /** The first `count` of `producersOf` that fill an opaque input (what the producers signal reads; cheaper in a big catalog). */
  readonly feedersOf?: FeedersOf | undefined;
  /** The other operations of a tool's API (same server), or none when its API is too large to say much. */
  readonly siblingsOf?: (tool: string) => readonly string[];
  /**
   * Whether similar earlier tasks may overrule the best match (default true). False: the best
   * match stays first and history only widens the rest — the better choice for a tenant whose
   * own tasks show the words pick the first tool more often than history does
   * (bench/routing-generalisation.ts measures that choice made per tenant).
   */
  readonly historyLeads?: boolean;
  /**
   * How this tenant's conversations usually start (first-step-prior.ts), at `weight` (the
   * tenant's calibrated share; 0 or absent: left out). It only lifts tools: the best match still
   * leads unless history overrules it.
   */
  readonly starts?: { readonly tools: readonly StartingTool[]; readonly weight: number };
  /**
   * The tools this tenant's users chose where the words found nothing (first-step-prior.ts
   * unmatchedChoices), most chosen first, at `weight` (the tenant's calibrated share; 0 or
   * absent: left out). Like the usual starts it only lifts tools.
   */
  readonly unmatched?: { readonly tools: readonly string[]; readonly weight: number };
}

/**
 * Knobs only benches turn (bench/routing-generalisation.ts measures each choice against its
 * alternative). A request never sets them, so they stay out of FirstStepInput and
 * RunCandidateInput and reach fusion as a second argument that routing does not pass.
 */
export interface FusionAblation {
  /** Only the first N tools have their name lookups placed after them (default: every ranked tool; 0: none). */
  readonly nameLookupLeaders?: number;
  /** The signals that take part (default: all). */
  readonly signals?: ReadonlySet<Signal>;
  readonly weights?: FusionWeights;
  /**
   * With no history, the task's best match stays first (default true): structure (data flow,
   * same API) may widen the choice, but only evidence from use may overrule the task's own words.
   */
  readonly bestMatchLeads?: boolean;
  /** Same-API operations only join the ranking, not raise those relevance ranks (default true; false: the ablation). */
  readonly siblingsWidenOnly?: boolean;
}

/** The ablations a run's candidate set passes on (the others are the first step's alone). */
export type RunCandidateAblation = Pick<FusionAblation, "nameLookupLeaders" | "signals" | "weights">;

/**
 * How much a similar task's vote for a tool it used at any step weighs against its vote for its
 * first tool. Chosen on half a of bench/routing-generalisation.ts among 0.15–0.75: 0.25 kept the
 * best warm recall@5 on four sets and raised all gold in the top 10 on every set with multi-tool
 * tasks (TMDB 0.729 → 0.771); from 0.35 Seal-Tools' recall@5 fell, from 0.5 TMDB's on half b.
 */
export const USED_TOOL_VOTE_STRENGTH = 0.25;

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
export function fuseFirstStep(input: FirstStepInput, ablation: FusionAblation = {}): FusedCandidate[] {
  const votes = new Map(input.history.map((v) => [v.name, v.tasks]));
  const used = input.usedVotes ?? [];
  const usedBy = new Map(used.map((v) => [v.name, v.tasks]));
  const producers =
    input.producersOf === undefined
      ? { tools: [], why: new Map<string, Why>() }
      : producersFor(
          input.relevance.slice(0, PRODUCER_SEEDS).map((r) => r.name),
          input.producersOf,
          input.feedersOf,
        );
  const siblings =
    input.siblingsOf === undefined ? { tools: [], why: new Map<string, Why>() } : siblingsFor(input.relevance, input.siblingsOf, ablation.siblingsWidenOnly);
  const signals = ablation.signals ?? new Set(SIGNALS);
  const fused = fuse(
    [
      { signal: "relevance", tools: input.relevance.map((r) => r.name), explain: (_tool, rank) => ({ relevance: { rank } }) },
      { signal: "history", tools: input.history.map((v) => v.name), explain: (tool) => ({ history: { tasks: votes.get(tool) ?? 0 } }) },
      {
        signal: "history",
        tools: used.map((v) => v.name),
        strength: () => USED_TOOL_VOTE_STRENGTH,
        // How many similar tasks used it at all (at least as many as started with it).
        explain: (tool) => ({ history: { tasks: usedBy.get(tool) ?? 0 } }),
      },
      { signal: "dataFlow", tools: producers.tools, explain: (tool) => producers.why.get(tool) ?? {} },
      { signal: "sibling", tools: siblings.tools, explain: (tool) => siblings.why.get(tool) ?? {} },
      startsContribution(input.starts),
      unmatchedContribution(input.unmatched),
    ],
    ablation.weights ?? DEFAULT_FUSION,
    signals,
  );
  const historyOverrules = input.history.length > 0 && signals.has("history") && (input.historyLeads ?? true);
  const led = (ablation.bestMatchLeads ?? true) && !historyOverrules ? bestMatchFirst(fused, input.relevance[0]?.name) : fused;
  return input.task === undefined || input.producersOf === undefined || !signals.has("dataFlow")
    ? led
    : withNameLookups(led, input.task, input.nameLookupsOf ?? input.producersOf, ablation.nameLookupLeaders);
}

/** The usual starts as the first step's `prior` signal, at the tenant's weight (none: an empty contribution). */
function startsContribution(starts: FirstStepInput["starts"]): Contribution {
  const tools = starts === undefined || starts.weight <= 0 ? [] : starts.tools;
  const observed = new Map(tools.map((s) => [s.tool, s.observed]));
  return {
    signal: "prior",
    tools: tools.map((s) => s.tool),
    strength: () => starts?.weight ?? 0,
    explain: (tool) => ({ prior: { observed: observed.get(tool) ?? 0 } }),
  };
}

/** The tools chosen where the words found nothing as a second `prior` list, at the tenant's weight (none: an empty contribution). */
function unmatchedContribution(unmatched: FirstStepInput["unmatched"]): Contribution {
  const weight = unmatched?.weight ?? 0;
  return {
    signal: "prior",
    tools: weight > 0 ? (unmatched?.tools ?? []) : [],
    strength: () => weight,
    explain: (_tool, rank) => ({ unmatched: { rank } }),
  };
}

/** `fused` with `best` moved to the front (its score raised to the leader's, so weights stay ordered). */
function bestMatchFirst(fused: FusedCandidate[], best: string | undefined): FusedCandidate[] {
  const at = best === undefined ? -1 : fused.findIndex((c) => c.tool === best);
  const candidate = fused[at];
  const leader = fused[0];
  if (at <= 0 || candidate === undefined || leader === undefined) return fused;
  return [{ ...candidate, score: leader.score }, ...fused.slice(0, at), ...fused.slice(at + 1)];
}

export interface RunCandidateInput {
  /** The task text: when it names an entity, the best tools' by-name producers follow them (name-lookup.ts). */
  readonly task?: string;
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
export function fuseRunCandidates(input: RunCandidateInput, ablation: RunCandidateAblation = {}): RunCandidateSet {
  const signals = ablation.signals ?? new Set(SIGNALS);
  const weights = ablation.weights ?? DEFAULT_FUSION;
  const first = fuseFirstStep(
    {
      relevance: input.relevance,
      history: input.history,
      producersOf: input.producersOf,
      nameLookupsOf: input.nameLookupsOf,
      feedersOf: input.feedersOf,
      ...(input.task === undefined ? {} : { task: input.task }),
      ...(input.siblingsOf === undefined ? {} : { siblingsOf: input.siblingsOf }),
    },
    { signals, weights, ...(ablation.nameLookupLeaders === undefined ? {} : { nameLookupLeaders: ablation.nameLookupLeaders }) },
  );
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
      : withNameLookups(fused, input.task, input.nameLookupsOf ?? input.producersOf, ablation.nameLookupLeaders);
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
