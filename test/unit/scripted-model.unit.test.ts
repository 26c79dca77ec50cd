import OpenAI, { APIError, RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import { countTokens, createScriptedModel, hashEmbedding, type ScriptedModel } from "../helpers/scripted-model";

/** The real SDK, talking to the scripted endpoint only. */
function sdkFor(model: ScriptedModel, extra: { maxRetries?: number; timeout?: number } = {}): OpenAI {
  return new OpenAI({
    baseURL: "https://model.example.test/v1",
    apiKey: "sk-scripted-test-key-0123456789",
    organization: null,
    project: null,
    fetch: model.fetch,
    maxRetries: extra.maxRetries ?? 0,
    ...(extra.timeout !== undefined ? { timeout: extra.timeout } : {}),
  });
}

const ask = (sdk: OpenAI, user: string, system = "You are terse.") =>
  sdk.chat.completions.create({
    model: "gpt-test",
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
  });

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
}

describe("scripted model, chat, through the real openai SDK", () => {
  it("answers a matching rule with text in the Chat Completions shape", async () => {
    const model = createScriptedModel({ rules: [{ match: /capital of France/, answer: { text: "Paris." } }] });
    const completion = await ask(sdkFor(model), "What is the capital of France?");

    expect(completion.object).toBe("chat.completion");
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe("gpt-test");
    expect(typeof completion.created).toBe("number");
    const [choice] = completion.choices;
    expect(choice?.message).toMatchObject({ role: "assistant", content: "Paris." });
    expect(choice?.message.tool_calls).toBeUndefined();
    expect(choice?.finish_reason).toBe("stop");
    expect(completion._request_id).toBe("req_scripted_1");
    // The first chat loads the tokenizer that counts usage: more than 30 s on a loaded machine.
  }, 120_000);

  it("answers with tool calls that the SDK exposes as function calls", async () => {
    const model = createScriptedModel({
      rules: [
        {
          match: "weather",
          answer: {
            toolCalls: [
              { name: "get_weather", arguments: { city: "Oslo" } },
              { name: "get_time", arguments: "{}" },
            ],
          },
        },
      ],
    });
    const completion = await sdkFor(model).chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "What is the weather in Oslo?" }],
      tools: [
        { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
        { type: "function", function: { name: "get_time" } },
      ],
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    const calls = choice?.message.tool_calls ?? [];
    expect(calls).toHaveLength(2);
    const [first, second] = calls;
    expect(first?.type).toBe("function");
    if (first?.type !== "function" || second?.type !== "function") throw new Error("expected function tool calls");
    expect(first.function.name).toBe("get_weather");
    expect(JSON.parse(first.function.arguments)).toEqual({ city: "Oslo" });
    expect(second.function.name).toBe("get_time");
    expect(first.id).not.toBe(second.id);
  });

  it("consumes sequential answers in order, then stops matching", async () => {
    const model = createScriptedModel({
      rules: [{ name: "plan", match: /plan/, answers: [{ text: "step 1" }, { text: "step 2" }] }],
    });
    const sdk = sdkFor(model);
    const texts: Array<string | null | undefined> = [];
    texts.push((await ask(sdk, "plan it")).choices[0]?.message.content);
    texts.push((await ask(sdk, "plan it")).choices[0]?.message.content);
    expect(texts).toEqual(["step 1", "step 2"]);
    await expect(ask(sdk, "plan it")).rejects.toThrow(/no rule matched/);
    expect(model.pending()).toEqual([]);
  });

  it("one-shot rules (times: 1) fall through to later rules", async () => {
    const model = createScriptedModel({
      rules: [
        { name: "first", times: 1, answer: { text: "special" } },
        { name: "fallback", answer: { text: "usual" } },
      ],
    });
    const sdk = sdkFor(model);
    expect((await ask(sdk, "a")).choices[0]?.message.content).toBe("special");
    expect((await ask(sdk, "b")).choices[0]?.message.content).toBe("usual");
    expect((await ask(sdk, "c")).choices[0]?.message.content).toBe("usual");
    expect(model.requests.map((r) => r.rule)).toEqual(["first", "fallback", "fallback"]);
  });

  it("function answers see the request, and predicates can match on system prompt and body", async () => {
    const model = createScriptedModel({
      rules: [
        { system: /translator/, answer: (req) => ({ text: req.lastUserMessage.split("").reverse().join("") }) },
        { match: (req) => req.body.temperature === 0, answer: (req) => ({ text: `cold #${req.index}` }) },
      ],
    });
    const sdk = sdkFor(model);
    expect((await ask(sdk, "abc", "You are a translator.")).choices[0]?.message.content).toBe("cba");
    const cold = await sdk.chat.completions.create({
      model: "gpt-test",
      temperature: 0,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(cold.choices[0]?.message.content).toBe("cold #1");
    // Neither rule matches a warm request without the translator prompt.
    await expect(ask(sdk, "abc")).rejects.toThrow(/no rule matched/);
  });

  it("an HTTP error rule surfaces as the SDK's typed error, with the scripted status and body", async () => {
    const model = createScriptedModel({
      rules: [
        { match: "busy", answer: { status: 429, body: { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } } } },
        { match: "broken", answer: { status: 500 } },
      ],
    });
    const sdk = sdkFor(model);
    const rateLimited = await ask(sdk, "busy?").catch((e: unknown) => e);
    expect(rateLimited).toBeInstanceOf(RateLimitError);
    if (!(rateLimited instanceof APIError)) throw new Error("expected an APIError");
    expect(rateLimited.status).toBe(429);
    expect(rateLimited.message).toContain("slow down");
    expect(rateLimited.code).toBe("rate_limit_exceeded");

    const broken = await ask(sdk, "broken?").catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(APIError);
    if (!(broken instanceof APIError)) throw new Error("expected an APIError");
    expect(broken.status).toBe(500);
  });

  it("retryable errors carry retry-after-ms, so the SDK's own retries are instant", async () => {
    const model = createScriptedModel({ rules: [{ answers: [{ status: 503 }, { status: 429 }, { text: "finally" }] }] });
    const started = Date.now();
    const completion = await ask(sdkFor(model, { maxRetries: 2 }), "go");
    expect(completion.choices[0]?.message.content).toBe("finally");
    expect(model.requests.map((r) => r.status)).toEqual([503, 429, 200]);
    // The SDK's default backoff for two retries is at least 0.375 s + 0.75 s.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("an unmatched request is a 500 naming the last user message, and is not retried", async () => {
    const model = createScriptedModel({ rules: [{ name: "weather", match: /weather/, answer: { text: "sunny" } }] });
    const error = await ask(sdkFor(model, { maxRetries: 2 }), "Tell me about the stock market").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    if (!(error instanceof APIError)) throw new Error("expected an APIError");
    expect(error.status).toBe(500);
    expect(error.message).toContain("no rule matched");
    expect(error.message).toContain('"Tell me about the stock market"');
    expect(error.message).toContain("Rules: weather");
    expect(model.requests).toHaveLength(1);
  });

  it("records every request: parsed body, path, headers without Authorization", async () => {
    const model = createScriptedModel({ rules: [{ answer: { text: "ok" } }] });
    await ask(sdkFor(model), "Find movies by Nolan", "You plan API calls.");
    const [entry] = model.requests;
    expect(entry).toBeDefined();
    if (!entry) return;
    expect(entry.path).toBe("/v1/chat/completions");
    expect(entry.method).toBe("POST");
    expect(entry.kind).toBe("chat");
    expect(entry.lastUserMessage).toBe("Find movies by Nolan");
    expect(entry.systemPrompt).toBe("You plan API calls.");
    expect(entry.body).toMatchObject({ model: "gpt-test", messages: [{ role: "system" }, { role: "user", content: "Find movies by Nolan" }] });
    expect(entry.hadAuthorization).toBe(true);
    expect(Object.keys(entry.headers)).not.toContain("authorization");
    expect(JSON.stringify(entry)).not.toContain("sk-scripted-test-key");
    expect(entry.headers["content-type"]).toContain("application/json");
    expect(entry.status).toBe(200);
  });

  it("reports plausible usage: counted with a real tokenizer, growing with the prompt", async () => {
    const model = createScriptedModel({ rules: [{ answer: { text: "The answer is forty-two." } }] });
    const sdk = sdkFor(model);
    const short = await ask(sdk, "Hi");
    const long = await ask(sdk, "Hi ".repeat(200));
    const s = short.usage;
    const l = long.usage;
    if (!s || !l) throw new Error("usage missing");
    expect(s.prompt_tokens).toBeGreaterThan(0);
    expect(s.completion_tokens).toBe(await countTokens("The answer is forty-two."));
    expect(s.total_tokens).toBe(s.prompt_tokens + s.completion_tokens);
    // 199 more "Hi " repetitions add roughly 199 tokens (and surely more than 100).
    expect(l.prompt_tokens - s.prompt_tokens).toBeGreaterThan(100);
    expect(l.prompt_tokens - s.prompt_tokens).toBeLessThan(450);
    expect(l.completion_tokens).toBe(s.completion_tokens);
  });

  it("serves raw (malformed) answers and can check the API key like a real endpoint", async () => {
    const model = createScriptedModel({ apiKey: "sk-right", rules: [{ answer: { raw: "{not json" } }] });
    const wrongKey = new OpenAI({ baseURL: "https://m.test/v1", apiKey: "sk-wrong", fetch: model.fetch, maxRetries: 0 });
    const denied = await ask(wrongKey, "hi").catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(APIError);
    if (denied instanceof APIError) expect(denied.status).toBe(401);

    const rightKey = new OpenAI({ baseURL: "https://m.test/v1", apiKey: "sk-right", fetch: model.fetch, maxRetries: 0 });
    await expect(ask(rightKey, "hi")).rejects.toBeInstanceOf(SyntaxError);
  });

  it("a hanging answer ends only through the client's timeout", async () => {
    const model = createScriptedModel({ rules: [{ answer: { hang: true } }] });
    const started = Date.now();
    const error = await ask(sdkFor(model, { timeout: 100 }), "hello?").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toMatch(/timed out/i);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("streams text and tool calls as SSE chunks the SDK can assemble", async () => {
    const model = createScriptedModel({
      rules: [
        { user: "story", answer: { text: "Once upon a time there was a tool." } },
        { user: "call", answer: { toolCalls: [{ name: "lookup", arguments: { q: "x" } }] } },
      ],
    });
    const sdk = sdkFor(model);
    const stream = await sdk.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "tell a story" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let pieces = 0;
    let usageTotal = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) {
        text += delta;
        pieces++;
      }
      if (chunk.usage) usageTotal = chunk.usage.total_tokens;
    }
    expect(text).toBe("Once upon a time there was a tool.");
    expect(pieces).toBeGreaterThan(1);
    expect(usageTotal).toBeGreaterThan(0);

    const runner = sdk.chat.completions.stream({ model: "gpt-test", messages: [{ role: "user", content: "call it" }] });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    if (call?.type !== "function") throw new Error("expected a function tool call");
    expect(call.function.name).toBe("lookup");
    expect(JSON.parse(call.function.arguments)).toEqual({ q: "x" });
  });

  it("reset() clears the log and rules added later, and restores initial rules unused", async () => {
    const model = createScriptedModel({ rules: [{ name: "once", times: 1, answer: { text: "first" } }] });
    model.on({ name: "later", answer: { text: "later" } });
    const sdk = sdkFor(model);
    await ask(sdk, "a");
    await ask(sdk, "b");
    expect(model.requests.map((r) => r.rule)).toEqual(["once", "later"]);

    model.reset();
    expect(model.requests).toHaveLength(0);
    expect(model.pending()).toEqual(["once (0/1 used)"]);
    expect((await ask(sdk, "c")).choices[0]?.message.content).toBe("first");
    await expect(ask(sdk, "d")).rejects.toThrow(/no rule matched/);
  });

  it("handle() is the same endpoint as a (Request) => Response handler", async () => {
    const model = createScriptedModel({ rules: [{ answer: { text: "handled" } }] });
    const response = await model.handle(
      new Request("http://model.atc.test/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer k" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      }),
    );
    expect(response.status).toBe(200);
    const body: unknown = await response.json();
    expect(body).toMatchObject({ object: "chat.completion", choices: [{ message: { content: "handled" } }] });

    const unknown = await model.handle(new Request("http://model.atc.test/v1/responses", { method: "POST", body: "{}" }));
    expect(unknown.status).toBe(404);
    const invalid = await model.handle(new Request("http://model.atc.test/v1/chat/completions", { method: "POST", body: JSON.stringify({ model: "m" }) }));
    expect(invalid.status).toBe(400);
  });
});

