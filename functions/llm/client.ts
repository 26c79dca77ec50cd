import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { z } from "zod";
import type { Failure } from "../common/failures";
import { checkDestination, type DestinationCheck } from "../tools/safe-call/destination";
import type { NameResolver } from "../tools/safe-call/types";
import type { ModelConfig } from "./config";
import { modelCallError, modelCallFailure, modelCallOf, toModelCallError } from "./errors";
import { addUsage, ZERO_USAGE, type TokenUsage, type UsageLedger } from "./usage";
import { WORKERS_AI, WORKERS_AI_SDK_BASE_URL, workersAiFetch, type AiRunner } from "./workers-ai";
import { guardedModelFetch, refusalIsFinal } from "./guarded-model-fetch";

/**
 * The product's only door to the model endpoint: chat and embeddings over the official
 * `openai` SDK, with answers checked, usage counted and failures turned into one model-call Failure (errors.ts).
 */

export type ChatMessage = ChatCompletionMessageParam;
export type ChatTool = ChatCompletionFunctionTool;
export type ResponseFormat = NonNullable<ChatCompletionCreateParamsNonStreaming["response_format"]>;

export interface ChatRequest {
  messages: ChatMessage[];
  /** Why the call is made ("plan", "probe:getMovie", …); reported with its usage. */
  purpose: string;
  temperature?: number;
  maxTokens?: number;
  tools?: ChatTool[];
  responseFormat?: ResponseFormat;
  signal?: AbortSignal;
}

export interface ToolCall {
  id: string;
  name: string;
  /** As the model wrote it: JSON text, not yet parsed or validated. */
  arguments: string;
}

export interface ChatResult {
  /** Null when the model answered only with tool calls. */
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: TokenUsage;
  /** The model the endpoint says answered. */
  model: string;
  durationMs: number;
  purpose: string;
}

export interface EmbedResult {
  /** One vector per input text, in input order. */
  vectors: number[][];
  usage: TokenUsage;
  model: string;
  durationMs: number;
  purpose: string;
}

export interface ModelClientOptions {
  /** The fetch the SDK uses; tests pass a scripted one, workers may pass a binding's. */
  fetch?: typeof fetch;
  /** SDK retries on 408/409/429/5xx/connection errors, with backoff. */
  maxRetries?: number;
  /** Every call (successful or not) is recorded here when given. */
  ledger?: UsageLedger;
  /**
   * The destination check of every request and redirect hop (default: the tool-call guard, with
   * loopback allowed only when the config says so: MODEL_ALLOW_LOOPBACK in local development).
   */
  destinationCheck?: (url: string) => DestinationCheck;
  /**
   * Asked about each hop's host name before the network is (local development, as for tool
   * calls: functions/tools/safe-call/name-lookup.ts). The Workers AI placeholder origin is the
   * binding's own route and never looked up.
   */
  resolveName?: NameResolver;
}

export interface ModelClient {
  readonly model: string;
  readonly embeddingModel: string | undefined;
  readonly canEmbed: boolean;
  chat(request: ChatRequest): Promise<ChatResult>;
  embed(texts: string[], options?: { purpose?: string; signal?: AbortSignal }): Promise<EmbedResult>;
}

export const DEFAULT_MAX_RETRIES = 2;
/** Inputs per embeddings request; compatible servers often cap far below OpenAI's 2048. */
export const EMBED_BATCH_SIZE = 128;

const Usage = z
  .object({
    prompt_tokens: z.number().nonnegative(),
    completion_tokens: z.number().nonnegative().optional(),
    total_tokens: z.number().nonnegative().optional(),
  })
  .nullish();

// Lenient where compatible servers differ (missing `type`, object arguments), strict where we need data.
const ToolCallWire = z.union([
  z.object({
    id: z.string(),
    type: z.literal("function").optional(),
    function: z.object({
      name: z.string().min(1),
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
    }),
  }),
  z.object({ id: z.string(), type: z.literal("custom"), custom: z.object({ name: z.string().min(1), input: z.string() }) }),
]);

const ChatCompletionWire = z.object({
  model: z.string().optional(),
  choices: z.array(
    z.object({
      finish_reason: z.string().nullish(),
      message: z.object({
        content: z.string().nullish(),
        tool_calls: z.array(ToolCallWire).nullish(),
      }),
    }),
  ),
  usage: Usage,
});

