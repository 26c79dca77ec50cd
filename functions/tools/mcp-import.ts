import { isRemoteServerFailure, withRemoteServer } from "./mcp-remote-client";
import { Failure } from "../common/failures";
import { definitionsFromMcpTools, RemoteTool } from "./mcp-definitions";
import type { ToolDefinition } from "./definition";
import { apiTitleOf } from "./api-info";
import { allowedOrigins } from "./safe-call/allowed-origins";
import { localNameResolver } from "./safe-call/local-name-resolver";
import { redactorFor } from "./safe-call/redact";
import { serviceToolLimits } from "../common/run-defaults";

/**
 * `POST /v1/tools/import {"format":"mcp"}`: connect to a remote MCP server through the safe-call
 * path, list its tools (every page), and turn them into definitions. Nothing is stored here.
 */

export interface McpSource {
  format: "mcp";
  url: string;
  headers?: Record<string, string> | undefined;
}

const MAX_PAGES = 20;
const MAX_TOOLS = 1_000;
/** A whole `tools/list` (all pages) may be larger than one tool response. */
const LIST_BYTES_PER_RESPONSE_CAP = 4;

/**
 * The server's tools as definitions; `headers` go with every request of the import. Fails with
 * the Failure of a RemoteServerCode (a refused destination or definition: invalid-request; else upstream-error).
 */
export async function importMcpServer(env: Env, source: McpSource): Promise<{ tools: ToolDefinition[]; warnings: string[] }> {
  const warnings: string[] = [];
  const listed: RemoteTool[] = [];
  let apiTitle: string | undefined;
  try {
    await withRemoteServer(
      {
        url: source.url,
        fetch: (input, init) => fetch(input, init),
        allowedOrigins: allowedOrigins(env),
        resolveName: localNameResolver(env),
        headers: source.headers,
        timeoutMs: serviceToolLimits(env).timeoutMs,
        maxResponseBytes: serviceToolLimits(env).maxResponseBytes * LIST_BYTES_PER_RESPONSE_CAP,
      },
      async (client) => {
        // The server's own title (or name) says what its tools are for, as an OpenAPI `info.title` does.
        const server = client.getServerVersion();
        apiTitle = apiTitleOf(server?.title ?? server?.name);
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const answer = await client.listTools(cursor === undefined ? {} : { cursor });
          for (const tool of answer.tools) {
            const parsed = RemoteTool.safeParse(tool);
            if (parsed.success) listed.push(parsed.data);
            else
              warnings.push(
                `MCP tool ${JSON.stringify(String(tool.name)).slice(0, 120)} skipped: its definition is not usable (${parsed.error.issues[0]?.message ?? "invalid"})`,
              );
          }
          cursor = answer.nextCursor;
          if (cursor === undefined || listed.length >= MAX_TOOLS) break;
        }
        if (cursor !== undefined) warnings.push(`the server lists more tools than the ${MAX_TOOLS} or ${MAX_PAGES} pages imported`);
      },
    );
  } catch (error) {
    // A server may echo what it was sent; the import's headers never come back in the error.
    if (isRemoteServerFailure(error)) {
      const message = Object.values(source.headers ?? {}).reduce((text, secret) => redactorFor(secret).text(text), error.message);
      throw Failure.of(error.code, `Importing from the MCP server ${source.url} failed: ${message}`);
    }
    throw error;
  }
  const converted = definitionsFromMcpTools(source.url, listed.slice(0, MAX_TOOLS), apiTitle);
  return { tools: converted.tools, warnings: [...warnings, ...converted.warnings] };
}

/**
 * The one import header that can become the server's stored credential: `Authorization: Bearer …`
 * or a single API-key header. Several headers cannot be stored (one credential per server).
 */
export function credentialFromHeaders(
  headers: Record<string, string> | undefined,
): { scheme: "apiKey" | "bearer"; name: string | null; value: string } | "several" | undefined {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return undefined;
  if (entries.length > 1) return "several";
  const [name, value] = entries[0] ?? ["", ""];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(value);
  if (name.toLowerCase() === "authorization" && bearer?.[1] !== undefined) return { scheme: "bearer", name: null, value: bearer[1] };
  return { scheme: "apiKey", name, value };
}
