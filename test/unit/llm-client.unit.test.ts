import { afterEach, describe, expect, it, vi } from "vitest";
import { createModelClient, EMBED_BATCH_SIZE, type ModelClientOptions } from "../../functions/llm/client";
import type { ModelConfig } from "../../functions/llm/config";
import { modelCallOf, type ModelCallErrorKind, type ModelCallFacts } from "../../functions/llm/errors";
import { UsageLedger } from "../../functions/llm/usage";
import { countTokens, createScriptedModel, hashEmbedding, type ScriptedModel } from "../helpers/scripted-model";

const API_KEY = "sk-test-secret-key-abcdefghijklmnop";

const config: ModelConfig = {
  baseUrl: "https://model.example.test/v1",
  apiKey: API_KEY,
  model: "gpt-test",
  embeddingModel: "emb-test",
  timeoutMs: 5_000,
  sources: { baseUrl: "env", apiKey: "env", model: "env", embeddingModel: "env" },
};

function clientFor(model: ScriptedModel, options: Omit<ModelClientOptions, "fetch"> = {}, overrides: Partial<ModelConfig> = {}) {
  return createModelClient({ ...config, ...overrides }, { maxRetries: 0, ...options, fetch: model.fetch });
}

/** The model call's failure: its facts, message and stack. */
async function failure(promise: Promise<unknown>): Promise<ModelCallFacts & { message: string; stack: string | undefined }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  const model = modelCallOf(error);
  if (model === undefined) throw new Error(`expected a model call's failure, got ${String(error)}`);
  return { ...model, message: (error as Error).message, stack: (error as Error).stack };
}

