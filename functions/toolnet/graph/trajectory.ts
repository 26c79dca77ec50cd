import { END, START } from "./node-ids";

/** One tool-use trajectory: the tools called, in order, without the start and end nodes. */
export interface Trajectory {
  /** Stable id (a run id, a dataset record id): importing the same id twice counts it once. */
  readonly id: string;
  readonly tools: readonly string[];
}

/**
 * Default cap on trajectory length. The paper stops an agent after 8 steps and generated programs
 * rarely call more than a few dozen tools; a longer "trajectory" is a logging bug, and one loop
 * of thousands of calls would otherwise dominate every count it touches.
 */
export const DEFAULT_MAX_TRAJECTORY_LENGTH = 256;

/** Longest trajectory id accepted. */
export const MAX_TRAJECTORY_ID_LENGTH = 512;

/**
 * Calls `visit` for every 2-gram of [start, ...tools, end]. Eq. 5 treats end as a normal tool;
 * we add start too, so start→first and last→end are counted like any transition.
 */
export function forEachTransition(tools: readonly string[], visit: (from: string, to: string) => void): void {
  let previous = START;
  for (const tool of tools) {
    visit(previous, tool);
    previous = tool;
  }
  visit(previous, END);
}

/** True when both sequences are the same tools in the same order. */
export function sameSequence(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tool, i) => tool === b[i]);
}
