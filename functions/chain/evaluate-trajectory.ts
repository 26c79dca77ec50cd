import { createModelClient, modelTransport } from "../llm/client";
import type { TenantApi } from "../../durable-objects/tenant-api";
import { tenantModelConfig } from "../tenants/model-settings";
import { evaluatorMessages, parseEvaluatorAnswer, type EvaluationRequest } from "./evaluator";

/** Ask the tenant's model to score a trajectory; throws when it cannot (the queue retries). */
export async function evaluateTrajectory(env: Env, tenantId: string, tenant: Pick<TenantApi, "settings">, request: EvaluationRequest): Promise<number[]> {
  const config = await tenantModelConfig(env, tenantId, tenant);
  if (!config.ok) throw new Error(config.message);
  const client = createModelClient(config.config, { fetch: modelTransport(env, config.config) });
  const answer = await client.chat({ messages: evaluatorMessages(request), purpose: "evaluate", temperature: 0 });
  const scores = parseEvaluatorAnswer(answer.content ?? "", request.steps.length);
  if (scores === undefined) throw new Error("the evaluator did not answer one integer score in [-3, 3] per tool call");
  return scores;
}
