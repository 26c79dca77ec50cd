import { runTools, type StoredRun } from "../chain/stored-run";
import type { FailureData } from "../common/failures";
import type { Evaluation } from "../toolnet/graph";
import type { Failure } from "../common/failures";

/** Feedback as the API takes it: scores for named tools, or one score for a stored run. */
export type FeedbackInput = { tools: string[]; scores: number[] } | { runId: string; score: number };

/** Where batched updates sit in the request body, for error paths (`updates.3.tools.1`). */
const ITEMS = "updates";

/**
 * A batch's items as evaluations: named tools as given, a run's score spread over the tool calls
 * of its final program (as single feedback does). The first item that cannot be resolved makes
 * the whole batch a 422 problem naming it.
 */
export function batchEvaluations(
  items: readonly FeedbackInput[],
  getRun: (id: string) => string | undefined,
): { evaluations: Evaluation[] } | { problem: FailureData } {
  const evaluations: Evaluation[] = [];
  for (const [index, item] of items.entries()) {
    const resolved = resolveFeedback(item, getRun);
    if ("refused" in resolved) return { problem: itemProblem(index, "runId", resolved.refused.detail ?? "") };
    evaluations.push(resolved.evaluation);
  }
  return { evaluations };
}

/**
 * One feedback item as an evaluation: named tools as given, a run's score spread over the tool
 * calls of its final program. Single and batched feedback resolve runs only here.
 */
export function resolveFeedback(item: FeedbackInput, getRun: (id: string) => string | undefined): { evaluation: Evaluation } | { refused: FailureData } {
  if (!("runId" in item)) return { evaluation: item };
  const json = getRun(item.runId);
  if (json === undefined) return { refused: { kind: "not-found", detail: `No run ${item.runId}.` } };
  const tools = runTools(JSON.parse(json) as StoredRun);
  if (tools.length === 0) return { refused: { kind: "invalid-request", detail: `Run ${item.runId} called no tools: there is nothing to score.` } };
  return { evaluation: { tools, scores: tools.map(() => item.score) } };
}

/** A graph refusal of one item as the batch's problem. */
export function batchItemProblem(error: Failure): FailureData {
  const errors = (error.errors ?? []).map((e) => ({ path: `${ITEMS}.${e.path}`, message: e.message }));
  return { kind: error.kind, ...(error.detail === undefined ? {} : { detail: error.detail }), errors };
}

function itemProblem(index: number, field: string, message: string): FailureData {
  const path = [ITEMS, String(index), ...(field === "" ? [] : [field])].join(".");
  return { kind: "feedback-refused", detail: `Update ${index} was refused, so none of the batch was applied: ${message}`, errors: [{ path, message }] };
}
