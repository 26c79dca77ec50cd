import type { FeedbackInput } from "../functions/chain/feedback";
import { runTools, type StoredRun } from "../functions/chain/start-run";
import type { FailureData } from "../functions/failures";
import type { Evaluation } from "../functions/routing/graph";
import { FeedbackBatchError } from "../functions/routing/graph/feedback-batch";

/** Where batched updates sit in the request body, for error paths (`updates.3.tools.1`). */
const ITEMS = "updates";

/**
 * A batch's items as evaluations: named tools as given, a run's score spread over the tool calls
 * of its final program (as single feedback does). The first item that cannot be resolved makes
 * the whole batch a 422 problem naming it.
 */
export function batchEvaluations(items: readonly FeedbackInput[], getRun: (id: string) => string | undefined): { evaluations: Evaluation[] } | { problem: FailureData } {
  const evaluations: Evaluation[] = [];
  for (const [index, item] of items.entries()) {
    if (!("runId" in item)) {
      evaluations.push(item);
      continue;
    }
    const json = getRun(item.runId);
    if (json === undefined) return { problem: itemProblem(index, "runId", `No run ${item.runId}.`) };
    const tools = runTools(JSON.parse(json) as StoredRun);
    if (tools.length === 0) return { problem: itemProblem(index, "runId", `Run ${item.runId} called no tools: there is nothing to score.`) };
    evaluations.push({ tools, scores: tools.map(() => item.score) });
  }
  return { evaluations };
}

/** A graph refusal of one item as the batch's problem. */
export function batchItemProblem(error: FeedbackBatchError): FailureData {
  return itemProblem(error.index, error.field, error.message);
}

function itemProblem(index: number, field: string, message: string): FailureData {
  const path = [ITEMS, String(index), ...(field === "" ? [] : [field])].join(".");
  return { kind: "feedback-refused", detail: `Update ${index} was refused, so none of the batch was applied: ${message}`, errors: [{ path, message }] };
}
