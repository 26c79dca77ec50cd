import type { TenantApi } from "../tenant-api/tenant-api";
import { failure, success, type Outcome } from "../common/failures";
import { createModelClient, modelTransport, type ModelClient } from "../llm/client";
import { localNameResolver } from "../tools/safe-call/local-name-resolver";
import type { ResolveModelConfigResult } from "../llm/config";
import { modelConfigFromSetting, tenantModelConfig } from "./model-settings";

/**
 * The one way product code gets a model client for a tenant: the tenant's model settings over
 * the service's, the transport that goes through the Workers AI binding or the guarded network
 * fetch, and one `not-configured` failure (naming what is missing) when there is no usable model.
 */
export async function modelClientFor(env: Env, tenantId: string, tenant: Pick<TenantApi, "settings">): Promise<Outcome<ModelClient>> {
  return clientFrom(env, await tenantModelConfig(env, tenantId, tenant));
}

/** `modelClientFor` from the tenant's model setting as already read (a run reads it with its other setup). */
export async function modelClientFromSetting(env: Env, tenantId: string, settingJson: string | undefined): Promise<Outcome<ModelClient>> {
  return clientFrom(env, await modelConfigFromSetting(env, tenantId, settingJson));
}

function clientFrom(env: Env, resolved: ResolveModelConfigResult): Outcome<ModelClient> {
  if (!resolved.ok) return failure("not-configured", resolved.message);
  const resolveName = localNameResolver(env);
  return success(createModelClient(resolved.config, { fetch: modelTransport(env, resolved.config), ...(resolveName === undefined ? {} : { resolveName }) }));
}
