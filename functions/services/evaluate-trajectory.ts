import type { TenantApi } from "../tenant-api/tenant-api";
import { unwrap } from "../common/failures";
import { modelClientFor } from "./model-client";
import { evaluatorMessages, parseEvaluatorAnswer, type EvaluationRequest } from "../chain/evaluator";

/** Ask the tenant's model to score a trajectory; throws when it cannot (the queue retries). */
export async function evaluateTrajectory(env: Env, tenantId: string, tenant: Pick<TenantApi, "settings">, request: EvaluationRequest): Promise<number[]> {
  const client = unwrap(await modelClientFor(env, tenantId, tenant));
  const answer = await client.chat({ messages: evaluatorMessages(request), purpose: "evaluate", temperature: 0 });
  const scores = parseEvaluatorAnswer(answer.content ?? "", request.steps.length);
  if (scores === undefined) throw new Error("the evaluator did not answer one integer score in [-3, 3] per tool call");
  return scores;
}
