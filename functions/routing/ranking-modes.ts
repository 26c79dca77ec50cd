import { graphStepSuccessors } from "../toolnet/graph";
import type { WeightKind } from "../toolnet/answer-prompt";
import type { RouteFallback } from "../toolnet/route-fallback";
import type { Loaded } from "./loaded-routing";
import { fusedRanking, type RankedTool, type RankingState, type RouteAnswer, type RouteMode } from "./routing-answers";

/**
 * How a route step's tools are ranked: one interface, one implementation per `mode` of a route
 * request, chosen by name (the routing store asks `RANKING_MODES[mode]`, tenant-routing.ts). A new
 * way of ranking is a new entry here, not a branch in the store.
 */

/** What a ranking mode gets: the step, and what a fused ranking reads (made only when asked: it ranks the task). */
export interface RankingRequest {
  state: Loaded;
  task: string;
  previous: string | null;
  k: number;
  rankingState: () => RankingState;
}

/** A step's tools ranked, how (the answer's `via`), and `fallback` when another ranking stood in for the task's words. */
export interface Ranking {
  ranked: RankedTool[];
  via: RouteAnswer["via"];
  fallback?: RouteFallback | undefined;
}

/** One way of ranking a route step's tools, and what the weights its answer shows were made from. */
export interface RankingMode {
  rank(request: RankingRequest): Ranking;
  readonly weights: WeightKind;
}

/** Every signal fused (the default): the task's words, similar earlier tasks, learned transitions, data flow. */
const FUSED: RankingMode = {
  weights: "fused",
  rank: ({ rankingState, task, previous, k }) => fusedRanking(rankingState(), task, previous, k, "fused"),
};

/** The paper's eq. 4: a later step's successors by learned weight only; a first step by the task's words alone. */
const GRAPH: RankingMode = {
  weights: "transitions",
  rank: ({ state, rankingState, task, previous, k }) =>
    previous === null
      ? fusedRanking(rankingState(), task, previous, k, "graph")
      : { ranked: graphStepSuccessors(state.graph, previous, k, { includeEnd: true }).map((r) => ({ tool: r.tool, weight: r.weight })), via: "graph" },
};

export const RANKING_MODES: Readonly<Record<RouteMode, RankingMode>> = { fused: FUSED, graph: GRAPH };
