import type { TenantApi } from "../../durable-objects/tenant-api";
import { Failure } from "../failures";
import { runTools, type StoredRun } from "./start-run";

/** Feedback as the API takes it: scores for named tools, or one score for a stored run. */
export type FeedbackInput = { tools: string[]; scores: number[] } | { runId: string; score: number };

/** The evaluation to apply: a run's feedback becomes one score per tool call of its final program. */
export async function feedbackEvaluation(tenant: TenantApi, feedback: FeedbackInput): Promise<{ tools: string[]; scores: number[] }> {
  if (!("runId" in feedback)) return feedback;
  const json = await tenant.runs.get(feedback.runId);
  if (json === undefined) throw new Failure("not-found", `No run ${feedback.runId}.`);
  const tools = runTools(JSON.parse(json) as StoredRun);
  if (tools.length === 0) throw new Failure("invalid-request", `Run ${feedback.runId} called no tools: there is nothing to score.`);
  return { tools, scores: tools.map(() => feedback.score) };
}
