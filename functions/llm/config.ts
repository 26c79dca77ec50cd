import { z } from "zod";
import { BearerSecret } from "../tenants/credential-values";
import { redactSecret } from "./redact";
import { WORKERS_AI } from "./workers-ai";

/**
 * Model configuration: which OpenAI-compatible endpoint, key and models a tenant's calls use.
 * Service-wide values come from env vars; a tenant may override them field by field.
 */

/** The env vars this module reads; the worker's full Env is assignable to it. */
export interface ModelEnv {
  MODEL_BASE_URL?: string | undefined;
  MODEL_API_KEY?: string | undefined;
  MODEL_NAME?: string | undefined;
  EMBEDDING_MODEL?: string | undefined;
  MODEL_TIMEOUT_MS?: string | undefined;
  MODEL_ALLOW_LOOPBACK?: string | undefined;
  /** The Workers AI binding; used when MODEL_BASE_URL is `workers-ai`. */
  AI?: unknown;
}

/**
 * Whether model endpoints on this machine's loopback are allowed (local development with Ollama,
 * LM Studio, llama.cpp or vLLM). Only the exact value `true` turns it on; production sets nothing.
 */
export function modelLoopbackAllowed(env: ModelEnv): boolean {
  return env.MODEL_ALLOW_LOOPBACK?.trim() === "true";
}

export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

const HttpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const Name = z.string().trim().min(1).max(200);

/** What a tenant may set through the API; every field optional, unknown fields rejected. */
export const TenantModelOverride = z
  .object({
    baseUrl: HttpUrl.optional(),
    apiKey: z.string().trim().min(1).max(1_000).pipe(BearerSecret).optional(),
    model: Name.optional(),
    embeddingModel: Name.optional(),
  })
  .strict()
  // Otherwise the service's own key would be sent to an endpoint the tenant picked.
  .refine((o) => o.baseUrl === undefined || o.apiKey !== undefined, {
    message: "a tenant baseUrl needs a tenant apiKey",
    path: ["apiKey"],
  });
export type TenantModelOverride = z.infer<typeof TenantModelOverride>;

export type ConfigSource = "env" | "tenant";

export interface ModelConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Undefined: embeddings are disabled. */
  embeddingModel: string | undefined;
  timeoutMs: number;
  /** Model requests may go to this machine's loopback (MODEL_ALLOW_LOOPBACK, local development only). */
  allowLoopback?: boolean;
  /** Where each overridable field came from, for display and debugging. */
  sources: {
    baseUrl: ConfigSource;
    apiKey: ConfigSource;
    model: ConfigSource;
    embeddingModel: ConfigSource | undefined;
  };
}

export type ResolveModelConfigResult =
  | { ok: true; config: ModelConfig }
  | {
      ok: false;
      kind: "model_not_configured";
      /** Env var names (or tenant fields) that are needed and unset. */
      missing: string[];
      /** Env var names (or tenant fields) that are set but unusable. */
      invalid: string[];
      message: string;
    };