const EmbeddingsWire = z.object({
  model: z.string().optional(),
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
  usage: Usage,
});

function toUsage(wire: z.infer<typeof Usage>): TokenUsage {
  // Some compatible servers send no usage; zeros keep the ledger's arithmetic simple.
  if (!wire) return { ...ZERO_USAGE };
  const completionTokens = wire.completion_tokens ?? 0;
  return {
    promptTokens: wire.prompt_tokens,
    completionTokens,
    totalTokens: wire.total_tokens ?? wire.prompt_tokens + completionTokens,
  };
}

function toToolCall(wire: z.infer<typeof ToolCallWire>): ToolCall {
  if ("custom" in wire) return { id: wire.id, name: wire.custom.name, arguments: wire.custom.input };
  const args = wire.function.arguments;
  return {
    id: wire.id,
    name: wire.function.name,
    arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

/**
 * How a tenant's model calls leave the Worker: through the Workers AI binding when the endpoint
 * is `workers-ai`, else over the network.
 */
export function modelTransport(env: { AI?: AiRunner | undefined }, config: ModelConfig): typeof fetch {
  if (config.baseUrl === WORKERS_AI && env.AI !== undefined) return workersAiFetch(env.AI);
  return (input, init) => fetch(input, init);
}

/** What one client's calls share: its configuration, the guarded SDK, and where calls are recorded. */
interface ClientContext {
  config: ModelConfig;
  guarded: <T>(signal: AbortSignal | undefined, call: (client: OpenAI, signal: AbortSignal) => Promise<T>) => Promise<T>;
  ledger: ModelClientOptions["ledger"];
}

export function createModelClient(config: ModelConfig, options: ModelClientOptions = {}): ModelClient {
  const sdk = new OpenAI({
    baseURL: config.baseUrl === WORKERS_AI ? WORKERS_AI_SDK_BASE_URL : config.baseUrl,
    apiKey: config.apiKey,
    // Explicit nulls: otherwise the SDK reads OPENAI_ORG_ID / OPENAI_PROJECT_ID from a Node env
    // and would send them to whatever endpoint is configured.
    organization: null,
    project: null,
    timeout: config.timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  // Every request, and every redirect hop, passes the destination guard, as tool calls do.
  const network = options.fetch ?? ((input, init) => fetch(input, init));
  const check = options.destinationCheck ?? ((url: string) => checkDestination(url, { allowLoopback: config.allowLoopback === true }));
  const context: ClientContext = {
    config,
    guarded: (signal, call) =>
      refusalIsFinal(
        sdk,
        config.timeoutMs,
        (onRefused, deadlineAt) => guardedModelFetch(network, check, onRefused, config.baseUrl === WORKERS_AI, options.resolveName, deadlineAt),
        signal,
        call,
      ),
    ledger: options.ledger,
  };
  return {
    model: config.model,
    embeddingModel: config.embeddingModel,
    canEmbed: config.embeddingModel !== undefined,
    chat: (request) => chat(context, request),
    embed: (texts, embedOptions) => embed(context, texts, embedOptions),
  };
}

async function chat({ config, guarded, ledger }: ClientContext, request: ChatRequest): Promise<ChatResult> {
  const { purpose } = request;
  const started = Date.now();
  const params: ChatCompletionCreateParamsNonStreaming = {
    model: config.model,
    messages: request.messages,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    // max_tokens rather than max_completion_tokens: it is the one every compatible server accepts.
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
    ...(request.responseFormat ? { response_format: request.responseFormat } : {}),
  };
  try {
    const raw: unknown = await guarded(request.signal, (client, signal) => client.chat.completions.create(params, { signal }));
    const result = chatResult(raw, config, purpose, started);
    ledger?.record({ operation: "chat", purpose, model: result.model, ok: true, usage: result.usage, durationMs: result.durationMs });
    return result;
  } catch (err) {
    const error = toModelCallError(err, { purpose, apiKey: config.apiKey });
    recordFailure(ledger, "chat", purpose, config.model, error, started);
    throw error;
  }
}

/** A chat completion's answer, checked: what the model said, its tool calls and usage. */
function chatResult(raw: unknown, config: ModelConfig, purpose: string, started: number): ChatResult {
  const parsed = ChatCompletionWire.safeParse(raw);
  if (!parsed.success) {
    throw modelCallError("malformed_response", `not a chat completion: ${describeIssues(parsed.error)}`, { purpose, apiKey: config.apiKey });
  }
  const [choice] = parsed.data.choices;
  if (!choice) throw modelCallError("malformed_response", "no choices", { purpose, apiKey: config.apiKey });
  return {
    content: choice.message.content ?? null,
    toolCalls: (choice.message.tool_calls ?? []).map(toToolCall),
    finishReason: choice.finish_reason ?? null,
    usage: toUsage(parsed.data.usage),
    model: parsed.data.model ?? config.model,
    durationMs: Date.now() - started,
    purpose,
  };
}

async function embed(context: ClientContext, texts: string[], options: { purpose?: string; signal?: AbortSignal } = {}): Promise<EmbedResult> {
  const purpose = options.purpose ?? "embed";
  const model = context.config.embeddingModel;
  if (model === undefined) {
    throw modelCallFailure({
      kind: "embeddings_disabled",
      message: `model call "${purpose}" failed: embeddings_disabled: no embedding model configured (EMBEDDING_MODEL)`,
      purpose,
    });
  }
  const started = Date.now();
  const vectors: number[][] = [];
  let usage: TokenUsage = { ...ZERO_USAGE };
  let answeredBy = model;
  for (let start = 0; start < texts.length; start += EMBED_BATCH_SIZE) {
    const batch = await embedBatch(context, texts.slice(start, start + EMBED_BATCH_SIZE), model, purpose, options.signal);
    if (vectors[0] && batch.vectors[0] && batch.vectors[0].length !== vectors[0].length) {
      throw modelCallError("malformed_response", "embeddings of different dimensions", { purpose, apiKey: context.config.apiKey });
    }
    vectors.push(...batch.vectors);
    usage = addUsage(usage, batch.usage);
    answeredBy = batch.model;
  }
  return { vectors, usage, model: answeredBy, durationMs: Date.now() - started, purpose };
}

async function embedBatch(
  { config, guarded, ledger }: ClientContext,
  texts: string[],
  model: string,
  purpose: string,
  signal: AbortSignal | undefined,
): Promise<{ vectors: number[][]; usage: TokenUsage; model: string }> {
  const started = Date.now();
  try {
    // Explicit "float": the SDK's default base64 is not understood by every compatible server.
    const raw: unknown = await guarded(signal, (client, callSignal) =>
      client.embeddings.create({ model, input: texts, encoding_format: "float" }, { signal: callSignal }),
    );
    const parsed = EmbeddingsWire.safeParse(raw);
    if (!parsed.success) {
      throw modelCallError("malformed_response", `not an embeddings response: ${describeIssues(parsed.error)}`, { purpose, apiKey: config.apiKey });
    }
    const vectors = vectorsInOrder(parsed.data.data, texts.length, purpose, config.apiKey);
    const usage = toUsage(parsed.data.usage);
    const answeredBy = parsed.data.model ?? model;
    ledger?.record({ operation: "embed", purpose, model: answeredBy, ok: true, usage, durationMs: Date.now() - started });
    return { vectors, usage, model: answeredBy };
  } catch (err) {
    const error = toModelCallError(err, { purpose, apiKey: config.apiKey });
    recordFailure(ledger, "embed", purpose, model, error, started);
    throw error;
  }
}

/** One vector per input, in input order, all of one dimension. */
function vectorsInOrder(data: readonly { index: number; embedding: number[] }[], count: number, purpose: string, apiKey: string): number[][] {
  const byIndex = new Map(data.map((d) => [d.index, d.embedding]));
  const vectors: number[][] = [];
  for (let i = 0; i < count; i++) {
    const vector = byIndex.get(i);
    if (!vector) throw modelCallError("malformed_response", `no embedding for input ${i}`, { purpose, apiKey });
    if (vectors[0] && vector.length !== vectors[0].length) {
      throw modelCallError("malformed_response", "embeddings of different dimensions", { purpose, apiKey });
    }
    vectors.push(vector);
  }
  return vectors;
}

function recordFailure(
  ledger: ModelClientOptions["ledger"],
  operation: "chat" | "embed",
  purpose: string,
  model: string,
  error: Failure,
  started: number,
): void {
  ledger?.record({
    operation,
    purpose,
    model,
    ok: false,
    errorKind: modelCallOf(error)?.kind ?? "unexpected",
    usage: { ...ZERO_USAGE },
    durationMs: Date.now() - started,
  });
}