describe("scripted model, embeddings, through the real openai SDK", () => {
  it("gives deterministic, same-dimension, unit-length vectors (SDK default base64 and float alike)", async () => {
    const model = createScriptedModel({ embeddingDimensions: 32 });
    const sdk = sdkFor(model);
    const texts = ["search movies by title", "get the weather forecast", ""];
    const viaBase64 = await sdk.embeddings.create({ model: "emb-test", input: texts });
    const viaFloat = await sdk.embeddings.create({ model: "emb-test", input: texts, encoding_format: "float" });

    expect(model.requests.map((r) => r.body)).toMatchObject([{ encoding_format: "base64" }, { encoding_format: "float" }]);
    expect(viaBase64.data).toHaveLength(3);
    for (const [i, item] of viaFloat.data.entries()) {
      expect(item.index).toBe(i);
      expect(item.embedding).toHaveLength(32);
      expect(Math.hypot(...item.embedding)).toBeCloseTo(1, 6);
      expect(item.embedding).toEqual(hashEmbedding(texts[i] ?? "", 32));
      // base64 carries float32: equal to float within float32 precision.
      const decoded = viaBase64.data[i]?.embedding ?? [];
      decoded.forEach((v, j) => expect(v).toBeCloseTo(item.embedding[j] ?? NaN, 6));
    }
    const again = await sdk.embeddings.create({ model: "emb-test", input: texts[0] ?? "", encoding_format: "float" });
    expect(again.data[0]?.embedding).toEqual(viaFloat.data[0]?.embedding);
    expect(viaFloat.usage.prompt_tokens).toBe((await countTokens(texts[0] ?? "")) + (await countTokens(texts[1] ?? "")));
  });

  it("makes retrieval meaningful: shared words mean higher similarity", () => {
    const query = hashEmbedding("find a movie by its title", 256);
    const near = hashEmbedding("search movie title", 256);
    const far = hashEmbedding("convert currency exchange rates", 256);
    expect(cosine(query, near)).toBeGreaterThan(cosine(query, far) + 0.2);
  });

  it("honours `dimensions`, and embedding rules can answer or fail", async () => {
    const model = createScriptedModel({
      embeddingRules: [
        { match: "poison", answer: { status: 400, body: { error: { message: "bad input" } } } },
        { match: /fixed/, answer: (req) => ({ vectors: req.inputs.map(() => [1, 0, 0]) }) },
      ],
    });
    const sdk = sdkFor(model);
    const sized = await sdk.embeddings.create({ model: "e", input: ["x"], dimensions: 12, encoding_format: "float" });
    expect(sized.data[0]?.embedding).toHaveLength(12);
    const fixed = await sdk.embeddings.create({ model: "e", input: ["fixed one", "fixed two"], encoding_format: "float" });
    expect(fixed.data.map((d) => d.embedding)).toEqual([
      [1, 0, 0],
      [1, 0, 0],
    ]);
    await expect(sdk.embeddings.create({ model: "e", input: ["poison"] })).rejects.toThrow(/bad input/);
    expect(model.embeddingRequests.map((r) => r.rule)).toEqual([undefined, "#2", "#1"]);
  });
});
