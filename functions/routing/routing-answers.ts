import { END, learnedSuccessors, promptWeight, START, transitionWeight, type ToolGraph } from "../toolnet/graph";
import { DEFAULT_ANSWER_PARTS, DEFAULT_MAX_TOKENS, fitToBudgetAsEntries, type AnswerPart, type BudgetedAnswer } from "../toolnet/answer-budget";
import type { WeightKind } from "../toolnet/answer-prompt";
import type { OpenAiTool } from "../toolnet/openai-tools";
import { laterStepPrior, laterStepPriorRanks } from "../toolnet/later-step-prior";
import { graphStarts } from "../toolnet/first-step-prior";
import { fuseFirstStep, fuseNextStep, SIGNALS, type FeedersOf, type FusedCandidate, type NextStepInput, type Signal, type Why } from "../toolnet/signal-fusion";
import type { Ranked } from "../toolnet/retrieval";
import type { SignalWeights } from "../toolnet/signal-calibration";
import type { RouteFallback } from "../toolnet/route-fallback";
import type { DataFlowSource } from "../toolnet/data-flow";
import type { DataFlowLookup } from "../toolnet/data-flow-links";
import { fillToK, routeStandIns } from "../toolnet/fill-to-k";
import { withUnfitLower } from "../toolnet/task-fit";
import { LATER_STEP_MIN_SIMILARITY } from "../toolnet/task-memory";
import type { ToolDefinition } from "../tools/definition";
import type { TenantSettings } from "../storage/tenant-settings";
import type { ShownTool, StoredToolViews } from "../storage/tenant-tool-views";
import type { Loaded, TaskRelevance } from "./loaded-routing";

/**
 * How the routing store (tenant-routing.ts) builds a route answer: the fused ranking of a first
 * or later step, filled to k with stand-ins, then the tools as shown, fitted to the token budget.
 */

/** `fused`: every signal (default); `graph`: the paper's eq. 4, successors by learned weight only. */
export type RouteMode = "fused" | "graph";

/** `routeUnlessEmbedded`'s answer when the tenant's embeddings model should embed the task first. */
export interface TaskVectorWanted {
  taskVectorWanted: string;
}

/** `Tool`: the `tools` entries as objects (the default), or as their JSON text (`ShownEntry`) for an answer sent as text. */
export interface RouteAnswer<Tool = OpenAiTool> extends BudgetedAnswer<Tool> {
  previous: string | null;
  via: "retrieval" | "retrieval+embeddings" | "graph" | "fused";
  /** Set when nothing matched the task as written and another ranking stood in. */
  fallback?: RouteFallback;
}

/** A route answer's token budget (the request's, else the tenant's setting, else the service's), mode and parts. */
export interface RouteOptions {
  maxTokens?: number;
  mode?: RouteMode;
  /** What the answer returns (answer-budget.ts); default the tenant's setting, else the `tools` array only. */
  include?: readonly AnswerPart[];
}

/** A tool of a route answer before it is shown: its weight, and why it was ranked. */
export type RankedTool = { tool: string; weight: number; why?: Why };

/** What a fused ranking reads: the loaded state, the task's relevance (memoised by the store) and the other operations of each tool's API. */
export interface RankingState {
  state: Loaded;
  relevance: TaskRelevance;
  siblingsOf: (tool: string) => readonly string[];
  /**
   * The tenant's signal weights (routing-calibration.ts): whether similar earlier tasks may
   * overrule the best match (read only when some voted), and whether learned transitions take part
   * in later steps.
   */
  weights: () => SignalWeights;
  /** The tools this tenant's users chose where the words found nothing (tenant-words.ts), read only while their calibrated weight is above 0. */
  unmatched: () => readonly string[];
}

/** A later step's signals without learned transitions: for a tenant whose own steps show them misleading. */
export const WITHOUT_TRANSITIONS: ReadonlySet<Signal> = new Set(SIGNALS.filter((signal) => signal !== "transition"));

