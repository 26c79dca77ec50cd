import OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionFunctionTool,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";

/**
 * What the chatbot loops share: the tool-calling conversation with any OpenAI-compatible chat
 * endpoint. Each example supplies the two service calls — which tools fit the next step, and one
 * tool call — over REST (openai-chat-loop.ts) or MCP (mcp-chat-loop.ts).
 */

/** Where the loop reaches the service's tools: routing (`previousTool` after the first step) and one call. */
export interface ToolService {
  /** The OpenAI `tools` array of the candidates for the next step. */
  route(task: string, previousTool: string | null): Promise<ChatCompletionFunctionTool[]>;
  /** One tool call; what the tool answered (or why it failed), as the model will read it. */
  call(name: string, args: Record<string, unknown>): Promise<unknown>;
}

/** Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, LM Studio, …). */
export interface ModelEndpoint {
  baseURL: string;
  apiKey: string;
  model: string;
}

export interface LoopResult {
  answer: string;
  /** The tools called, in order. */
  toolsCalled: string[];
  /** Chat completions made. */
  modelCalls: number;
}

const SYSTEM =
  "Answer the user's question with the tools offered. Call one tool at a time; when the tool results answer the question, reply with the answer in plain words.";

/** Routing's `Finish` candidate means "answer now": the model does that by replying without a tool call. */
const FINISH = "Finish";

/** Route → chat completion with the `tools` array → call → route again with `previousTool` → … until the model answers. */
export async function chatLoop(
  question: string,
  service: ToolService,
  endpoint: ModelEndpoint,
  options: { maxSteps?: number; fetch?: typeof fetch } = {},
): Promise<LoopResult> {
  const openai = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, ...(options.fetch === undefined ? {} : { fetch: options.fetch }) });
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: question },
  ];
  const toolsCalled: string[] = [];
  let previousTool: string | null = null;
  for (let step = 1; step <= (options.maxSteps ?? 8); step++) {
    const tools: ChatCompletionFunctionTool[] = (await service.route(question, previousTool)).filter((tool) => tool.function.name !== FINISH);
    const completion: ChatCompletion = await openai.chat.completions.create({ model: endpoint.model, messages, ...(tools.length > 0 ? { tools } : {}) });
    const message: ChatCompletionMessage | undefined = completion.choices[0]?.message;
    if (message === undefined) throw new Error("the model answered with no choices");
    messages.push(message);
    const calls = (message.tool_calls ?? []).filter((call): call is ChatCompletionMessageFunctionToolCall => call.type === "function");
    if (calls.length === 0) return { answer: message.content ?? "", toolsCalled, modelCalls: step };
    for (const call of calls) {
      const result = await service.call(call.function.name, parseArguments(call.function.arguments));
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
      toolsCalled.push(call.function.name);
      previousTool = call.function.name;
    }
  }
  throw new Error(`no answer after ${options.maxSteps ?? 8} steps`);
}

/** The model's arguments: JSON text, `{}` when it sent none or sent something unreadable. */
function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The model endpoint and the service from the environment, as the examples' command lines take them. */
export function fromEnvironment(env: NodeJS.ProcessEnv = process.env): { serviceUrl: string; tenantKey: string; endpoint: ModelEndpoint } {
  const need = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === "") throw new Error(`set ${name} (see examples/README.md)`);
    return value;
  };
  return {
    serviceUrl: env.ATC_URL ?? "http://127.0.0.1:8787",
    tenantKey: need("ATC_KEY"),
    endpoint: { baseURL: need("MODEL_BASE_URL"), apiKey: need("MODEL_API_KEY"), model: need("MODEL_NAME") },
  };
}