const user = (content: string) => [{ role: "user" as const, content }];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("createModelClient().chat", () => {
  it("returns text, usage, model, duration and purpose", async () => {
    const model = createScriptedModel({ apiKey: API_KEY, rules: [{ user: /capital/, answer: { text: "Paris." } }] });
    const result = await clientFor(model).chat({ messages: user("capital of France?"), purpose: "quiz" });

    expect(result.content).toBe("Paris.");
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe("stop");
    expect(result.model).toBe("gpt-test");
    expect(result.purpose).toBe("quiz");
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(result.usage.completionTokens).toBe(await countTokens("Paris."));
    expect(result.usage.totalTokens).toBe(result.usage.promptTokens + result.usage.completionTokens);
  });

  it("sends the configured model and the request options the way the endpoint expects", async () => {
    const model = createScriptedModel({ rules: [{ answer: { text: "{}" } }] });
    await clientFor(model).chat({
      messages: [
        { role: "system", content: "Answer in JSON." },
        { role: "user", content: "list tools" },
      ],
      purpose: "plan",
      temperature: 0.2,
      maxTokens: 64,
      responseFormat: { type: "json_object" },
      tools: [{ type: "function", function: { name: "search", parameters: { type: "object" } } }],
    });
    const [entry] = model.chatRequests;
    expect(entry?.body).toMatchObject({
      model: "gpt-test",
      temperature: 0.2,
      max_tokens: 64,
      response_format: { type: "json_object" },
      tools: [{ type: "function", function: { name: "search" } }],
      messages: [
        { role: "system", content: "Answer in JSON." },
        { role: "user", content: "list tools" },
      ],
    });
    expect(entry?.systemPrompt).toBe("Answer in JSON.");
    expect(entry?.hadAuthorization).toBe(true);
  });

  it("does not forward an ambient OPENAI_ORG_ID / OPENAI_PROJECT_ID to the configured endpoint", async () => {
    vi.stubEnv("OPENAI_ORG_ID", "org-ambient");
    vi.stubEnv("OPENAI_PROJECT_ID", "proj-ambient");
    const model = createScriptedModel({ rules: [{ answer: { text: "ok" } }] });
    await clientFor(model).chat({ messages: user("hi"), purpose: "p" });
    const headers = model.chatRequests[0]?.headers ?? {};
    expect(headers).not.toHaveProperty("openai-organization");
    expect(headers).not.toHaveProperty("openai-project");
    expect(JSON.stringify(headers)).not.toContain("ambient");
  });

  it("omits options that were not given", async () => {
    const model = createScriptedModel({ rules: [{ answer: { text: "ok" } }] });
    await clientFor(model).chat({ messages: user("hi"), purpose: "p", tools: [] });
    const body = model.chatRequests[0]?.body;
    expect(body).toBeDefined();
    expect(Object.keys(body ?? {}).sort()).toEqual(["messages", "model"]);
  });

  it("returns tool calls with names and raw JSON arguments", async () => {
    const model = createScriptedModel({
      rules: [{ answer: { toolCalls: [{ name: "get_movie", arguments: { id: 27205 }, id: "call_a" }], text: "Looking it up." } }],
    });
    const result = await clientFor(model).chat({ messages: user("Inception?"), purpose: "act" });
    expect(result.toolCalls).toEqual([{ id: "call_a", name: "get_movie", arguments: '{"id":27205}' }]);
    expect(result.content).toBe("Looking it up.");
    expect(result.finishReason).toBe("tool_calls");
    expect(result.usage.completionTokens).toBeGreaterThan(await countTokens("Looking it up."));
  });

  it("follows sequential answers across a multi-step exchange, and a function rule sees the tool result", async () => {
    const model = createScriptedModel({
      rules: [
        {
          name: "after-tool",
          match: (req) => req.body.messages.some((m) => m.role === "tool"),
          answer: (req) => {
            const toolMessage = req.body.messages.find((m) => m.role === "tool");
            return { text: `The director is ${String(toolMessage?.content)}.` };
          },
        },
        { name: "first", answers: [{ toolCalls: [{ name: "get_director", arguments: { movie: "Inception" }, id: "c1" }] }] },
      ],
    });
    const client = clientFor(model);
    const first = await client.chat({ messages: user("Who directed Inception?"), purpose: "step-1" });
    expect(first.toolCalls.map((c) => c.name)).toEqual(["get_director"]);
    const second = await client.chat({
      purpose: "step-2",
      messages: [
        ...user("Who directed Inception?"),
        {
          role: "assistant",
          content: null,
          tool_calls: first.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })),
        },
        { role: "tool", tool_call_id: "c1", content: "Christopher Nolan" },
      ],
    });
    expect(second.content).toBe("The director is Christopher Nolan.");
    expect(model.chatRequests[1]?.messages).toEqual([
      { role: "user", text: "Who directed Inception?" },
      { role: "assistant", text: "" },
      { role: "tool", text: "Christopher Nolan" },
    ]);
    expect(model.requests.map((r) => r.rule)).toEqual(["first", "after-tool"]);
  });

  it.each<[number, ModelCallErrorKind, boolean]>([
    [401, "auth", false],
    [403, "auth", false],
    [404, "not_found", false],
    [400, "bad_request", false],
    [422, "bad_request", false],
    [429, "rate_limited", true],
    [500, "server_error", true],
    [503, "server_error", true],
  ])("HTTP %i becomes a model call failure of kind %s", async (status, kind, retryable) => {
    const model = createScriptedModel({ rules: [{ answer: { status } }] });
    const error = await failure(clientFor(model).chat({ messages: user("x"), purpose: "probe" }));
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
    expect(error.purpose).toBe("probe");
    expect(error.message).toBe(`model call "probe" failed: ${kind} (HTTP ${status}): scripted error ${status}`);
  });

  it("uses the SDK's retries before giving up (maxRetries from options)", async () => {
    const model = createScriptedModel({ rules: [{ answer: { status: 500 } }] });
    const error = await failure(clientFor(model, { maxRetries: 2 }).chat({ messages: user("x"), purpose: "p" }));
    expect(error.kind).toBe("server_error");
    expect(model.requests).toHaveLength(3);

    const recovering = createScriptedModel({ rules: [{ answers: [{ status: 429 }, { text: "ok now" }] }] });
    const result = await clientFor(recovering, { maxRetries: 1 }).chat({ messages: user("x"), purpose: "p" });
    expect(result.content).toBe("ok now");
  });

  it("a real endpoint's 401 for a wrong key is an auth error", async () => {
    const model = createScriptedModel({ apiKey: "sk-the-right-one", rules: [{ answer: { text: "never" } }] });
    const error = await failure(clientFor(model).chat({ messages: user("x"), purpose: "p" }));
    expect(error.kind).toBe("auth");
  });

  it("never puts the API key in an error, even when the endpoint echoes it", async () => {
    const model = createScriptedModel({
      rules: [{ answer: { status: 401, body: { error: { message: `Incorrect API key provided: ${API_KEY}`, code: "invalid_api_key" } } } }],
    });
    const error = await failure(clientFor(model).chat({ messages: user("x"), purpose: "p" }));
    expect(error.message).toContain("Incorrect API key provided: ***");
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(String(error.stack)).not.toContain(API_KEY);
  });

  it("times out with kind timeout when the endpoint does not answer", async () => {
    const model = createScriptedModel({ rules: [{ answer: { hang: true } }] });
    const started = Date.now();
    const error = await failure(clientFor(model, {}, { timeoutMs: 100 }).chat({ messages: user("x"), purpose: "p" }));
    expect(error.kind).toBe("timeout");
    expect(error.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("ends a call whose answer stalls after its headers at the call's deadline (body included)", async () => {
    // Headers and the first bytes arrive at once; the rest of the body never does.
    const stalling: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"choices":['));
          },
        }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    const client = createModelClient({ ...config, timeoutMs: 300 }, { fetch: stalling, maxRetries: 0 });
    const started = Date.now();
    const error = await failure(client.chat({ messages: user("x"), purpose: "p" }));
    expect(error.kind).toBe("timeout");
    expect(error.message).toContain("MODEL_TIMEOUT_MS");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("fails at once on a Retry-After beyond the call's deadline, and keeps the wait on the error", async () => {
    const model = createScriptedModel({ rules: [{ answers: [{ status: 429, headers: { "retry-after": "100" } }, { text: "too late" }] }] });
    const started = Date.now();
    const error = await failure(clientFor(model, { maxRetries: 2 }, { timeoutMs: 5_000 }).chat({ messages: user("x"), purpose: "p" }));
    expect(error.kind).toBe("rate_limited");
    expect(error.retryAfterSeconds).toBe(100);
    expect(model.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("still obeys a Retry-After the call can afford", async () => {
    const model = createScriptedModel({ rules: [{ answers: [{ status: 429, headers: { "retry-after-ms": "10" } }, { text: "ok now" }] }] });
    const result = await clientFor(model, { maxRetries: 1 }).chat({ messages: user("x"), purpose: "p" });
    expect(result.content).toBe("ok now");
    expect(model.requests).toHaveLength(2);
  });

  it("reports the caller's abort as kind aborted", async () => {
    const model = createScriptedModel({ rules: [{ answer: { hang: true } }] });
    const controller = new AbortController();
    const pending = clientFor(model).chat({ messages: user("x"), purpose: "p", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await failure(pending)).kind).toBe("aborted");
  });

  it("reports connection failures as kind connection", async () => {
    const failing: typeof fetch = async () => {
      throw new TypeError("fetch failed");
    };
    const client = createModelClient(config, { fetch: failing, maxRetries: 0 });
    expect((await failure(client.chat({ messages: user("x"), purpose: "p" }))).kind).toBe("connection");
  });

  it.each([
    ["not JSON", { raw: "<html>Bad Gateway</html>", contentType: "application/json" }],
    ["not a completion", { raw: JSON.stringify({ hello: "world" }) }],
    ["no choices", { raw: JSON.stringify({ choices: [] }) }],
    ["plain text", { raw: "I am not an API", contentType: "text/plain" }],
  ])("a malformed answer (%s) is kind malformed_response", async (_label, answer) => {
    const model = createScriptedModel({ rules: [{ answer }] });
    const error = await failure(clientFor(model).chat({ messages: user("x"), purpose: "p" }));
    expect(error.kind).toBe("malformed_response");
    expect(error.retryable).toBe(false);
  });
});

describe("createModelClient().embed", () => {
  it("returns one vector per text, in order, with usage", async () => {
    const model = createScriptedModel({ embeddingDimensions: 16 });
    const client = clientFor(model);
    const texts = ["alpha beta", "gamma", "alpha beta"];
    const result = await client.embed(texts, { purpose: "index-tools" });
    expect(result.vectors).toEqual(texts.map((t) => hashEmbedding(t, 16)));
    expect(result.vectors[0]).toEqual(result.vectors[2]);
    expect(result.model).toBe("emb-test");
    expect(result.purpose).toBe("index-tools");
    expect(result.usage.promptTokens).toBe((await countTokens("alpha beta")) * 2 + (await countTokens("gamma")));
    expect(result.usage.completionTokens).toBe(0);
    expect(model.embeddingRequests[0]?.body).toMatchObject({ model: "emb-test", encoding_format: "float", input: texts });
  });

  it("splits large inputs into batches and keeps the order", async () => {
    const model = createScriptedModel({ embeddingDimensions: 8 });
    const texts = Array.from({ length: EMBED_BATCH_SIZE + 5 }, (_, i) => `tool number ${i}`);
    const result = await clientFor(model).embed(texts);
    expect(model.embeddingRequests).toHaveLength(2);
    expect(result.vectors).toHaveLength(texts.length);
    expect(result.vectors[EMBED_BATCH_SIZE + 4]).toEqual(hashEmbedding(`tool number ${EMBED_BATCH_SIZE + 4}`, 8));
  });

  it("makes no call for no texts", async () => {
    const model = createScriptedModel();
    const result = await clientFor(model).embed([]);
    expect(result.vectors).toEqual([]);
    expect(result.usage.totalTokens).toBe(0);
    expect(model.requests).toHaveLength(0);
  });

  it("is disabled without an embedding model, without calling the endpoint", async () => {
    const model = createScriptedModel();
    const client = clientFor(model, {}, { embeddingModel: undefined });
    expect(client.canEmbed).toBe(false);
    expect((await failure(client.embed(["x"]))).kind).toBe("embeddings_disabled");
    expect(model.requests).toHaveLength(0);
  });

  it("rejects vectors of different dimensions and missing vectors as malformed", async () => {
    const model = createScriptedModel({
      embeddingRules: [
        {
          match: "ragged",
          answer: {
            vectors: [
              [1, 0],
              [1, 0, 0],
            ],
          },
        },
        { match: "short", answer: { vectors: [[1, 0]] } },
      ],
    });
    const client = clientFor(model);
    expect((await failure(client.embed(["ragged a", "ragged b"]))).kind).toBe("malformed_response");
    expect((await failure(client.embed(["short a", "short b"]))).kind).toBe("malformed_response");
  });

  it("maps embedding endpoint errors like chat errors", async () => {
    const model = createScriptedModel({ embeddingRules: [{ answer: { status: 429 } }] });
    expect((await failure(clientFor(model).embed(["x"]))).kind).toBe("rate_limited");
  });
});

describe("UsageLedger with a model client", () => {
  it("records usage per call and in total, by purpose, failures included", async () => {
    const model = createScriptedModel({
      rules: [{ user: "fail", answer: { status: 400 } }, { answer: (req) => ({ text: `echo ${req.lastUserMessage}` }) }],
    });
    const ledger = new UsageLedger();
    const client = clientFor(model, { ledger });
    const a = await client.chat({ messages: user("first question"), purpose: "plan" });
    const b = await client.chat({ messages: user("second, much longer question ".repeat(10)), purpose: "plan" });
    const c = await client.embed(["doc one", "doc two"], { purpose: "index" });
    await failure(client.chat({ messages: user("fail please"), purpose: "check" }));

    const entries = ledger.entries;
    expect(entries.map((e) => [e.seq, e.operation, e.purpose, e.ok])).toEqual([
      [1, "chat", "plan", true],
      [2, "chat", "plan", true],
      [3, "embed", "index", true],
      [4, "chat", "check", false],
    ]);
    expect(entries[0]?.usage).toEqual(a.usage);
    expect(entries[1]?.usage).toEqual(b.usage);
    expect(entries[2]?.usage).toEqual(c.usage);
    expect(entries[3]?.errorKind).toBe("bad_request");
    expect(b.usage.promptTokens).toBeGreaterThan(a.usage.promptTokens);

    const total = ledger.total;
    expect(total.calls).toBe(4);
    expect(total.failedCalls).toBe(1);
    expect(total.promptTokens).toBe(a.usage.promptTokens + b.usage.promptTokens + c.usage.promptTokens);
    expect(total.completionTokens).toBe(a.usage.completionTokens + b.usage.completionTokens);
    expect(total.totalTokens).toBe(total.promptTokens + total.completionTokens);

    const byPurpose = ledger.byPurpose();
    expect(Object.keys(byPurpose).sort()).toEqual(["check", "index", "plan"]);
    expect(byPurpose["plan"]?.totalTokens).toBe(a.usage.totalTokens + b.usage.totalTokens);
    expect(byPurpose["check"]).toMatchObject({ calls: 1, failedCalls: 1, totalTokens: 0 });

    const summary: unknown = JSON.parse(JSON.stringify(ledger));
    expect(summary).toMatchObject({ total: { calls: 4 }, calls: [{ seq: 1 }, { seq: 2 }, { seq: 3 }, { seq: 4 }] });
  });

  it("keeps odd purposes as plain keys", () => {
    const ledger = new UsageLedger();
    ledger.record({
      operation: "chat",
      purpose: "__proto__",
      model: "m",
      ok: true,
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
      durationMs: 1,
    });
    const byPurpose = ledger.byPurpose();
    expect(Object.keys(byPurpose)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(byPurpose)).toBe(Object.prototype);
  });
});
