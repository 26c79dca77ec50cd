import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL_TIMEOUT_MS, describeModelConfig, resolveModelConfig, TenantModelOverride, type ModelEnv } from "../../functions/llm/config";

const SERVICE_KEY = "sk-service-0123456789abcdefXYZ9";
const TENANT_KEY = "sk-tenant-abcdefghijklmnopQRS7";

const env: ModelEnv = {
  MODEL_BASE_URL: "https://api.openai.com/v1",
  MODEL_API_KEY: SERVICE_KEY,
  MODEL_NAME: "gpt-4o-mini",
};

function resolved(e: ModelEnv, override?: TenantModelOverride) {
  const result = resolveModelConfig(e, override);
  if (!result.ok) throw new Error(`expected a config, got: ${result.message}`);
  return result.config;
}

describe("resolveModelConfig", () => {
  it("builds a complete config from env alone, with embeddings off and the default timeout", () => {
    const config = resolved(env);
    expect(config).toEqual({
      baseUrl: "https://api.openai.com/v1",
      apiKey: SERVICE_KEY,
      model: "gpt-4o-mini",
      embeddingModel: undefined,
      timeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
      sources: { baseUrl: "env", apiKey: "env", model: "env", embeddingModel: undefined },
    });
  });

  it("reads EMBEDDING_MODEL and MODEL_TIMEOUT_MS when set", () => {
    const config = resolved({ ...env, EMBEDDING_MODEL: "text-embedding-3-small", MODEL_TIMEOUT_MS: "1500" });
    expect(config.embeddingModel).toBe("text-embedding-3-small");
    expect(config.timeoutMs).toBe(1500);
  });

  it("lets the tenant override win field by field", () => {
    const onlyModel = resolved({ ...env, EMBEDDING_MODEL: "emb-env" }, { model: "tenant-model" });
    expect(onlyModel.model).toBe("tenant-model");
    expect(onlyModel.baseUrl).toBe(env.MODEL_BASE_URL);
    expect(onlyModel.apiKey).toBe(SERVICE_KEY);
    expect(onlyModel.embeddingModel).toBe("emb-env");
    expect(onlyModel.sources).toEqual({ baseUrl: "env", apiKey: "env", model: "tenant", embeddingModel: "env" });

    const everything = resolved(env, {
      baseUrl: "https://llm.tenant.example/v1",
      apiKey: TENANT_KEY,
      model: "llama-3",
      embeddingModel: "nomic-embed",
    });
    expect(everything).toMatchObject({
      baseUrl: "https://llm.tenant.example/v1",
      apiKey: TENANT_KEY,
      model: "llama-3",
      embeddingModel: "nomic-embed",
      sources: { baseUrl: "tenant", apiKey: "tenant", model: "tenant", embeddingModel: "tenant" },
    });
  });

  it("lets a tenant supply what the env lacks", () => {
    const config = resolved({ MODEL_BASE_URL: "https://api.openai.com/v1" }, { apiKey: TENANT_KEY, model: "m" });
    expect(config.apiKey).toBe(TENANT_KEY);
  });

  it("says which variable is missing", () => {
    const result = resolveModelConfig({ MODEL_BASE_URL: "https://api.openai.com/v1", MODEL_NAME: "m" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("model_not_configured");
    expect(result.missing).toEqual(["MODEL_API_KEY"]);
    expect(result.message).toBe("model not configured: missing MODEL_API_KEY");
  });

  it("names every missing variable, and treats blank values as unset", () => {
    const result = resolveModelConfig({ MODEL_BASE_URL: "  ", MODEL_API_KEY: "", EMBEDDING_MODEL: "e" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.missing).toEqual(["MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME"]);
    expect(result.message).toContain("MODEL_BASE_URL, MODEL_API_KEY, MODEL_NAME");
  });

  it("rejects an unusable base URL or timeout, naming it", () => {
    const result = resolveModelConfig({ ...env, MODEL_BASE_URL: "not a url", MODEL_TIMEOUT_MS: "soon" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.invalid).toEqual(["MODEL_BASE_URL", "MODEL_TIMEOUT_MS"]);
    expect(result.message).toContain("invalid MODEL_BASE_URL, MODEL_TIMEOUT_MS");
  });

  it("never sends the service key to a base URL the tenant chose", () => {
    const result = resolveModelConfig(env, { baseUrl: "https://attacker.example/v1" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain("tenant apiKey");
  });
});

describe("TenantModelOverride schema", () => {
  it("accepts partial overrides and rejects unknown fields, empty values and non-http URLs", () => {
    expect(TenantModelOverride.safeParse({}).success).toBe(true);
    expect(TenantModelOverride.safeParse({ model: "gpt-4o" }).success).toBe(true);
    expect(TenantModelOverride.safeParse({ baseUrl: "http://localhost:11434/v1", apiKey: "ollama" }).success).toBe(true);
    expect(TenantModelOverride.safeParse({ model: "" }).success).toBe(false);
    expect(TenantModelOverride.safeParse({ modelName: "x" }).success).toBe(false);
    expect(TenantModelOverride.safeParse({ baseUrl: "file:///etc/passwd", apiKey: "k" }).success).toBe(false);
  });

  it("requires an apiKey with a baseUrl", () => {
    const result = TenantModelOverride.safeParse({ baseUrl: "https://llm.example/v1" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["apiKey"]);
  });
});

describe("describeModelConfig", () => {
  it("masks the key and never contains it, whatever field it hides in", () => {
    const config = resolved({ ...env, EMBEDDING_MODEL: "emb" });
    const described = describeModelConfig(config);
    expect(described).toEqual({
      baseUrl: "https://api.openai.com/v1",
      apiKey: "…XYZ9",
      model: "gpt-4o-mini",
      embeddingModel: "emb",
      timeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
      sources: { baseUrl: "env", apiKey: "env", model: "env", embeddingModel: "env" },
    });
    expect(JSON.stringify(described)).not.toContain(SERVICE_KEY);

    // A key that also sits in the URL (Azure-style ?api-key=, or user:pass@) stays hidden too.
    const leaky = resolved({
      ...env,
      MODEL_BASE_URL: `https://user:${SERVICE_KEY}@llm.example/v1?api-key=${SERVICE_KEY}`,
    });
    const text = JSON.stringify(describeModelConfig(leaky));
    expect(text).not.toContain(SERVICE_KEY);
    expect(text).toContain("llm.example/v1");
  });

  it("shows short keys as *** only", () => {
    const config = resolved({ ...env, MODEL_API_KEY: "short-key" });
    expect(describeModelConfig(config).apiKey).toBe("***");
  });
});