/** Empty or whitespace-only vars count as unset: dashboards often leave them blank. */
function envValue(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export function resolveModelConfig(env: ModelEnv, tenantOverride?: TenantModelOverride): ResolveModelConfigResult {
  const missing: string[] = [];
  const invalid: string[] = [];
  const o = tenantOverride ?? {};

  const pick = (tenant: string | undefined, envVar: Exclude<keyof ModelEnv, "AI">) => {
    const fromTenant = envValue(tenant);
    if (fromTenant !== undefined) return { value: fromTenant, source: "tenant" as const };
    const fromEnv = envValue(env[envVar]);
    if (fromEnv !== undefined) return { value: fromEnv, source: "env" as const };
    return undefined;
  };

  const baseUrl = pick(o.baseUrl, "MODEL_BASE_URL");
  // The Workers AI binding authenticates as the account itself: no key to configure.
  const viaBinding = baseUrl?.value === WORKERS_AI && baseUrl.source === "env";
  const apiKey = viaBinding ? { value: "workers-ai-binding", source: "env" as const } : pick(o.apiKey, "MODEL_API_KEY");
  const model = pick(o.model, "MODEL_NAME");
  const embeddingModel = pick(o.embeddingModel, "EMBEDDING_MODEL");

  if (!baseUrl) missing.push("MODEL_BASE_URL");
  else if (viaBinding) {
    if (env.AI === undefined) missing.push("the AI binding (MODEL_BASE_URL is workers-ai)");
  } else if (!HttpUrl.safeParse(baseUrl.value).success) invalid.push(baseUrl.source === "tenant" ? "tenant baseUrl" : "MODEL_BASE_URL");
  if (!apiKey) missing.push("MODEL_API_KEY");
  if (!model) missing.push("MODEL_NAME");

  // Checked here too because stored overrides may predate the schema's rule.
  if (baseUrl?.source === "tenant" && apiKey?.source === "env") missing.push("tenant apiKey (required with a tenant baseUrl)");

  let timeoutMs = DEFAULT_MODEL_TIMEOUT_MS;
  const rawTimeout = envValue(env.MODEL_TIMEOUT_MS);
  if (rawTimeout !== undefined) {
    const parsed = Number(rawTimeout);
    if (Number.isInteger(parsed) && parsed > 0) timeoutMs = parsed;
    else invalid.push("MODEL_TIMEOUT_MS");
  }

  if (!baseUrl || !apiKey || !model || missing.length > 0 || invalid.length > 0) {
    const parts: string[] = [];
    if (missing.length > 0) parts.push(`missing ${missing.join(", ")}`);
    if (invalid.length > 0) parts.push(`invalid ${invalid.join(", ")}`);
    return {
      ok: false,
      kind: "model_not_configured",
      missing,
      invalid,
      message: `model not configured: ${parts.join("; ")}`,
    };
  }

  return {
    ok: true,
    config: {
      baseUrl: baseUrl.value,
      apiKey: apiKey.value,
      model: model.value,
      embeddingModel: embeddingModel?.value,
      timeoutMs,
      ...(modelLoopbackAllowed(env) ? { allowLoopback: true } : {}),
      sources: {
        baseUrl: baseUrl.source,
        apiKey: apiKey.source,
        model: model.source,
        embeddingModel: embeddingModel?.source,
      },
    },
  };
}

export interface ModelConfigDescription {
  baseUrl: string;
  /** Masked: never the key itself. */
  apiKey: string;
  model: string;
  embeddingModel: string | null;
  timeoutMs: number;
  sources: ModelConfig["sources"];
}

/** Shows at most the last 4 characters, and only of keys long enough that this reveals little. */
export function maskApiKey(apiKey: string): string {
  return apiKey.length >= 20 ? `…${apiKey.slice(-4)}` : "***";
}

/** Base URLs can carry credentials too (user:pass@, ?api-key=…); hide those parts. */
function maskUrl(url: string, apiKey: string): string {
  let shown: string;
  try {
    const u = new URL(url);
    if (u.username) u.username = "***";
    if (u.password) u.password = "***";
    for (const name of [...new Set(u.searchParams.keys())]) u.searchParams.set(name, "***");
    shown = u.toString();
  } catch {
    shown = url;
  }
  return redactSecret(shown, apiKey);
}

/** A config safe to log or return from the API. */
export function describeModelConfig(config: ModelConfig): ModelConfigDescription {
  const scrub = (s: string) => redactSecret(s, config.apiKey);
  return {
    baseUrl: maskUrl(config.baseUrl, config.apiKey),
    apiKey: maskApiKey(config.apiKey),
    model: scrub(config.model),
    embeddingModel: config.embeddingModel === undefined ? null : scrub(config.embeddingModel),
    timeoutMs: config.timeoutMs,
    sources: { ...config.sources },
  };
}
