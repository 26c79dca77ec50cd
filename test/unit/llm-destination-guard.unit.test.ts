import { describe, expect, it } from "vitest";
import { createModelClient } from "../../functions/llm/client";
import type { ModelConfig } from "../../functions/llm/config";
import { modelCallOf, type ModelCallFacts } from "../../functions/llm/errors";
import { checkDestination } from "../../functions/tools/safe-call";

/** Reliability item 4: every model and embeddings request passes the guard on every hop. */

const config: ModelConfig = {
  baseUrl: "https://model.tenant-choice.example/v1",
  apiKey: "sk-tenant-key-abcdefghijklmnop",
  model: "m",
  embeddingModel: "e",
  timeoutMs: 5_000,
  sources: { baseUrl: "tenant", apiKey: "tenant", model: "tenant", embeddingModel: "tenant" },
};

const completion = { model: "m", choices: [{ finish_reason: "stop", message: { content: "hi" } }], usage: { prompt_tokens: 1, completion_tokens: 1 } };

/** A public endpoint that redirects to `target`; records every request that left. */
function redirectingEndpoint(target: (path: string) => string) {
  const seen: { url: string; authorization: string | null; body: string }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    seen.push({ url: request.url, authorization: request.headers.get("authorization"), body: await request.text() });
    const url = new URL(request.url);
    if (url.hostname === "model.tenant-choice.example") return new Response(null, { status: 307, headers: { location: target(url.pathname) } });
    return Response.json(url.pathname.endsWith("/embeddings") ? { data: [{ index: 0, embedding: [1, 0] }], usage: { prompt_tokens: 1 } } : completion);
  };
  return { seen, fetchFn };
}

/** The model call's failure: its facts, message and stack. */
async function rejection(promise: Promise<unknown>): Promise<ModelCallFacts & { message: string; stack: string | undefined }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  const model = modelCallOf(error);
  if (model === undefined) throw new Error(`expected a model call's failure, got ${String(error)}`);
  return { ...model, message: (error as Error).message, stack: (error as Error).stack };
}

describe("4. the model client's destination guard", () => {
  for (const target of ["http://10.0.0.1", "http://127.0.0.1:11434", "http://169.254.169.254", "http://[::ffff:10.0.0.1]", "http://metadata"]) {
    it(`refuses a redirect to ${target} for chat and embeddings; the prompt never reaches it`, async () => {
      const { seen, fetchFn } = redirectingEndpoint((path) => `${target}${path}`);
      const client = createModelClient(config, { fetch: fetchFn, maxRetries: 0 });
      const chat = await rejection(client.chat({ purpose: "plan", messages: [{ role: "user", content: "secret plan" }] }));
      expect(chat.kind).toBe("blocked_destination");
      const embed = await rejection(client.embed(["secret text"]));
      expect(embed.kind).toBe("blocked_destination");
      expect(seen.map((s) => new URL(s.url).hostname)).toEqual(["model.tenant-choice.example", "model.tenant-choice.example"]);
    });
  }

  it("does not retry a refused redirect: the endpoint receives the prompt once, with the SDK's retries on", async () => {
    const { seen, fetchFn } = redirectingEndpoint((path) => `http://10.0.0.1${path}`);
    const client = createModelClient(config, { fetch: fetchFn, maxRetries: 2 });
    const chat = await rejection(client.chat({ purpose: "plan", messages: [{ role: "user", content: "secret plan" }] }));
    expect(chat.kind).toBe("blocked_destination");
    expect(chat.retryable).toBe(false);
    expect(seen).toHaveLength(1);
    const embed = await rejection(client.embed(["secret text"]));
    expect(embed.kind).toBe("blocked_destination");
    expect(seen).toHaveLength(2);
  });

  it("still retries a real connection failure, and a caller's abort stays an abort", async () => {
    let attempts = 0;
    const failing: typeof fetch = async () => {
      attempts += 1;
      throw new TypeError("fetch failed");
    };
    const client = createModelClient(config, { fetch: failing, maxRetries: 1 });
    expect((await rejection(client.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }] }))).kind).toBe("connection");
    expect(attempts).toBe(2);
    const aborted = new AbortController();
    aborted.abort();
    expect((await rejection(client.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }], signal: aborted.signal }))).kind).toBe("aborted");
  });

  it("refuses a private base URL before sending anything", async () => {
    const { seen, fetchFn } = redirectingEndpoint(() => "");
    const client = createModelClient({ ...config, baseUrl: "http://192.168.1.20/v1" }, { fetch: fetchFn, maxRetries: 0 });
    expect((await rejection(client.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }] }))).kind).toBe("blocked_destination");
    expect(seen).toEqual([]);
  });

  it("follows a redirect to another public origin without the key", async () => {
    const { seen, fetchFn } = redirectingEndpoint((path) => `https://elsewhere.example${path}`);
    const client = createModelClient(config, { fetch: fetchFn, maxRetries: 0 });
    const answer = await client.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }] });
    expect(answer.content).toBe("hi");
    expect(seen[0]?.authorization).toBe(`Bearer ${config.apiKey}`);
    expect(seen[1]?.url).toBe("https://elsewhere.example/v1/chat/completions");
    expect(seen[1]?.authorization).toBeNull();
    expect(seen[1]?.body).toContain('"model":"m"');
  });

  it("allows this machine's loopback only when the config says so (MODEL_ALLOW_LOOPBACK), never private networks", async () => {
    const { seen, fetchFn } = redirectingEndpoint((path) => `http://10.0.0.1${path}`);
    const local = createModelClient({ ...config, baseUrl: "http://127.0.0.1:11434/v1", allowLoopback: true }, { fetch: fetchFn, maxRetries: 0 });
    expect((await local.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }] })).content).toBe("hi");
    expect(seen.map((s) => new URL(s.url).hostname)).toEqual(["127.0.0.1"]);
    const strict = createModelClient({ ...config, baseUrl: "http://127.0.0.1:11434/v1" }, { fetch: fetchFn, maxRetries: 0 });
    expect((await rejection(strict.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }] }))).kind).toBe("blocked_destination");
    const privateNet = createModelClient({ ...config, baseUrl: "http://10.1.2.3/v1", allowLoopback: true }, { fetch: fetchFn, maxRetries: 0 });
    expect((await rejection(privateNet.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }] }))).kind).toBe("blocked_destination");
    expect(seen).toHaveLength(1);
  });

  it("takes an explicit check", async () => {
    const { seen, fetchFn } = redirectingEndpoint(() => "");
    const loopbackOnly = (url: string) => (new URL(url).hostname === "127.0.0.1" ? { ok: true as const, url: new URL(url) } : checkDestination(url));
    const client = createModelClient({ ...config, baseUrl: "http://127.0.0.1:11434/v1" }, { fetch: fetchFn, maxRetries: 0, destinationCheck: loopbackOnly });
    expect((await client.chat({ purpose: "plan", messages: [{ role: "user", content: "x" }] })).content).toBe("hi");
    expect(seen).toHaveLength(1);
  });
});
