import { isIdLike } from "../probing/vocabulary";
import type { ToolDefinition } from "../tools/definition";
import type { DataFlowLookup } from "./data-flow-links";

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

/** What the starting-tools fallback reads of a tool: stored with the tool (storage's `tool_starts`), so it parses no definition. */
export interface StartingTool {
  name: string;
  /** It needs an identifier another tool gives (a required id-like parameter outside the headers). */
  needsId: boolean;
  /** Its name and summary (or the start of its description), the words the task is likened to. */
  words: string;
}

/** Where the fallback reads its list: every tool's starting form, and how many tools there are. */
export interface StartingToolSource {
  readonly size: number;
  startingList(): Iterable<StartingTool>;
}

export function startingToolOf(def: ToolDefinition): StartingTool {
  return {
    name: def.name,
    needsId: def.parameters.some((p) => p.required && p.in !== "header" && isIdLike(p.name)),
    words: `${def.name} ${def.summary ?? def.description.slice(0, 200)}`,
  };
}

/** The starting forms of definitions held in memory (tests, small catalogs). */
export function startingListOf(defs: ReadonlyMap<string, ToolDefinition>): StartingToolSource {
  return { size: defs.size, startingList: () => [...defs.values()].map(startingToolOf) };
}

/**
 * Tools a task can start with when nothing else is known: those that need no identifier from
 * another tool come first; among them, those whose name and summary share the most letter
 * sequences with the task (partial relevance), then those whose output feeds the most other
 * tools (a search that yields ids opens more chains than a lookup by id). Name order decides
 * only between tools equal on all three. Reads the stored list, never a definition.
 */
export function startingTools(source: StartingToolSource, flow: Pick<DataFlowLookup, "successors">, k: number, task = ""): string[] {
  const countFlow = source.size <= MAX_TOOLS_COUNTING_FLOW;
  const taskGrams = trigrams(task);
  return [...source.startingList()]
    .map((tool) => ({
      name: tool.name,
      needsId: tool.needsId,
      feeds: countFlow ? flow.successors(tool.name).length : 0,
      likeness: taskGrams.size === 0 ? 0 : dice(taskGrams, trigrams(tool.words)),
    }))
    .sort((a, b) => Number(a.needsId) - Number(b.needsId) || b.likeness - a.likeness || b.feeds - a.feeds || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, Math.max(0, k))
    .map((t) => t.name);
}

/** Letter trigrams of the words of `text` (identifiers split, lower case). */
function trigrams(text: string): Set<string> {
  const grams = new Set<string>();
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  for (const word of words) {
    const padded = ` ${word} `;
    if (word.length > 0) for (let i = 0; i + 3 <= padded.length; i += 1) grams.add(padded.slice(i, i + 3));
  }
  return grams;
}

/** Dice's coefficient of two trigram sets, in [0, 1]. */
function dice(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const gram of a) if (b.has(gram)) shared += 1;
  return (2 * shared) / (a.size + b.size);
}
