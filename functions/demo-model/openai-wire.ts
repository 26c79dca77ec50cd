import { z } from "zod";
import { answerChat } from "./chat-answer";

/**
 * The demo model behind OpenAI's chat completions wire format: what `npm start -- --demo-model`
 * serves on loopback so that the service's ordinary model client reaches it like any endpoint.
 */

/** The model name the demo model answers as (and a run's model calls record). */
export const DEMO_MODEL_NAME = "demo-model";

const Message = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ text: z.string().optional() })), z.null()]).optional(),
});
const ChatCompletionRequest = z.looseObject({ model: z.string(), messages: z.array(Message).min(1), stream: z.boolean().nullish() });

function text(content: z.infer<typeof Message>["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function error(status: number, message: string): Response {
  return json({ error: { message, type: "invalid_request_error", code: null } }, status);
}

/** Rough token counts (4 characters a token), so usage figures are not zero; not a tokenizer. */
const tokens = (s: string): number => Math.ceil(s.length / 4);

/** Answers `/v1/chat/completions` and `/v1/models` as an OpenAI-compatible server would. */
export async function handleDemoModelRequest(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/\/+$/, "");
  if (request.method === "GET" && path.endsWith("/models"))
    return json({ object: "list", data: [{ id: DEMO_MODEL_NAME, object: "model", created: 0, owned_by: "atc-edge" }] });
  if (!path.endsWith("/chat/completions"))
    return error(404, `The demo model serves only POST /v1/chat/completions and GET /v1/models, not ${request.method} ${path}.`);
  if (request.method !== "POST") return error(405, "Use POST for chat completions.");
  let raw: unknown;
  try {
    raw = await request.json();
  } catch {
    return error(400, "The body is not JSON.");
  }
  const parsed = ChatCompletionRequest.safeParse(raw);
  if (!parsed.success) return error(400, `Not a chat completion request: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
  if (parsed.data.stream === true) return error(400, "The demo model does not stream; send stream: false.");
  const messages = parsed.data.messages.map((m) => ({ role: m.role, content: text(m.content) }));
  const answer = answerChat(messages);
  const prompt = messages.reduce((sum, m) => sum + tokens(m.content), 0);
  return json({
    id: `chatcmpl-demo-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: DEMO_MODEL_NAME,
    choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
    usage: { prompt_tokens: prompt, completion_tokens: tokens(answer), total_tokens: prompt + tokens(answer) },
  });
}
