import type { Tiktoken } from "js-tiktoken/lite";
import { z } from "zod";

/**
 * A scripted OpenAI-compatible endpoint for tests: no model is reachable from here, so tests
 * drive the real `openai` SDK against this through an injected fetch (or a Miniflare
 * outboundService / service binding via `handle`). Tests add rules that pick an answer for
 * each chat request; embeddings default to a deterministic hashed bag of words.
 */

// ---------------------------------------------------------------------------------------------
// Answers

interface AnswerTiming {
  /** Wait this long before answering (aborts still end the wait). */
  delayMs?: number;
}

export interface ScriptedToolCall {
  name: string;
  /** JSON text, or an object that is serialised for you. */
  arguments?: string | Record<string, unknown>;
  id?: string;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface TextAnswer extends AnswerTiming {
  text: string;
  finishReason?: FinishReason;
  /** Model name to report; defaults to the requested one. */
  model?: string;
}

export interface ToolCallsAnswer extends AnswerTiming {
  toolCalls: ScriptedToolCall[];
  /** Optional text alongside the calls. */
  text?: string;
  model?: string;
}

/** An HTTP error. `body` defaults to OpenAI's `{ error: { message, type, code } }` shape. */
export interface HttpErrorAnswer extends AnswerTiming {
  status: number;
  /** Object: sent as JSON. String: sent as is (text/plain). */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Any bytes at all, for malformed-answer tests. */
export interface RawAnswer extends AnswerTiming {
  raw: string;
  status?: number;
  contentType?: string;
}

/** Never answers; only the client's timeout or abort ends the request. */
export interface HangAnswer {
  hang: true;
}

export type ChatAnswer = TextAnswer | ToolCallsAnswer | HttpErrorAnswer | RawAnswer | HangAnswer;

export interface VectorsAnswer extends AnswerTiming {
  /** One vector per input, in input order. */
  vectors: number[][];
}

export type EmbeddingsAnswer = VectorsAnswer | HttpErrorAnswer | RawAnswer | HangAnswer;

// ---------------------------------------------------------------------------------------------
// Requests as rules and tests see them

const WireMessage = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  name: z.string().optional(),
  tool_calls: z.array(z.unknown()).optional(),
  tool_call_id: z.string().optional(),
});

const ChatBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(WireMessage).min(1),
  tools: z.array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).optional() })).optional(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().nullish(),
  max_tokens: z.number().nullish(),
  max_completion_tokens: z.number().nullish(),
  response_format: z.unknown().optional(),
});
export type ChatRequestBody = z.infer<typeof ChatBody>;

const EmbeddingsBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string())]),
  dimensions: z.number().int().positive().max(8192).optional(),
  encoding_format: z.enum(["float", "base64"]).optional(),
});
export type EmbeddingsRequestBody = z.infer<typeof EmbeddingsBody>;

export interface ScriptedChatRequest {
  body: ChatRequestBody;
  model: string;
  /** Text of the last `user` message ("" when none). */
  lastUserMessage: string;
  /** Text of all system/developer messages, joined by newlines. */
  systemPrompt: string;
  /** Names of the function tools offered. */
  toolNames: string[];
  stream: boolean;
  /** 0-based index among chat requests since the last reset. */
  index: number;
  headers: Record<string, string>;
}

export interface ScriptedEmbeddingsRequest {
  body: EmbeddingsRequestBody;
  model: string;
  inputs: string[];
  dimensions: number;
  index: number;
  headers: Record<string, string>;
}

export interface RecordedRequest {
  /** 1-based, across all requests since the last reset. */
  seq: number;
  method: string;
  url: string;
  path: string;
  kind: "chat" | "embeddings" | "other";
  /** Lower-cased names; Authorization is left out. */
  headers: Record<string, string>;
  /** Whether an Authorization header was sent (its value is never kept). */
  hadAuthorization: boolean;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  lastUserMessage?: string;
  systemPrompt?: string;
  /** Chat only: the conversation as role + text, for asserting on whole prompts. */
  messages?: Array<{ role: string; text: string }>;
  /** Embeddings only: the input texts. */
  inputs?: string[];
  /** The rule that answered (its name, or `#n` by position); undefined when none did. */
  rule?: string;
  status?: number;
}

