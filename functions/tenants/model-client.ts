import type { TenantApi } from "../../durable-objects/tenant-api";
import { failure, success, type Outcome } from "../failures";
import { createModelClient, modelTransport, type ModelClient } from "../llm/client";
import { tenantModelConfig } from "./model-settings";

/**
 * The one way product code gets a model client for a tenant: the tenant's model settings over
 * the service's, the transport that goes through the Workers AI binding or the guarded network
 * fetch, and one `not-configured` failure (naming what is missing) when there is no usable model.
 */
export async function modelClientFor(env: Env, tenantId: string, tenant: Pick<TenantApi, "settings">): Promise<Outcome<ModelClient>> {
  const resolved = await tenantModelConfig(env, tenantId, tenant);
  if (!resolved.ok) return failure("not-configured", resolved.message);
  return success(createModelClient(resolved.config, { fetch: modelTransport(env, resolved.config) }));
}
