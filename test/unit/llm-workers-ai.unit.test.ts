import { describe, expect, it } from "vitest";
import { createModelClient, modelTransport } from "../../functions/llm/client";
import { modelCallOf } from "../../functions/llm/errors";
import { resolveModelConfig, type ModelConfig } from "../../functions/llm/config";
import type { AiRunner } from "../../functions/llm/workers-ai";

/** A stand-in for the `AI` binding that records what it was asked and answers like Workers AI. */
function fakeAi(
  answer: (model: string, inputs: Record<string, unknown>) => unknown,
): AiRunner & { calls: { model: string; inputs: Record<string, unknown> }[] } {
  const calls: { model: string; inputs: Record<string, unknown> }[] = [];
  return {
    calls,
    async run(model, inputs) {
      calls.push({ model, inputs });
      return answer(model, inputs);
    },
  };
}

function bindingConfig(ai: AiRunner | undefined): ModelConfig {
  const resolved = resolveModelConfig({
    MODEL_BASE_URL: "workers-ai",
    MODEL_NAME: "@cf/qwen/qwen2.5-coder-32b-instruct",
    EMBEDDING_MODEL: "@cf/baai/bge-base-en-v1.5",
    AI: ai,
  });
  if (!resolved.ok) throw new Error(resolved.message);
  return resolved.config;
}

describe("Workers AI through its binding", () => {
  it("needs no API key, only the binding", () => {
    expect(resolveModelConfig({ MODEL_BASE_URL: "workers-ai", MODEL_NAME: "@cf/x" })).toMatchObject({
      ok: false,
      missing: [expect.stringContaining("AI binding")],
    });
    expect(resolveModelConfig({ MODEL_BASE_URL: "workers-ai", MODEL_NAME: "@cf/x", AI: fakeAi(() => ({})) }).ok).toBe(true);
    // Anything else still needs a key, and a tenant cannot name the binding as its endpoint.
    expect(resolveModelConfig({ MODEL_BASE_URL: "https://api.openai.com/v1", MODEL_NAME: "gpt-4o-mini", AI: fakeAi(() => ({})) }).ok).toBe(false);
  });

  it("answers chat calls with the model's text, tool calls and usage", async () => {
    const ai = fakeAi(() => ({
      response: "```ts\nreturn 1;\n```",
      tool_calls: [{ name: "getSearchPerson", arguments: { query: "Bradley Cooper" } }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    }));
    const config = bindingConfig(ai);
    const client = createModelClient(config, { fetch: modelTransport({ AI: ai }, config), maxRetries: 0 });
    const answer = await client.chat({ purpose: "generate", messages: [{ role: "user", content: "How many movies?" }], temperature: 0, maxTokens: 100 });
    expect(answer.content).toContain("return 1;");
    expect(answer.toolCalls).toEqual([{ id: "call_0", name: "getSearchPerson", arguments: '{"query":"Bradley Cooper"}' }]);
    expect(answer.usage).toMatchObject({ promptTokens: 12, completionTokens: 5, totalTokens: 17 });
    expect(ai.calls[0]).toMatchObject({
      model: "@cf/qwen/qwen2.5-coder-32b-instruct",
      inputs: { messages: [{ role: "user", content: "How many movies?" }], temperature: 0, max_tokens: 100 },
    });
  });

  it("passes through models that already answer in OpenAI's shape", async () => {
    const ai = fakeAi(() => ({
      id: "x",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "hello" } }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }));
    const config = bindingConfig(ai);
    const answer = await createModelClient(config, { fetch: modelTransport({ AI: ai }, config), maxRetries: 0 }).chat({
      purpose: "p",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(answer.content).toBe("hello");
  });

  it("answers embeddings calls in input order", async () => {
    const ai = fakeAi((_model, inputs) => ({ shape: [2, 3], data: (inputs.text as string[]).map((t) => [t.length, 0, 1]) }));
    const config = bindingConfig(ai);
    const result = await createModelClient(config, { fetch: modelTransport({ AI: ai }, config), maxRetries: 0 }).embed(["ab", "abcd"]);
    expect(result.vectors).toEqual([
      [2, 0, 1],
      [4, 0, 1],
    ]);
    expect(ai.calls[0]?.model).toBe("@cf/baai/bge-base-en-v1.5");
  });

  it("turns a failed run into a model-call error that names Workers AI", async () => {
    const ai = fakeAi(() => {
      throw new Error("5007: No such model @cf/nope");
    });
    const config = bindingConfig(ai);
    const client = createModelClient(config, { fetch: modelTransport({ AI: ai }, config), maxRetries: 0 });
    const failed = await client.chat({ purpose: "p", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(modelCallOf(failed)).toMatchObject({ kind: "server_error" });
    expect(failed).toMatchObject({ message: expect.stringContaining("No such model") });
  });
});
