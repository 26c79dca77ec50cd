import type { DataFlowLookup } from "../toolnet/data-flow-links";

/**
 * Data flow between a catalog change and its preparation (issue 42). Computing a catalog's links
 * streams and parses every definition: for Microsoft Graph's 11,422 tools that is seconds, and a
 * background import changes the catalog with every batch, so routes of the importing tenant
 * between batches parsed the whole catalog again and again (333,460 definitions in one import).
 * Its cost is known before it runs (the number of definitions and their characters), so past a bound a route uses the
 * links as they were before the change, without the tools removed since, and the alarm's
 * preparation makes the new links once the change is done; a small catalog recomputes at once.
 */

/** The most definitions a route streams to recompute data flow itself; past it the last good links serve until the preparation. */
export const ON_DEMAND_FLOW_MAX_TOOLS = 500;

/**
 * The most definition JSON, in characters, a route streams to recompute data flow itself: a few
 * milliseconds of parsing. Fewer tools can still be far more text (a Graph operation's definition
 * with its schemas is ≈ 23 KB, a StableToolBench one ≈ 0.7 KB), and during Graph's import the
 * routes under the tool bound parsed ≈ 12 MB each (1.9 s a route at load 17).
 */
export const ON_DEMAND_FLOW_MAX_CHARS = 1_000_000;

/** Whether a route may recompute data flow itself for a catalog of `tools` definitions holding `chars` characters. */
export function flowCheapToRecompute(tools: number, chars: () => number): boolean {
  return tools <= ON_DEMAND_FLOW_MAX_TOOLS && chars() <= ON_DEMAND_FLOW_MAX_CHARS;
}

/** `flow` as it was before a change, never naming a tool that `has` no longer knows. */
export function lastGoodFlow(flow: DataFlowLookup, has: (tool: string) => boolean): DataFlowLookup {
  const { nameLookups, feeders } = flow;
  return {
    successors: (from) => flow.successors(from).filter((link) => has(link.to)),
    producers: (to) => flow.producers(to).filter((source) => has(source.from)),
    ...(nameLookups === undefined ? {} : { nameLookups: (to: string) => nameLookups.call(flow, to).filter((source) => has(source.from)) }),
    ...(feeders === undefined ? {} : { feeders: (to: string, count: number) => feeders.call(flow, to, count).filter((source) => has(source.from)) }),
  };
}

/** No links: a big catalog's routes while a preparation reads it in pieces and no last good links are in memory. */
export const NO_FLOW: DataFlowLookup = { successors: () => [], producers: () => [], nameLookups: () => [], feeders: () => [] };
