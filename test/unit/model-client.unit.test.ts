import { describe, expect, it } from "vitest";
import type { AiRunner } from "../../functions/llm/workers-ai";
import { modelClientFor } from "../../functions/services/model-client";
import { storeModelOverride } from "../../functions/services/model-settings";
import { fakeTenant } from "../helpers/fake-tenant";

const asEnv = (vars: Record<string, unknown>) => vars as unknown as Env;

describe("modelClientFor", () => {
  it("is one not-configured failure naming what is missing", async () => {
    const model = await modelClientFor(asEnv({ MODEL_NAME: "gpt-4o-mini" }), "acme", fakeTenant());
    expect(model).toEqual({ ok: false, problem: { kind: "not-configured", detail: expect.stringMatching(/^model not configured: missing .*MODEL_API_KEY/) } });
  });

  it("builds the client with the platform transport: Workers AI answers through its binding", async () => {
    const calls: string[] = [];
    const ai: AiRunner = {
      async run(model) {
        calls.push(model);
        return { response: "hello", usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
      },
    };
    const model = await modelClientFor(asEnv({ MODEL_BASE_URL: "workers-ai", MODEL_NAME: "@cf/meta/llama", AI: ai }), "acme", fakeTenant());
    if (!model.ok) throw new Error(model.problem.detail);
    const answer = await model.value.chat({ purpose: "test", messages: [{ role: "user", content: "hi" }] });
    expect(answer.content).toBe("hello");
    expect(calls).toEqual(["@cf/meta/llama"]);
  });

  it("uses the tenant's model settings over the service's", async () => {
    const env = asEnv({
      MODEL_BASE_URL: "https://models.example.test/v1",
      MODEL_NAME: "service-model",
      MODEL_API_KEY: "sk-service",
      CREDENTIALS_KEY: "a-credentials-key-of-32-characters",
    });
    const settings = new Map<string, string>();
    await storeModelOverride(env, "acme", fakeTenant(settings), { model: "tenant-model", embeddingModel: "tenant-embeddings" });
    const model = await modelClientFor(env, "acme", fakeTenant(settings));
    expect(model.ok && { model: model.value.model, embeddingModel: model.value.embeddingModel }).toEqual({
      model: "tenant-model",
      embeddingModel: "tenant-embeddings",
    });
  });
});
