import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { isRemoteServerFailure, withRemoteServer } from "./mcp-remote-client";
import type { ToolDefinition } from "./definition";
import { validateArguments, type SafeCallOptions, type ToolCallResult } from "./safe-call";
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "./safe-call";
import { redactorFor } from "./safe-call/redact";
import type { FailureCause } from "./safe-call/failure-cause";

/**
 * Calling a tool of a remote MCP server: the same contract as an HTTP tool call (arguments
 * validated first, destination guarded on every hop, credential injected, one timeout, bytes
 * capped, expected failures as `ok: false`), over `initialize` + `tools/call`.
 */
export async function callMcpTool(
  def: ToolDefinition & { mcp: { tool: string } },
  args: Record<string, unknown>,
  options: SafeCallOptions,
): Promise<ToolCallResult> {
  const started = Date.now();
  const redact = redactorFor(options.credential?.value);
  const request = { method: "POST", url: redact.text(def.serverUrl) };
  const cap = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const fail = (kind: NonNullable<ToolCallResult["error"]>["kind"], message: string, argument?: string, cause?: FailureCause): ToolCallResult => ({
    ok: false,
    body: null,
    truncated: false,
    bytes: 0,
    durationMs: Date.now() - started,
    request,
    error: { kind, message: redact.text(message), ...(argument === undefined ? {} : { argument }), ...(cause === undefined ? {} : { cause }) },
  });

  const checked = validateArguments(def, args);
  if (!checked.ok) return fail(checked.kind, checked.message, checked.argument);
  try {
    const result = await withRemoteServer(
      {
        url: def.serverUrl,
        fetch: options.fetch,
        allowedOrigins: options.allowedOrigins,
        resolveName: options.resolveName,
        credential: options.credential,
        timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxResponseBytes: cap,
        ...(options.maxRedirects === undefined ? {} : { maxRedirects: options.maxRedirects }),
      },
      (client) => client.callTool({ name: def.mcp.tool, arguments: checked.values }, CallToolResultSchema),
    );
    const parsed = CallToolResultSchema.parse(result);
    const body = redact.data(parsed.structuredContent ?? contentBody(parsed.content));
    const bytes = new TextEncoder().encode(JSON.stringify(parsed)).byteLength;
    return {
      ok: parsed.isError !== true,
      status: 200,
      body,
      truncated: false,
      bytes,
      durationMs: Date.now() - started,
      contentType: "application/json",
      request,
      ...(parsed.isError === true
        ? { error: { kind: "tool_error" as const, message: redact.text(`the MCP tool reported an error: ${firstText(parsed.content)}`) } }
        : {}),
    };
  } catch (error) {
    if (isRemoteServerFailure(error)) {
      const { code, message } = error;
      // A name that never resolves is a network failure whose cause is known.
      return code === "name_lookup" ? fail("network", message, undefined, "name_lookup") : fail(code, message);
    }
    throw error;
  }
}

type Content = ReturnType<typeof CallToolResultSchema.parse>["content"];

/** One text item that holds JSON → that value; one text → the text; several items → a list. */
function contentBody(content: Content): unknown {
  const items = content.map((item) => {
    if (item.type !== "text") return `[${item.type} content omitted]`;
    try {
      return JSON.parse(item.text) as unknown;
    } catch {
      return item.text;
    }
  });
  if (items.length === 0) return null;
  return items.length === 1 ? items[0] : items;
}

function firstText(content: Content): string {
  const text = content.find((item) => item.type === "text");
  const line = text?.type === "text" ? text.text.replace(/\s+/g, " ").trim() : "(no message)";
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}