// ---------------------------------------------------------------------------------------------
// Rules

type AnswerFn<Req, A> = (request: Req) => A | Promise<A>;

interface RuleBase<Req, A> {
  name?: string;
  /** Function: predicate over the request. RegExp/string: tested against the request's main text. */
  match?: RegExp | string | ((request: Req) => boolean);
  /** The same answer every time (or a function computing it). */
  answer?: A | AnswerFn<Req, A>;
  /** Answers consumed in order; the last one repeats if `times` allows more uses. */
  answers?: Array<A | AnswerFn<Req, A>>;
  /** Maximum uses; default unlimited for `answer`, the list's length for `answers`. */
  times?: number;
}

export interface ChatRule extends RuleBase<ScriptedChatRequest, ChatAnswer> {
  /** RegExp/string tested against the system prompt text. */
  system?: RegExp | string;
  /** RegExp/string tested against the last user message (same as a RegExp `match`). */
  user?: RegExp | string;
}

/** `match` RegExp/string: tested against each input; the rule matches if any input does. */
export type EmbeddingsRule = RuleBase<ScriptedEmbeddingsRequest, EmbeddingsAnswer>;

interface RuleState<R> {
  rule: R;
  label: string;
  uses: number;
  limit: number;
}

function ruleState<R extends RuleBase<never, unknown>>(rule: R, position: number): RuleState<R> {
  if (rule.answer === undefined && (rule.answers === undefined || rule.answers.length === 0)) {
    throw new Error(`scripted model: rule ${rule.name ?? `#${position}`} has neither answer nor answers`);
  }
  const limit = rule.times ?? (rule.answers ? rule.answers.length : Number.POSITIVE_INFINITY);
  return { rule, label: rule.name ?? `#${position}`, uses: 0, limit };
}

function textMatches(pattern: RegExp | string, text: string): boolean {
  if (typeof pattern === "string") return text.includes(pattern);
  pattern.lastIndex = 0; // a /g or /y pattern would otherwise remember the last test
  return pattern.test(text);
}

function isAnswerFn<Req, A>(value: A | AnswerFn<Req, A>): value is AnswerFn<Req, A> {
  return typeof value === "function";
}

async function takeAnswer<Req, A>(state: RuleState<RuleBase<Req, A>>, request: Req): Promise<A> {
  const { rule } = state;
  const list = rule.answers;
  const next = list && list.length > 0 ? list[Math.min(state.uses, list.length - 1)] : rule.answer;
  state.uses += 1;
  if (next === undefined) throw new Error(`scripted model: rule ${state.label} has no answer`);
  return isAnswerFn(next) ? await next(request) : next;
}

// ---------------------------------------------------------------------------------------------
// Tokens and embeddings

export type TokenEncoding = "o200k_base" | "cl100k_base";

const encoders = new Map<TokenEncoding, Promise<Tiktoken>>();

/** Loaded lazily and once per process: building an encoder takes about a second. */
function encoder(name: TokenEncoding): Promise<Tiktoken> {
  let loaded = encoders.get(name);
  if (!loaded) {
    loaded = (async () => {
      const { Tiktoken } = await import("js-tiktoken/lite");
      const ranks = name === "o200k_base" ? (await import("js-tiktoken/ranks/o200k_base")).default : (await import("js-tiktoken/ranks/cl100k_base")).default;
      return new Tiktoken(ranks);
    })();
    encoders.set(name, loaded);
  }
  return loaded;
}

/** Tokens in a text, with special-token strings counted as ordinary text. */
export async function countTokens(text: string, encoding: TokenEncoding = "o200k_base"): Promise<number> {
  return (await encoder(encoding)).encode(text, [], []).length;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Deterministic text embedding: a signed, hashed bag of lower-cased words, L2-normalised.
 * Texts sharing words get a high cosine similarity, so retrieval tests mean something.
 */
export function hashEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  // An empty text still gets a unit vector, in a bucket of its own.
  for (const word of words.length > 0 ? words : ["\u0000empty"]) {
    const bucket = fnv1a(word) % dimensions;
    const sign = fnv1a(`${word}\u0000sign`) & 1 ? 1 : -1;
    vector[bucket] = (vector[bucket] ?? 0) + sign;
  }
  const norm = Math.hypot(...vector);
  // Colliding words with opposite signs can cancel out; fall back to the first bucket.
  if (norm === 0) return vector.map((_, i) => (i === 0 ? 1 : 0));
  return vector.map((v) => v / norm);
}

/** Float32 little-endian, as OpenAI sends `encoding_format: "base64"` and the SDK decodes it. */
function toBase64Float32(vector: number[]): string {
  const bytes = new Uint8Array(new Float32Array(vector).buffer);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

// ---------------------------------------------------------------------------------------------
// The endpoint

export interface ScriptedModelOptions {
  rules?: ChatRule[];
  embeddingRules?: EmbeddingsRule[];
  /** Embedding size when the request gives no `dimensions`. Default 64. */
  embeddingDimensions?: number;
  /** Replaces the default hashed bag of words. */
  embed?: (text: string, dimensions: number) => number[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401, as a real endpoint would. */
  apiKey?: string;
  /** Model name to report instead of the requested one. */
  model?: string;
  /** Tokenizer for usage figures. Default o200k_base. */
  encoding?: TokenEncoding;
  /**
   * Sent as `retry-after-ms` on retryable errors (408/409/429/5xx) unless the answer sets its
   * own headers, so the SDK's retries do not slow tests down. Default 0; null sends none.
   */
  retryAfterMs?: number | null;
}

/**
 * What handle() reads from a request. Structural, so that both the global Request and
 * Miniflare's own Request class (a different type) can be passed without casts.
 */
export interface RequestLike {
  readonly url: string;
  readonly method: string;
  readonly headers: { get(name: string): string | null; forEach(callback: (value: string, name: string) => void): void };
  readonly signal?: AbortSignal | null;
  text(): Promise<string>;
}

export interface ScriptedModel {
  /** Hand this to the SDK: `new OpenAI({ fetch: model.fetch, … })`. */
  readonly fetch: typeof fetch;
  /** The same endpoint as a handler, for Miniflare's outboundService or a service binding. */
  handle(request: RequestLike): Promise<Response>;
  /** Every request since the last reset, in order. */
  readonly requests: readonly RecordedRequest[];
  readonly chatRequests: readonly RecordedRequest[];
  readonly embeddingRequests: readonly RecordedRequest[];
  /** Adds a chat rule after those already present (first match wins). */
  on(rule: ChatRule): void;
  onEmbeddings(rule: EmbeddingsRule): void;
  /** Labels of rules with a use limit that were not used up: answers a test scripted but never got asked for. */
  pending(): string[];
  /** Clears the log, drops rules added with on()/onEmbeddings(), and restores the initial rules unused. */
  reset(): void;
}

const CHAT_PATH = /\/chat\/completions\/?$/;
const EMBEDDINGS_PATH = /\/embeddings\/?$/;
const PREVIEW_CHARS = 300;

function preview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "object" && part !== null && "text" in part && typeof part.text === "string") parts.push(part.text);
  }
  return parts.join("\n");
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function openAiError(status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}) {
  return json(status, { error: { message, type, param: null, code } }, headers);
}

