/**
 * One error type for every way a graph operation can refuse its input, so callers (the tenant's
 * Durable Object, HTTP routes) branch on `code`, and `names` carries the offending tool names or
 * trajectory ids for the public error body.
 */

export type ToolGraphErrorCode =
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

export class ToolGraphError extends Error {
  override readonly name = "ToolGraphError";
  readonly code: ToolGraphErrorCode;
  /** The tool names or trajectory ids at fault, when there are any. */
  readonly names: readonly string[];

  constructor(init: { code: ToolGraphErrorCode; message: string; names?: readonly string[] }) {
    super(init.message);
    this.code = init.code;
    this.names = init.names ?? [];
  }

  toJSON(): { code: ToolGraphErrorCode; message: string; names: readonly string[] } {
    return { code: this.code, message: this.message, names: this.names };
  }
}

/** The error for names the graph does not know (`where`: "the trajectories"), listing each once. */
export function unknownTools(names: Iterable<string>, where: string): ToolGraphError {
  const list = [...new Set(names)];
  return new ToolGraphError({
    code: "unknown_tool",
    message: `${list.length === 1 ? "Unknown tool" : `${list.length} unknown tools`} in ${where}: ${list.join(", ")}.`,
    names: list,
  });
}
