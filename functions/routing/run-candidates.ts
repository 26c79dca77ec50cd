import { learnedSuccessors } from "../toolnet/graph";
import { searchCoveringWords, type SiblingsOf } from "../toolnet/retrieval";
import { fuseRunCandidates, type RunCandidateSet } from "../toolnet/signal-fusion";
import { withUnfitLower } from "../toolnet/task-fit";
import type { ToolDefinition } from "../tools/definition";
import type { Loaded } from "./loaded-routing";
import { feedersOf, nameLookupsOf, shownDefinition } from "./routing-answers";
import type { StoredToolViews } from "../storage/tenant-tool-views";

/** What a run's candidate set reads (the routing store, tenant-routing.ts, gathers it). */
export interface RunCandidateSources {
  state: Loaded;
  /** Replacement descriptions of current protocols, by tool. */
  better: Map<string, string>;
  /** Run-prompt tokens of current protocols, by tool. */
  protocolTokens: Map<string, number>;
  /** Other operations of a tool's API, for the relevance search's API evidence. */
  apiSiblingsOf: SiblingsOf | undefined;
  /** Other operations of a tool's API (small APIs only), for fusion. */
  siblingsOf: (tool: string) => readonly string[];
  /** A tool's stored views as shown with a description. */
  views: (tool: string, shown: ToolDefinition, description: string | undefined) => StoredToolViews;
}

/**
 * Tools for a run: retrieval (at least `minDepth` deep), similar earlier tasks, and the learned and
 * data-flow successors of the best of them, in one fused ranking, taken best first within
 * `maxTools` and `tokenBudget`. A tool costs the tokens the run prompt shows for it (typed
 * signature and description, and with a current protocol its response schema and example), as stored.
 */
export function runCandidates(
  { state, better, protocolTokens, apiSiblingsOf, siblingsOf, views }: RunCandidateSources,
  task: string,
  options: { seeds: number; maxTools: number; tokenBudget: number },
  minDepth: number,
): RunCandidateSet {
  const relevance = searchCoveringWords(state.index, task, Math.max(minDepth, options.maxTools * 3), {
    siblingsOf: apiSiblingsOf,
  });
  return fuseRunCandidates({
    task,
    relevance: withUnfitLower(relevance, task, state.saidNumbers.unfitAmong(relevance.map((r) => r.name))),
    history: state.memory.votes(task, { tools: "all" }),
    seeds: options.seeds,
    learnedAfter: (tool) => learnedSuccessors(state.graph, tool),
    dataFlowAfter: (tool) => state.flow.successors(tool),
    producersOf: (tool) => state.flow.producers(tool),
    nameLookupsOf: nameLookupsOf(state.flow),
    feedersOf: feedersOf(state.flow),
    siblingsOf,
    maxTools: options.maxTools,
    tokenBudget: options.tokenBudget,
    // The stored figure of what the run prompt shows: with a current protocol, its signature with
    // the protocol's schema and example (recorded with the version), else tool_views.run_tokens.
    costOf: (tool) => {
      const recorded = protocolTokens.get(tool);
      if (recorded !== undefined) return recorded;
      const description = better.get(tool);
      const def = shownDefinition(state.defs.get(tool), description);
      return def === undefined ? 0 : views(tool, def, description).runTokens;
    },
  });
}