const ERROR_TYPES: Record<number, [string, string]> = {
  400: ["invalid_request_error", "invalid_request"],
  401: ["invalid_request_error", "invalid_api_key"],
  403: ["invalid_request_error", "permission_denied"],
  404: ["invalid_request_error", "model_not_found"],
  429: ["requests", "rate_limit_exceeded"],
};

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Waits, unless the request is aborted first (then rejects with the abort reason, as fetch does). */
function wait(ms: number | undefined, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      if (timer !== undefined) clearTimeout(timer);
      reject(signal.reason);
    };
    const timer =
      ms === undefined
        ? undefined
        : setTimeout(() => {
            signal.removeEventListener("abort", onAbort);
            resolve();
          }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function createScriptedModel(options: ScriptedModelOptions = {}): ScriptedModel {
  const tokenEncoding = options.encoding ?? "o200k_base";
  const defaultDimensions = options.embeddingDimensions ?? 64;
  const embedText = options.embed ?? hashEmbedding;
  const retryAfterMs = options.retryAfterMs === undefined ? 0 : options.retryAfterMs;

  let chatRules: RuleState<ChatRule>[] = [];
  let embeddingRules: RuleState<EmbeddingsRule>[] = [];
  let log: RecordedRequest[] = [];
  let chatIndex = 0;
  let embeddingsIndex = 0;

  function reset(): void {
    chatRules = (options.rules ?? []).map((r, i) => ruleState(r, i + 1));
    embeddingRules = (options.embeddingRules ?? []).map((r, i) => ruleState(r, i + 1));
    log = [];
    chatIndex = 0;
    embeddingsIndex = 0;
  }
  reset();

  const tokens = (text: string) => countTokens(text, tokenEncoding);

  /** OpenAI's documented estimate: 3 tokens per message, role and content, 3 to prime the reply. */
  async function promptTokens(body: ChatRequestBody): Promise<number> {
    let total = 3;
    for (const message of body.messages) {
      total += 3 + (await tokens(message.role)) + (await tokens(textOf(message.content)));
      if (message.name) total += 1 + (await tokens(message.name));
      if (message.tool_calls) total += await tokens(JSON.stringify(message.tool_calls));
    }
    if (body.tools && body.tools.length > 0) total += await tokens(JSON.stringify(body.tools));
    return total;
  }

  function errorResponse(answer: HttpErrorAnswer): Response {
    const headers: Record<string, string> = {};
    if (retryAfterMs !== null && isRetryableStatus(answer.status) && !answer.headers) {
      headers["retry-after-ms"] = String(retryAfterMs);
    }
    Object.assign(headers, answer.headers);
    if (typeof answer.body === "string") {
      return new Response(answer.body, { status: answer.status, headers: { "content-type": "text/plain", ...headers } });
    }
    if (answer.body !== undefined) return json(answer.status, answer.body, headers);
    const [type, code] = ERROR_TYPES[answer.status] ?? (answer.status >= 500 ? ["server_error", "server_error"] : ["invalid_request_error", "error"]);
    return openAiError(answer.status, `scripted error ${answer.status}`, type, code, headers);
  }

  function rawResponse(answer: RawAnswer): Response {
    return new Response(answer.raw, {
      status: answer.status ?? 200,
      headers: { "content-type": answer.contentType ?? "application/json" },
    });
  }

  function pickRule<R extends RuleBase<Req, unknown>, Req>(
    states: RuleState<R>[],
    request: Req,
    extra: (rule: R) => boolean,
    mainText: (pattern: RegExp | string) => boolean,
  ): RuleState<R> | undefined {
    return states.find((state) => {
      if (state.uses >= state.limit) return false;
      const { match } = state.rule;
      if (typeof match === "function" && !match(request)) return false;
      if (match !== undefined && typeof match !== "function" && !mainText(match)) return false;
      return extra(state.rule);
    });
  }

  async function answerChat(signal: AbortSignal, entry: RecordedRequest, raw: unknown): Promise<Response> {
    const parsed = ChatBody.safeParse(raw);
    if (!parsed.success) {
      return openAiError(400, `scripted model: not a chat completions request: ${z.prettifyError(parsed.error)}`, "invalid_request_error", null);
    }
    const body = parsed.data;
    const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
    const chatRequest: ScriptedChatRequest = {
      body,
      model: body.model,
      lastUserMessage: lastUser ? textOf(lastUser.content) : "",
      systemPrompt: body.messages
        .filter((m) => m.role === "system" || m.role === "developer")
        .map((m) => textOf(m.content))
        .join("\n"),
      toolNames: (body.tools ?? []).flatMap((t) => (t.function ? [t.function.name] : [])),
      stream: body.stream === true,
      index: chatIndex++,
      headers: entry.headers,
    };
    entry.lastUserMessage = chatRequest.lastUserMessage;
    entry.systemPrompt = chatRequest.systemPrompt;
    entry.messages = body.messages.map((m) => ({ role: m.role, text: textOf(m.content) }));

    const state = pickRule(
      chatRules,
      chatRequest,
      (rule) =>
        (rule.system === undefined || textMatches(rule.system, chatRequest.systemPrompt)) &&
        (rule.user === undefined || textMatches(rule.user, chatRequest.lastUserMessage)),
      (pattern) => textMatches(pattern, chatRequest.lastUserMessage),
    );
    if (!state) {
      const rules = chatRules.map((s) => `${s.label}${s.uses >= s.limit ? " (used up)" : ""}`).join(", ") || "none";
      return openAiError(
        500,
        `scripted model: no rule matched this chat request. Last user message: ${JSON.stringify(preview(chatRequest.lastUserMessage))}. ` +
          `System prompt: ${JSON.stringify(preview(chatRequest.systemPrompt))}. Rules: ${rules}.`,
        "scripted_model_unmatched",
        "no_rule_matched",
        // Retrying cannot help and would only repeat this request in the log.
        { "x-should-retry": "false" },
      );
    }
    entry.rule = state.label;
    const answer = await takeAnswer(state, chatRequest);

    if ("hang" in answer) {
      await wait(undefined, signal);
      throw new Error("unreachable: a hang only ends by abort");
    }
    await wait(answer.delayMs ?? 0, signal);
    if ("raw" in answer) return rawResponse(answer);
    if ("status" in answer) return errorResponse(answer);

    const model = answer.model ?? options.model ?? body.model;
    const toolCalls =
      "toolCalls" in answer
        ? answer.toolCalls.map((call, i) => ({
            id: call.id ?? `call_${entry.seq}_${i}`,
            type: "function" as const,
            function: {
              name: call.name,
              arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
            },
          }))
        : [];
    const content = "toolCalls" in answer ? (answer.text ?? null) : answer.text;
    const finishReason: FinishReason = toolCalls.length > 0 ? "tool_calls" : "finishReason" in answer && answer.finishReason ? answer.finishReason : "stop";

    const prompt = await promptTokens(body);
    let completion = await tokens(content ?? "");
    for (const call of toolCalls) completion += 3 + (await tokens(call.function.name)) + (await tokens(call.function.arguments));
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    const id = `chatcmpl-scripted-${entry.seq}`;
    const created = Math.floor(Date.now() / 1000);
    const headers = { "x-request-id": `req_scripted_${entry.seq}` };

    if (chatRequest.stream) {
      const includeUsage = body.stream_options?.include_usage === true;
      return sse(streamChunks({ id, created, model, content, toolCalls, finishReason, usage: includeUsage ? usage : null }), headers);
    }
    return json(
      200,
      {
        id,
        object: "chat.completion",
        created,
        model,
        system_fingerprint: "fp_scripted",
        service_tier: "default",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content,
              refusal: null,
              annotations: [],
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
      },
      headers,
    );
  }

  async function answerEmbeddings(signal: AbortSignal, entry: RecordedRequest, raw: unknown): Promise<Response> {
    const parsed = EmbeddingsBody.safeParse(raw);
    if (!parsed.success) {
      return openAiError(400, `scripted model: not an embeddings request (text input only): ${z.prettifyError(parsed.error)}`, "invalid_request_error", null);
    }
    const body = parsed.data;
    const inputs = typeof body.input === "string" ? [body.input] : body.input;
    const embeddingsRequest: ScriptedEmbeddingsRequest = {
      body,
      model: body.model,
      inputs,
      dimensions: body.dimensions ?? defaultDimensions,
      index: embeddingsIndex++,
      headers: entry.headers,
    };
    entry.inputs = inputs;

    const state = pickRule(
      embeddingRules,
      embeddingsRequest,
      () => true,
      (pattern) => inputs.some((input) => textMatches(pattern, input)),
    );
    let vectors: number[][];
    if (state) {
      entry.rule = state.label;
      const answer = await takeAnswer(state, embeddingsRequest);
      if ("hang" in answer) {
        await wait(undefined, signal);
        throw new Error("unreachable: a hang only ends by abort");
      }
      await wait(answer.delayMs ?? 0, signal);
      if ("raw" in answer) return rawResponse(answer);
      if ("status" in answer) return errorResponse(answer);
      vectors = answer.vectors;
    } else {
      vectors = inputs.map((input) => embedText(input, embeddingsRequest.dimensions));
    }

    let promptTotal = 0;
    for (const input of inputs) promptTotal += await tokens(input);
    const base64 = body.encoding_format === "base64";
    return json(
      200,
      {
        object: "list",
        data: vectors.map((vector, index) => ({
          object: "embedding",
          index,
          embedding: base64 ? toBase64Float32(vector) : vector,
        })),
        model: options.model ?? body.model,
        usage: { prompt_tokens: promptTotal, total_tokens: promptTotal },
      },
      { "x-request-id": `req_scripted_${entry.seq}` },
    );
  }

  async function handle(request: RequestLike): Promise<Response> {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      if (name.toLowerCase() !== "authorization") headers[name.toLowerCase()] = value;
    });
    const text = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
    let body: unknown = text;
    let isJson = false;
    try {
      body = text ? JSON.parse(text) : undefined;
      isJson = true;
    } catch {
      // kept as text; answered with a 400 below
    }
    const kind = CHAT_PATH.test(url.pathname) ? "chat" : EMBEDDINGS_PATH.test(url.pathname) ? "embeddings" : "other";
    const entry: RecordedRequest = {
      seq: log.length + 1,
      method: request.method,
      url: request.url,
      path: url.pathname,
      kind,
      headers,
      hadAuthorization: request.headers.get("authorization") !== null,
      body,
    };
    log.push(entry);

    const response = await (async () => {
      if (options.apiKey !== undefined && request.headers.get("authorization") !== `Bearer ${options.apiKey}`) {
        return openAiError(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      }
      if (kind === "other" || request.method !== "POST") {
        return openAiError(404, `scripted model: no endpoint ${request.method} ${url.pathname}`, "invalid_request_error", "unknown_url", {
          "x-should-retry": "false",
        });
      }
      if (!isJson) return openAiError(400, "scripted model: request body is not JSON", "invalid_request_error", null);
      // A request without a signal (some handler callers) simply cannot be aborted.
      const signal = request.signal ?? new AbortController().signal;
      return kind === "chat" ? answerChat(signal, entry, body) : answerEmbeddings(signal, entry, body);
    })();
    entry.status = response.status;
    return response;
  }

  const scriptedFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => handle(new Request(input, init));

  return {
    fetch: scriptedFetch,
    handle,
    get requests() {
      return log;
    },
    get chatRequests() {
      return log.filter((r) => r.kind === "chat");
    },
    get embeddingRequests() {
      return log.filter((r) => r.kind === "embeddings");
    },
    on(rule) {
      chatRules.push(ruleState(rule, chatRules.length + 1));
    },
    onEmbeddings(rule) {
      embeddingRules.push(ruleState(rule, embeddingRules.length + 1));
    },
    pending() {
      return [...chatRules, ...embeddingRules].filter((s) => Number.isFinite(s.limit) && s.uses < s.limit).map((s) => `${s.label} (${s.uses}/${s.limit} used)`);
    },
    reset,
  };
}

// ---------------------------------------------------------------------------------------------
// Streaming (Server-Sent Events), for `stream: true`

interface StreamParts {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  finishReason: FinishReason;
  usage: Record<string, unknown> | null;
}

function streamChunks(parts: StreamParts): unknown[] {
  const chunk = (delta: Record<string, unknown>, finishReason: FinishReason | null) => ({
    id: parts.id,
    object: "chat.completion.chunk",
    created: parts.created,
    model: parts.model,
    system_fingerprint: "fp_scripted",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "", refusal: null }, null)];
  // A few pieces, split after whitespace, so clients really have to join deltas.
  for (const piece of parts.content?.match(/\S+\s*|\s+/g) ?? []) chunks.push(chunk({ content: piece }, null));
  parts.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }, null));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, null));
  });
  chunks.push(chunk({}, parts.finishReason));
  if (parts.usage) {
    chunks.push({ id: parts.id, object: "chat.completion.chunk", created: parts.created, model: parts.model, choices: [], usage: parts.usage });
  }
  return chunks;
}

function sse(chunks: unknown[], headers: Record<string, string>): Response {
  const text = `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
  return new Response(text, { status: 200, headers: { "content-type": "text/event-stream", ...headers } });
}
