import type { z } from "zod";
import { modelLoopbackAllowed, resolveModelConfig, TenantModelOverride, type ResolveModelConfigResult } from "../llm/config";
import type { TenantApi } from "../tenant-api/tenant-api";
import { checkDestination } from "../tools/safe-call";
import { maskedHint, openSecret, sealSecret } from "../tenants/credential-crypto";
import { credentialsKey } from "../tenants/credentials-key";
import { MODEL_SETTING, StoredOverride } from "../tenants/stored-model-override";

/**
 * A tenant's model override (its own OpenAI-compatible endpoint, key or model names). The key is
 * sealed like tool credentials; a tenant base URL must pass the same destination guard as tool
 * calls, or a tenant could aim the service's model client at an internal address.
 */

const SETTING = MODEL_SETTING;
const SEALED_KEY_RECORD = "model-api-key";

export type ModelOverrideInput = z.infer<typeof TenantModelOverride>;

/** What the API shows of the override: never the key, only its hint. */
export interface ModelOverrideView {
  baseUrl?: string;
  model?: string;
  embeddingModel?: string;
  apiKeyHint?: string;
}

/** Why an override cannot be stored, or undefined when it can. */
export function overrideProblem(env: Env, override: ModelOverrideInput): string | undefined {
  if (override.baseUrl === undefined) return undefined;
  const allowLoopback = modelLoopbackAllowed(env);
  const check = checkDestination(override.baseUrl, { allowLoopback });
  if (check.ok) return undefined;
  const loopback = !allowLoopback && checkDestination(override.baseUrl, { allowLoopback: true }).ok;
  const hint = loopback ? " (a model server on this machine needs MODEL_ALLOW_LOOPBACK=true, in local development only)" : "";
  return `baseUrl refused: ${check.reason}${hint}`;
}

/** Seal and store a tenant's override (replacing the previous one). */
export async function storeModelOverride(
  env: Env,
  tenantId: string,
  tenant: Pick<TenantApi, "settings">,
  override: ModelOverrideInput,
): Promise<ModelOverrideView> {
  let apiKey: z.infer<typeof StoredOverride>["apiKey"];
  if (override.apiKey !== undefined) {
    apiKey = { ...(await sealSecret(credentialsKey(env), tenantId, SEALED_KEY_RECORD, override.apiKey)), hint: maskedHint(override.apiKey) };
  }
  const stored = { ...override, apiKey };
  await tenant.settings.put(SETTING, JSON.stringify(stored));
  return viewOf(stored);
}

function viewOf(stored: z.infer<typeof StoredOverride>): ModelOverrideView {
  return {
    ...(stored.baseUrl === undefined ? {} : { baseUrl: stored.baseUrl }),
    ...(stored.model === undefined ? {} : { model: stored.model }),
    ...(stored.embeddingModel === undefined ? {} : { embeddingModel: stored.embeddingModel }),
    ...(stored.apiKey === undefined ? {} : { apiKeyHint: stored.apiKey.hint }),
  };
}

function parseStored(json: string | undefined): z.infer<typeof StoredOverride> | undefined {
  return json === undefined ? undefined : StoredOverride.parse(JSON.parse(json));
}

async function loadStored(tenant: Pick<TenantApi, "settings">): Promise<z.infer<typeof StoredOverride> | undefined> {
  return parseStored(await tenant.settings.get(SETTING));
}

/** The tenant's override as the API may show it. */
export async function readModelOverride(tenant: Pick<TenantApi, "settings">): Promise<ModelOverrideView | undefined> {
  const stored = await loadStored(tenant);
  return stored === undefined ? undefined : viewOf(stored);
}

/** The model configuration for a tenant's calls: service env, overridden by the tenant's settings. */
export async function tenantModelConfig(env: Env, tenantId: string, tenant: Pick<TenantApi, "settings">): Promise<ResolveModelConfigResult> {
  return modelConfigFromSetting(env, tenantId, await tenant.settings.get(SETTING));
}

/** `tenantModelConfig` from the tenant's model setting as stored (JSON text, undefined when unset), already read. */
export async function modelConfigFromSetting(env: Env, tenantId: string, settingJson: string | undefined): Promise<ResolveModelConfigResult> {
  const stored = parseStored(settingJson);
  if (stored === undefined) return resolveModelConfig(env);
  let apiKey: string | undefined;
  // A sealed key that cannot be opened is refused, never skipped: without it the override's
  // endpoint would be called with the service's own key.
  if (stored.apiKey !== undefined) apiKey = await openSecret(credentialsKey(env), tenantId, SEALED_KEY_RECORD, stored.apiKey);
  const override = TenantModelOverride.parse({
    ...(stored.baseUrl === undefined ? {} : { baseUrl: stored.baseUrl }),
    ...(stored.model === undefined ? {} : { model: stored.model }),
    ...(stored.embeddingModel === undefined ? {} : { embeddingModel: stored.embeddingModel }),
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  return resolveModelConfig(env, override);
}
