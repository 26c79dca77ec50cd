import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { chatLoop, fromEnvironment, type LoopResult, type ModelEndpoint, type ToolService } from "./chat-loop";

/**
 * The same chatbot loop over MCP, with the official SDK client: the tenant's `/mcp` server's
 * `find_tools` (with `previous_tool` after the first step) gives the candidates and their input
 * schemas, which become the chat completion's `tools`; `call_tool` calls the one the model picks.
 *
 *   ATC_KEY=… MODEL_BASE_URL=… MODEL_API_KEY=… MODEL_NAME=… npx tsx examples/mcp-chat-loop.ts "Who directed Inception?"
 */

interface FoundTools {
  candidates: { name: string; description?: string; inputSchema?: Record<string, unknown> }[];
}

/** A connected MCP client as the loop's tool service. */
export function mcpToolService(client: Client): ToolService {
  return {
    async route(task, previousTool) {
      const result = await client.callTool({
        name: "find_tools",
        arguments: { task, k: 5, ...(previousTool === null ? {} : { previous_tool: previousTool }) },
      });
      const found = result.structuredContent as FoundTools | undefined;
      return (found?.candidates ?? []).map(
        (candidate): ChatCompletionFunctionTool => ({
          type: "function",
          function: { name: candidate.name, description: candidate.description ?? "", parameters: candidate.inputSchema ?? { type: "object" } },
        }),
      );
    },
    async call(name, args) {
      const result = await client.callTool({ name: "call_tool", arguments: { name, arguments: args } });
      return result.structuredContent ?? result.content;
    },
  };
}

/** Connect to the tenant's MCP server (Streamable HTTP, the tenant key as bearer token). */
export async function connect(serviceUrl: string, tenantKey: string, http?: typeof fetch): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", serviceUrl), {
    requestInit: { headers: { authorization: `Bearer ${tenantKey}` } },
    ...(http === undefined ? {} : { fetch: http }),
  });
  const client = new Client({ name: "atc-edge-example", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** The whole example: connect, answer one question, disconnect. */
export async function answer(question: string, serviceUrl: string, tenantKey: string, endpoint: ModelEndpoint, http?: typeof fetch): Promise<LoopResult> {
  const client = await connect(serviceUrl, tenantKey, http);
  try {
    return await chatLoop(question, mcpToolService(client), endpoint, http === undefined ? {} : { fetch: http });
  } finally {
    await client.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { serviceUrl, tenantKey, endpoint } = fromEnvironment();
  const result = await answer(process.argv.slice(2).join(" ") || "Who directed Inception?", serviceUrl, tenantKey, endpoint);
  console.log(`${result.answer}\n(tools: ${result.toolsCalled.join(" → ") || "none"}; ${result.modelCalls} model calls)`);
}
