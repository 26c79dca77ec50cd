import { isIdLike } from "../probing/vocabulary";
import type { ToolDefinition } from "../tools/definition";
import type { DataFlowIndex } from "./data-flow";

/**
 * What routing says when a task matches no tool: the answer is never empty for a tenant with
 * tools, and it names the stand-in ranking it used, so a caller can tell a match from a guess.
 */
export interface RouteFallback {
  method: "partial-match" | "learned-start" | "starting-tools";
  reason: string;
}

/** Above this many tools, starting tools are ranked without counting data-flow successors (too slow for a request). */
const MAX_TOOLS_COUNTING_FLOW = 2_000;

/**
 * Tools a task can start with when nothing else is known: those that need no identifier from
 * another tool come first, then those whose output feeds the most other tools (a search that
 * yields ids opens more chains than a lookup by id), then by name.
 */
export function startingTools(defs: ReadonlyMap<string, ToolDefinition>, flow: DataFlowIndex, k: number): string[] {
  const countFlow = defs.size <= MAX_TOOLS_COUNTING_FLOW;
  return [...defs.values()]
    .map((def) => ({
      name: def.name,
      needsId: def.parameters.some((p) => p.required && p.in !== "header" && isIdLike(p.name)),
      feeds: countFlow ? flow.successors(def.name).length : 0,
    }))
    .sort((a, b) => Number(a.needsId) - Number(b.needsId) || b.feeds - a.feeds || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, Math.max(0, k))
    .map((t) => t.name);
}
