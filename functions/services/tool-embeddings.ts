import type { TenantApi } from "../tenant-api/tenant-api";
import type { TaskVectorWanted } from "../routing/tenant-routing";
import type { ToolUpsert } from "../storage/tenant-registry";
import type { ToolDefinition } from "../tools/definition";
import { success, type Outcome } from "../common/failures";
import type { ModelClient } from "../llm/client";
import { resolveModelConfig } from "../llm/config";
import { toolEmbeddingText } from "../toolnet/retrieval";
import { modelClientFor } from "./model-client";

/**
 * Optional embeddings for the first routing step: tool vectors are computed once per definition
 * (at registration) and kept in the tenant's object; at route time only the task is embedded —
 * an embeddings call, never a chat-model call — and fused with the lexical ranking (RRF).
 */

/** A task's embedding as routing takes it. */
export type TaskVector = { model: string; vector: number[] };

/**
 * A route answer for `task`, with the task embedded when the tenant has an embeddings model.
 * With one configured for the whole service (`EMBEDDING_MODEL`), the task is embedded first. Else
 * only the tenant's own model settings can name one, and the tenant's object knows them: `first`
 * routes without a vector unless they do (one call to the object on the routing hot path), and
 * only when they do is the task embedded and routed again.
 */
export async function routeWithTaskVector<Answer>(
  env: Env,
  tenantId: string,
  tenant: TenantApi,
  task: string,
  route: (query: TaskVector | undefined) => Promise<Outcome<Answer>>,
  first: () => Promise<Outcome<Answer | TaskVectorWanted>>,
): Promise<Outcome<Answer>> {
  if (serviceEmbeddingModel(env) !== undefined) return route(await embedTask(env, tenantId, tenant, task));
  const answer = await first();
  if (!answer.ok) return answer;
  if (!isTaskVectorWanted(answer.value)) return success(answer.value);
  return route(await embedTask(env, tenantId, tenant, task));
}

/**
 * The service-wide embeddings model, when the service's model settings are complete and name one.
 * Without `EMBEDDING_MODEL` there is none, whatever else is set: the whole configuration (URL
 * checks and all) is resolved only when it is, since every route request asks.
 */
function serviceEmbeddingModel(env: Env): string | undefined {
  if (env.EMBEDDING_MODEL === undefined || env.EMBEDDING_MODEL.trim() === "") return undefined;
  const service = resolveModelConfig(env);
  return service.ok ? service.config.embeddingModel : undefined;
}

/** True for `first`'s request to embed the task (an answer is an object without that member, or JSON text). */
function isTaskVectorWanted(value: unknown): value is TaskVectorWanted {
  return typeof value === "object" && value !== null && "taskVectorWanted" in value;
}

/** The tenant's embeddings client, or undefined when no embeddings model is configured. */
export async function embeddingsClient(
  env: Env,
  tenantId: string,
  tenant: Pick<TenantApi, "settings">,
): Promise<{ client: ModelClient; model: string } | undefined> {
  const model = await modelClientFor(env, tenantId, tenant);
  if (!model.ok || model.value.embeddingModel === undefined) return undefined;
  return { client: model.value, model: model.value.embeddingModel };
}

/** Embed every tool whose vector is missing or stale; returns a warning instead of failing the import. */
export async function embedNewTools(env: Env, tenantId: string, tenant: TenantApi): Promise<{ embedded: number; warning?: string }> {
  return embedMissingTools(env, tenantId, tenant);
}

/** Embed the tools whose vector is missing or stale (at most `max`), when the tenant has an embeddings model; a warning instead of failing. */
export async function embedMissingTools(
  env: Env,
  tenantId: string,
  tenant: Pick<TenantApi, "settings" | "routing" | "registry">,
  max = Number.POSITIVE_INFINITY,
): Promise<{ embedded: number; warning?: string }> {
  const embeddings = await embeddingsClient(env, tenantId, tenant);
  if (embeddings === undefined) return { embedded: 0 };
  const pending = (await tenant.routing.toolsNeedingEmbeddings(embeddings.model)).slice(0, max);
  if (pending.length === 0) return { embedded: 0 };
  try {
    const records = await Promise.all(pending.map((p) => tenant.registry.getTool(p.name)));
    const tools = pending.flatMap((p, i) => {
      const definition = records[i]?.definition;
      return definition === undefined ? [] : [{ definition, hash: p.hash }];
    });
    return { embedded: await embedAndStore(embeddings, tenant, tools) };
  } catch (error) {
    return { embedded: 0, warning: notEmbedded(error) };
  }
}

/**
 * Embed tools just written (a background import's batch: at most a batch's worth, sent in
 * requests of the client's batch size), when the tenant has an embeddings model. A failure is a
 * warning; the tools stay without vectors until the next registration embeds what is missing.
 */
export async function embedTools(
  env: Env,
  tenantId: string,
  tenant: Pick<TenantApi, "settings" | "routing">,
  tools: readonly ToolUpsert[],
): Promise<{ embedded: number; warning?: string }> {
  if (tools.length === 0) return { embedded: 0 };
  const embeddings = await embeddingsClient(env, tenantId, tenant);
  if (embeddings === undefined) return { embedded: 0 };
  try {
    return { embedded: await embedAndStore(embeddings, tenant, tools) };
  } catch (error) {
    return { embedded: 0, warning: notEmbedded(error) };
  }
}

async function embedAndStore(
  embeddings: { client: ModelClient; model: string },
  tenant: Pick<TenantApi, "routing">,
  tools: readonly { definition: ToolDefinition; hash: string }[],
): Promise<number> {
  const { vectors } = await embeddings.client.embed(
    tools.map((t) => toolEmbeddingText(t.definition)),
    { purpose: "tool-embeddings" },
  );
  await tenant.routing.storeEmbeddings(
    embeddings.model,
    tools.flatMap((t, i) => {
      const vector = vectors[i];
      return vector === undefined ? [] : [{ tool: t.definition.name, hash: t.hash, vector }];
    }),
  );
  return tools.length;
}

function notEmbedded(error: unknown): string {
  return `tool embeddings were not computed (routing stays lexical until they are): ${error instanceof Error ? error.message : String(error)}`;
}

/** The task's vector for the first routing step, when embeddings are configured. */
export async function embedTask(env: Env, tenantId: string, tenant: TenantApi, task: string): Promise<{ model: string; vector: number[] } | undefined> {
  const embeddings = await embeddingsClient(env, tenantId, tenant);
  if (embeddings === undefined) return undefined;
  const { vectors } = await embeddings.client.embed([task], { purpose: "route" });
  const vector = vectors[0];
  return vector === undefined ? undefined : { model: embeddings.model, vector };
}
