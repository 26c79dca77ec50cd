import type { TenantApi } from "../tenant-api/tenant-api";
import { LEARNING_SETTING, learningSettingsOf } from "../toolnet/implicit-learning-settings";
import { MODEL_SETTING, StoredOverride } from "../tenants/stored-model-override";
import { z } from "zod";
import { tenantModelConfig } from "./model-settings";

/** The example-writing job's request (jobs/examples-job.ts). */
export const ExamplesJobRequest = z.object({
  /** The import's source: its tools are the job's. */
  source: z.string(),
  /** The tools the import created or changed, when known (else every tool of the source). */
  tools: z.array(z.string()).optional(),
});
export type ExamplesJobRequest = z.infer<typeof ExamplesJobRequest>;

/** What queueing the example-writing job reads and writes of the tenant. */
export type ExamplesQueueTenant = Pick<TenantApi, "settings" | "quotas" | "jobs">;

/**
 * When an import has ended: the background job in which the tenant's model writes example
 * requests for the imported tools (jobs/examples-job.ts), if the tenant wants it (learning
 * setting `examplesAtImport`), a model is configured, and today's model tokens are not used up.
 * Only a job is queued here; the model is never asked on the request path.
 */
export async function queueExampleRequests(env: Env, tenantId: string, tenant: ExamplesQueueTenant, request: ExamplesJobRequest): Promise<string | undefined> {
  if (request.tools !== undefined && request.tools.length === 0) return undefined;
  const wanted = learningSettingsOf(await tenant.settings.get(LEARNING_SETTING)).examplesAtImport;
  if (wanted === false) return undefined;
  // Unset: the tenant's own model only; the service's shared model writes examples for a tenant that asks for it.
  if (wanted === undefined && !ownsChatModel(await tenant.settings.get(MODEL_SETTING))) return undefined;
  if (!(await tenantModelConfig(env, tenantId, tenant)).ok) return undefined;
  const limit = (await tenant.quotas.settings()).modelTokensPerDay;
  if ((await tenant.quotas.modelTokensToday(Date.now())) >= limit) return undefined;
  return (await tenant.jobs.create("examples", request, null)).id;
}

/** Whether the tenant's stored model settings name a chat model of its own (an embeddings model alone does not). */
function ownsChatModel(json: string | undefined): boolean {
  if (json === undefined) return false;
  const stored = StoredOverride.safeParse(JSON.parse(json));
  return stored.success && (stored.data.baseUrl !== undefined || stored.data.model !== undefined || stored.data.apiKey !== undefined);
}
