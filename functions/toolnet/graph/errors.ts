import { Failure, isFailure } from "../../common/failures";

/**
 * Every way a graph operation can refuse its input, as a `Failure` code (common/failures.ts), so
 * callers (the routing store, HTTP routes) branch on `code`, and `names` carries the offending
 * tool names or trajectory ids.
 */

export type ToolGraphCode =
  /** A trajectory, evaluation, seed or `from` names tools the graph does not have. */
  | "unknown_tool"
  /** A tool name equal to the start or end node id. */
  | "reserved_name"
  /** A tool name that is empty or too long. */
  | "invalid_tool_name"
  /** A trajectory that is empty, too long, or malformed. */
  | "invalid_trajectory"
  /** A trajectory id already imported with a different tool sequence. */
  | "trajectory_conflict"
  /** Evaluator scores that are not integers in [-3, 3], or not one per step. */
  | "invalid_scores"
  /** α or β outside their ranges. */
  | "invalid_settings"
  /** Bad options to a query (k, hops, budget, costs). */
  | "invalid_options"
  /** An exported graph that does not parse or is inconsistent. */
  | "invalid_snapshot";

/** A graph operation's refusal: a Failure (invalid request) of its code, naming what is at fault. */
export function graphFailure(init: { code: ToolGraphCode; message: string; names?: readonly string[] }): Failure {
  return Failure.of(init.code, init.message, { names: init.names ?? [] });
}

const TOOL_GRAPH_CODES: readonly ToolGraphCode[] = [
  "unknown_tool",
  "reserved_name",
  "invalid_tool_name",
  "invalid_trajectory",
  "trajectory_conflict",
  "invalid_scores",
  "invalid_settings",
  "invalid_options",
  "invalid_snapshot",
];

/** Whether `error` is a graph operation's refusal. */
export function isGraphFailure(error: unknown): error is Failure & { code: ToolGraphCode; names: readonly string[] } {
  return isFailure(error, ...TOOL_GRAPH_CODES);
}

/** The error for names the graph does not know (`where`: "the trajectories"), listing each once. */
export function unknownTools(names: Iterable<string>, where: string): Failure {
  const list = [...new Set(names)];
  return graphFailure({
    code: "unknown_tool",
    message: `${list.length === 1 ? "Unknown tool" : `${list.length} unknown tools`} in ${where}: ${list.join(", ")}.`,
    names: list,
  });
}
