import { applyFeedback, type Evaluation, type FeedbackResult } from "./dynamic-construction";
import { isGraphFailure } from "./errors";
import { Failure } from "../../common/failures";
import type { ToolGraph } from "./tool-graph";

/**
 * Why one evaluation of a batch was refused: a Failure (feedback refused) with one field error at
 * the item's position (and the field within it, `3.tools.2`), carrying the graph's message.
 */
function itemRefused(index: number, field: string, cause: Failure): Failure {
  const path = [String(index), ...(field === "" ? [] : [field])].join(".");
  const detail = `Update ${index} was refused, so none of the batch was applied: ${cause.message}`;
  return Failure.of("feedback_item_refused", detail, { errors: [{ path, message: cause.message }], cause });
}

export interface FeedbackBatchResult {
  /** One report per evaluation, in order, exactly as applying them one by one would give. */
  readonly results: readonly FeedbackResult[];
  /** Each re-scored tool once with its final accumulated score: what storage must write. */
  readonly finalScores: ReadonlyMap<string, number>;
}

/**
 * Applies evaluations in order, all or nothing: if any is refused, every score the earlier ones
 * changed is put back and a `feedback_item_refused` Failure names the item. Each evaluation is applied as
 * `applyFeedback` applies it alone, so a batch ends where the same updates sent one by one end.
 */
export function applyFeedbackBatch(graph: ToolGraph, evaluations: readonly Evaluation[]): FeedbackBatchResult {
  const before = new Map<string, number>();
  const version = graph.version;
  const results: FeedbackResult[] = [];
  for (const [index, evaluation] of evaluations.entries()) {
    for (const tool of evaluation.tools) {
      const node = graph.tools.get(tool);
      if (node !== undefined && !before.has(tool)) before.set(tool, node.score);
    }
    try {
      results.push(applyFeedback(graph, evaluation));
    } catch (error) {
      for (const [tool, score] of before) {
        const node = graph.tools.get(tool);
        if (node !== undefined) node.score = score;
      }
      graph.version = version;
      if (isGraphFailure(error)) throw itemRefused(index, faultyField(graph, evaluation, error), error);
      throw error;
    }
  }
  const finalScores = new Map<string, number>();
  for (const result of results) for (const update of result.updated) finalScores.set(update.tool, update.score);
  return { results, finalScores };
}

/** The field an error points at: the first tool the graph does not know, else the item itself. */
function faultyField(graph: ToolGraph, evaluation: Evaluation, error: Failure & { names: readonly string[] }): string {
  if (error.code !== "unknown_tool" && error.code !== "reserved_name") return "";
  const at = evaluation.tools.findIndex((tool) => error.names.includes(tool) || !graph.tools.has(tool));
  return at < 0 ? "" : `tools.${at}`;
}
