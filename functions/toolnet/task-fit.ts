import { nameWords } from "../probing/vocabulary";
import { isOpaqueInput } from "./data-flow";
import type { Ranked } from "./retrieval/ranked";
import type { ToolDefinition } from "../tools/definition";

/**
 * Whether a task can call a tool as asked. A required position (`season_number`,
 * `episode_number`) is a value the user says ("season 2, episode 3");
 * a task that says no number and points at none ("the latest season") cannot be the call of
 * such a tool. "Who directed Inception?" matches a TV episode's crew as well as a movie's, but
 * only the movie's credits can be asked for with a name alone.
 */

/** Words that say a number, or point at one another tool knows ("the latest season"). */
const NUMBER_WORDS = new Set(
  "one two three four five six seven eight nine ten eleven twelve twenty hundred thousand first second third fourth fifth sixth seventh eighth ninth tenth last latest newest recent current next previous final".split(
    " ",
  ),
);

/** True when the task writes a number, or a word that says or points at one. */
export function taskGivesNumber(task: string): boolean {
  if (/\d/.test(task)) return true;
  return (task.toLowerCase().match(/[a-z]+/g) ?? []).some((word) => NUMBER_WORDS.has(word));
}

/** Names of numbers that pick a part of a record by its position (`season_number`, `page_index`). */
const POSITION_WORDS = new Set(["number", "index", "position", "ordinal"]);

/**
 * The tool's required inputs that are positions the user must say: numbers named as such
 * (`season_number`), not identifiers or tokens. Other required numbers (a latitude, a year, an
 * amount) are as often worked out from what the task says, so they do not count (measured: all
 * required numbers cost StableToolBench's first step 0.014 of recall@5 on half a).
 */
export function saidNumbers(def: Pick<ToolDefinition, "parameters">): string[] {
  return def.parameters
    .filter(
      (p) =>
        p.required &&
        p.in !== "header" &&
        (p.schema.type === "integer" || p.schema.type === "number") &&
        !isOpaqueInput(p.name) &&
        nameWords(p.name).some((w) => POSITION_WORDS.has(w)),
    )
    .map((p) => p.name);
}

/** Whether the task can call each tool as asked: not one that needs a position the task does not say (`isUnfit`, as for `withUnfitLower`). */
export function callableAsAsked(task: string, isUnfit: (tool: string) => boolean): (tool: string) => boolean {
  if (taskGivesNumber(task)) return () => true;
  return (tool) => !isUnfit(tool);
}

/**
 * How many places a tool the task cannot call moves down the relevance ranking; chosen on half a
 * of bench/routing-generalisation.ts (0, 3, 10, and to the end were measured).
 */
export const UNFIT_PENALTY = 10;

/** True when a task that gives no number cannot call the tool: it needs a position the user must say (`saidNumbers`). */
export function needsSaidNumber(def: Pick<ToolDefinition, "parameters"> | undefined): boolean {
  return def !== undefined && saidNumbers(def).length > 0;
}

/**
 * `relevance` with every tool that needs a number the task does not give (`isUnfit`, usually
 * `needsSaidNumber` of its definition) moved `penalty` places down (relative order otherwise
 * kept); unchanged when the task gives a number, and then `isUnfit` is not asked.
 */
export function withUnfitLower(relevance: readonly Ranked[], task: string, isUnfit: (tool: string) => boolean, penalty = UNFIT_PENALTY): Ranked[] {
  if (penalty <= 0 || taskGivesNumber(task)) return [...relevance];
  const keyed = relevance.map((r, i) => ({ r, key: isUnfit(r.name) ? i + penalty + 0.5 : i }));
  if (keyed.every((k, i) => k.key === i)) return [...relevance];
  return keyed.sort((a, b) => a.key - b.key).map((k) => k.r);
}
