import { pathToFileURL } from "node:url";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { chatLoop, fromEnvironment, type LoopResult, type ModelEndpoint, type ToolService } from "./chat-loop";

/**
 * A chatbot loop with the `openai` SDK over the service's REST API: `POST /v1/route` gives the
 * OpenAI `tools` array for the next step, the model picks one, `POST /v1/tools/{name}/call` calls
 * it (arguments validated, credential injected by the service), and the next route passes
 * `previousTool`, until the model answers.
 *
 *   ATC_KEY=$(cat .wrangler/state/demo-api-key) MODEL_BASE_URL=https://api.openai.com/v1 \
 *   MODEL_API_KEY=sk-… MODEL_NAME=gpt-4o-mini npx tsx examples/openai-chat-loop.ts "Who directed Inception?"
 */

/** The service's REST API as the loop's tool service. */
export function restToolService(serviceUrl: string, tenantKey: string, http: typeof fetch = fetch): ToolService {
  const post = async (path: string, body: unknown): Promise<unknown> => {
    const response = await http(new URL(path, serviceUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${tenantKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json: unknown = await response.json();
    // A problem (RFC 9457) is an error of the loop's own, not something for the model to read.
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    async route(task, previousTool) {
      const answer = (await post("/v1/route", { task, previousTool, k: 5 })) as { tools?: ChatCompletionFunctionTool[] };
      return answer.tools ?? [];
    },
    // A tool's own failure (`ok: false`) goes to the model as it is: it may try another way.
    call: (name, args) => post(`/v1/tools/${encodeURIComponent(name)}/call`, { arguments: args }),
  };
}

/** The whole example: one question answered through the service's tools. */
export function answer(question: string, serviceUrl: string, tenantKey: string, endpoint: ModelEndpoint, http?: typeof fetch): Promise<LoopResult> {
  return chatLoop(question, restToolService(serviceUrl, tenantKey, http), endpoint, http === undefined ? {} : { fetch: http });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { serviceUrl, tenantKey, endpoint } = fromEnvironment();
  const result = await answer(process.argv.slice(2).join(" ") || "Who directed Inception?", serviceUrl, tenantKey, endpoint);
  console.log(`${result.answer}\n(tools: ${result.toolsCalled.join(" → ") || "none"}; ${result.modelCalls} model calls)`);
}
