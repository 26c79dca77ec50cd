import { z } from "zod";

/**
 * Workers AI through its binding (`env.AI`), spoken to as an OpenAI-compatible endpoint: the
 * model client's only transport is `fetch`, so this is a fetch that answers the two requests the
 * client makes (`/chat/completions`, `/embeddings`) by calling `AI.run`. No API key is involved:
 * the binding is the account's own. Set MODEL_BASE_URL to `workers-ai` to use it.
 */

/** The MODEL_BASE_URL value that selects the binding. */
export const WORKERS_AI = "workers-ai";
/** What the SDK is given as its base URL; never fetched, only matched by the transport below. */
export const WORKERS_AI_SDK_BASE_URL = "https://workers-ai.binding.invalid/v1";

/** The part of the `Ai` binding used here (a structural type, so tests can pass their own). */
export interface AiRunner {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

const ChatBody = z.object({
  model: z.string(),
  messages: z.array(z.record(z.string(), z.unknown())),
  tools: z.array(z.unknown()).optional(),
  temperature: z.number().optional(),
  max_tokens: z.number().optional(),
  max_completion_tokens: z.number().optional(),
  response_format: z.unknown().optional(),
});

const EmbeddingsBody = z.object({ model: z.string(), input: z.union([z.string(), z.array(z.string())]) });

const Usage = z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional(), total_tokens: z.number().optional() }).optional();

/** Older Workers AI text models answer `{response, tool_calls, usage}`; newer ones answer OpenAI's `choices`. */
const RunChatOutput = z.union([
  z.object({ choices: z.array(z.unknown()) }).passthrough(),
  z.object({
    response: z.unknown().optional(),
    tool_calls: z.array(z.object({ name: z.string().optional(), arguments: z.unknown().optional() })).optional(),
    usage: Usage,
  }),
]);

const RunEmbeddingsOutput = z.object({ data: z.array(z.array(z.number())) });

/** A fetch that serves the OpenAI SDK's requests from the Workers AI binding. */
export function workersAiFetch(ai: AiRunner): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    try {
      if (request.method === "POST" && path.endsWith("/chat/completions")) return Response.json(await chat(ai, ChatBody.parse(await request.json())));
      if (request.method === "POST" && path.endsWith("/embeddings")) return Response.json(await embeddings(ai, EmbeddingsBody.parse(await request.json())));
      return problem(404, `Workers AI: no ${request.method} ${path} here`);
    } catch (error) {
      // A request the adapter cannot read is the caller's fault; a failed run is the upstream's.
      if (error instanceof z.ZodError) return problem(400, `Workers AI: ${error.issues[0]?.message ?? "unreadable request"}`);
      return problem(502, `Workers AI: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

async function chat(ai: AiRunner, body: z.infer<typeof ChatBody>): Promise<unknown> {
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const output = RunChatOutput.parse(
    await ai.run(body.model, {
      messages: body.messages,
      ...(body.tools === undefined ? {} : { tools: body.tools }),
      ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
      ...(body.response_format === undefined ? {} : { response_format: body.response_format }),
    }),
  );
  if ("choices" in output) return { object: "chat.completion", model: body.model, ...output };
  const toolCalls = (output.tool_calls ?? []).map((call, index) => ({
    id: `call_${index}`,
    type: "function",
    function: { name: call.name ?? "", arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}) },
  }));
  // JSON mode answers an object; the chat API's content is always text.
  const content =
    output.response === undefined || output.response === null ? null : typeof output.response === "string" ? output.response : JSON.stringify(output.response);
  return {
    id: `chatcmpl-workers-ai-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        message: { role: "assistant", content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
      },
    ],
    ...(output.usage === undefined ? {} : { usage: output.usage }),
  };
}

async function embeddings(ai: AiRunner, body: z.infer<typeof EmbeddingsBody>): Promise<unknown> {
  const texts = typeof body.input === "string" ? [body.input] : body.input;
  const output = RunEmbeddingsOutput.parse(await ai.run(body.model, { text: texts }));
  return {
    object: "list",
    model: body.model,
    data: output.data.map((embedding, index) => ({ object: "embedding", index, embedding })),
    // The binding reports no token counts for embeddings.
    usage: { prompt_tokens: 0, total_tokens: 0 },
  };
}

function problem(status: number, message: string): Response {
  return Response.json({ error: { message, type: status === 400 ? "invalid_request_error" : "server_error" } }, { status });
}
