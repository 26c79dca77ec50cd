import type { ToolGraph } from "./graph";

/**
 * The backoff of learned transitions: how often each tool was observed after some other tool,
 * whatever that tool was. When neither the previous tool's observed successors, nor data flow,
 * nor the task text name the next tool, the tools that tasks often go on to use (a token lookup,
 * a tool search) are the best remaining guess, as a bigram model backs off to unigrams.
 */

export interface PriorTool {
  readonly tool: string;
  /** Observed transitions into the tool from another tool. */
  readonly observed: number;
}

const cache = new WeakMap<ToolGraph, { version: number; prior: readonly PriorTool[]; ranks?: ReadonlyMap<string, number> }>();

/** Tools by observed transitions into them from other tools (start excluded), most first; cached per graph version. */
export function laterStepPrior(graph: ToolGraph): readonly PriorTool[] {
  const cached = cache.get(graph);
  if (cached !== undefined && cached.version === graph.version) return cached.prior;
  const into = new Map<string, number>();
  for (const [from, node] of graph.tools) {
    for (const [to, edge] of node.out) {
      if (to === from || edge.count === 0 || !graph.tools.has(to)) continue;
      into.set(to, (into.get(to) ?? 0) + edge.count);
    }
  }
  const prior = [...into]
    .map(([tool, observed]) => ({ tool, observed }))
    .sort((a, b) => b.observed - a.observed || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  cache.set(graph, { version: graph.version, prior });
  return prior;
}

/** Each tool's position (from 0) in `laterStepPrior(graph)`; cached per graph version with it. */
export function laterStepPriorRanks(graph: ToolGraph): ReadonlyMap<string, number> {
  const prior = laterStepPrior(graph);
  const cached = cache.get(graph);
  if (cached === undefined) return new Map(prior.map((p, i) => [p.tool, i]));
  cached.ranks ??= new Map(prior.map((p, i) => [p.tool, i]));
  return cached.ranks;
}