/**
 * What a later step fuses (signal-fusion.ts fuseNextStep), as routing builds it: `take` the
 * tools shown; `history` whether similar tasks vote, `excluding` a remembered task that does not
 * (routing-calibration.ts replays a task's own steps).
 */
export function nextStepInput(
  state: Loaded,
  task: string,
  relevance: readonly Ranked[],
  previous: string,
  take: number,
  options: { history: boolean; excluding?: string },
): NextStepInput {
  const { graph } = state;
  return {
    previous,
    learned: learnedSuccessors(graph, previous),
    relevance,
    dataFlow: state.flow.successors(previous),
    history: options.history
      ? state.memory.votes(task, {
          tools: { after: previous },
          minSimilarity: LATER_STEP_MIN_SIMILARITY,
          ...(options.excluding === undefined ? {} : { excluding: options.excluding }),
        })
      : [],
    prior: laterStepPrior(graph),
    priorRanks: laterStepPriorRanks(graph),
    take,
  };
}

/** What an answer reads of the tenant's other stores (see RoutingSources in tenant-routing.ts). */
export interface AnswerSources {
  descriptions: () => Map<string, string>;
  viewsEach: (wanted: readonly ShownTool[]) => Map<string, StoredToolViews>;
  settings: TenantSettings;
}

/** A data-flow lookup's name lookups, when it answers them apart from its producers. */
export function nameLookupsOf(flow: DataFlowLookup): ((tool: string) => readonly DataFlowSource[]) | undefined {
  return flow.nameLookups === undefined ? undefined : (tool) => flow.nameLookups?.(tool) ?? [];
}

/** A data-flow lookup's leading producers of opaque inputs, when it answers them apart from its producers. */
export function feedersOf(flow: DataFlowLookup): FeedersOf | undefined {
  return flow.feeders === undefined ? undefined : (tool, count) => flow.feeders?.(tool, count) ?? [];
}

/** A tool as routing and runs show it: a probed or optimised description replaces the registered one. */
export function shownDefinition(def: ToolDefinition | undefined, description: string | undefined): ToolDefinition | undefined {
  return def === undefined || description === undefined ? def : { ...def, summary: undefined, description };
}

/** The tenant's default answer budget and parts (`setting:routing`), else the service's. */
function answerDefaults(settings: TenantSettings): { maxTokens: number; include: readonly AnswerPart[] } {
  const json = settings.get("routing");
  const stored = json === undefined ? {} : (JSON.parse(json) as { maxTokens?: number; include?: AnswerPart[] });
  return { maxTokens: stored.maxTokens ?? DEFAULT_MAX_TOKENS, include: stored.include ?? DEFAULT_ANSWER_PARTS };
}

