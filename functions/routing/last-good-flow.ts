import type { DataFlowLookup } from "../toolnet/data-flow-links";

/**
 * Data flow between a catalog change and its preparation (issue 42). Computing a catalog's links
 * streams and parses every definition: for Microsoft Graph's 11,422 tools that is seconds, and a
 * background import changes the catalog with every batch, so routes of the importing tenant
 * between batches parsed the whole catalog again and again (333,460 definitions in one import).
 * Its cost is known before it runs (the number of definitions), so past a bound a route uses the
 * links as they were before the change, without the tools removed since, and the alarm's
 * preparation makes the new links once the change is done; a small catalog recomputes at once.
 */

/** The most definitions a route streams to recompute data flow itself; past it the last good links serve until the preparation. */
export const ON_DEMAND_FLOW_MAX_TOOLS = 500;

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