/** The fused ranking of a first or later step, filled to k with stand-ins, weights scaled; a later step ends with END. */
export function fusedRanking(
  { state, relevance, siblingsOf, weights, unmatched }: RankingState,
  task: string,
  previous: string | null,
  k: number,
  mode: NonNullable<RouteOptions["mode"]>,
): { ranked: RankedTool[]; via: RouteAnswer["via"]; fallback: RouteFallback | undefined } {
  const { graph, defs } = state;
  let fused: FusedCandidate[];
  let via: RouteAnswer["via"];
  if (previous === null) {
    const firstStep = relevance.firstStep;
    const history = mode === "fused" ? state.memory.votes(task, { tools: "first" }) : [];
    fused = fuseFirstStep({
      relevance: withUnfitLower(firstStep, task, state.saidNumbers.unfitAmong(firstStep.map((r) => r.name))),
      history,
      // The same similar tasks (memoised): what they used after their first tool, weaker.
      usedVotes: history.length === 0 ? [] : state.memory.votes(task, { tools: "all" }),
      historyLeads: history.length === 0 || weights().history > 0,
      ...(mode === "fused"
        ? {
            task,
            starts: usualStartsAt(state, weights().starts),
            unmatched: { tools: weights().unmatched > 0 ? unmatched() : [], weight: weights().unmatched },
            producersOf: (tool: string) => state.flow.producers(tool),
            nameLookupsOf: nameLookupsOf(state.flow),
            feedersOf: feedersOf(state.flow),
            siblingsOf,
          }
        : {}),
    });
    via = relevance.embedded ? "retrieval+embeddings" : "retrieval";
  } else {
    // The answer shows the best k (fillToK reads no further): at 10,000 tools the prior holds nearly all of them.
    const input = nextStepInput(state, task, relevance.ranked, previous, k, { history: mode === "fused" });
    fused = fuseNextStep(weights().transitions > 0 ? input : { ...input, signals: WITHOUT_TRANSITIONS });
    via = "fused";
  }
  // Never fewer than k (or every tool): stand-ins fill what the task's words did not.
  // At a later step the previous tool is not a stand-in (it is offered only when observed to repeat).
  const others = previous === null || fused.some((c) => c.tool === previous) ? [] : [previous];
  const filled = fillToK(
    fused,
    Math.min(k, graph.tools.size - others.length),
    routeStandIns({
      index: state.index,
      graph,
      starting: defs,
      flow: state.flow,
      siblingsOf,
      task,
      previous,
      best: fused[0]?.tool,
    }),
    others,
  );
  const ranked: RankedTool[] = scaleWeights(filled.ranked.slice(0, k));
  if (previous !== null) ranked.push(finishCandidate(graph, previous));
  return { ranked, via, fallback: filled.fallback };
}

/** The tenant's usual starts at its calibrated weight; none while muted (the graph is not read then). */
function usualStartsAt(state: Loaded, weight: number): { tools: ReturnType<typeof graphStarts>; weight: number } {
  return { tools: weight > 0 ? graphStarts(state.graph) : [], weight };
}

/**
 * Finish after `previous`, always offered at a later step: its weight is the learned transition
 * previous → end (eq. 6), and it says so, like every candidate says why it is there.
 */
function finishCandidate(graph: ToolGraph, previous: string): RankedTool {
  const exact = transitionWeight(graph, previous, END);
  const observed = graph.tools.get(previous)?.out.get(END)?.count ?? 0;
  return { tool: END, weight: promptWeight(exact), why: { transition: { from: previous, weight: Math.round(exact * 1000), observed } } };
}

/** The last step: the ranked tools as shown (probed or optimised descriptions first), within the token budget (answer-budget.ts). */
export function fitAnswer(sources: AnswerSources, state: Loaded, ranked: RankedTool[], previous: string | null, weights: WeightKind, options: RouteOptions) {
  // A probed (model-written) or optimised description replaces the registered one, as in runs.
  const better = sources.descriptions();
  const defaults = answerDefaults(sources.settings);
  // Stored views and one-line descriptions: a definition is parsed only when its views must be computed.
  const views = sources.viewsEach(
    ranked.flatMap((r) =>
      r.tool === END ? [] : [{ tool: r.tool, description: better.get(r.tool), shown: () => shownDefinition(state.defs.get(r.tool), better.get(r.tool)) }],
    ),
  );
  return fitToBudgetAsEntries({
    previous: previous ?? START,
    maxTokens: options.maxTokens ?? defaults.maxTokens,
    weights,
    include: options.include ?? defaults.include,
    ranked: ranked.map((r) => {
      const shown = views.get(r.tool);
      return {
        tool: r.tool,
        weight: r.weight,
        // Finish is described by the answer itself (answer-budget.ts).
        description: shown?.line ?? "",
        ...(shown === undefined ? {} : { views: shown }),
        ...(r.why === undefined ? {} : { why: r.why }),
      };
    }),
  });
}

/** Fused scores as the integers the prompt shows: the best candidate is 1000. */
function scaleWeights(fused: readonly FusedCandidate[]): { tool: string; weight: number; why: Why }[] {
  const top = fused[0]?.score ?? 1;
  return fused.map((c) => ({ tool: c.tool, weight: top > 0 ? Math.round((c.score / top) * 1000) : 0, why: c.why }));
}
