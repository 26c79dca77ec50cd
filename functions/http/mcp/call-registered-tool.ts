import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { invokeTool } from "../../services/invoke";
import type { McpTenantContext } from "./service-tools";
import { jsonResult, problemResult } from "./tool-results";

/**
 * One call of a tenant's tool through the safe-call path, as MCP content. Refusals (bad
 * arguments, a refused destination) are the REST API's `tool-call-refused` problem; a call that
 * was made but failed upstream is a tool error carrying the result (status, body).
 */
export async function callRegisteredTool(
  { env, tenantId, tenant, observer }: McpTenantContext,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const outcome = await invokeTool(env, tenantId, tenant, name, args);
  if (!outcome.found) return problemResult({ kind: "not-found", detail: `No tool named ${name}.` });
  const { result } = outcome;
  const refused = result.error?.kind === "invalid_arguments" || result.error?.kind === "blocked_destination";
  observer?.call(name, refused ? "refused" : result);
  if (result.error?.kind === "invalid_arguments" || result.error?.kind === "blocked_destination") {
    const { message, argument } = result.error;
    return problemResult({ kind: "tool-call-refused", detail: message, ...(argument === undefined ? {} : { errors: [{ path: argument, message }] }) });
  }
  return jsonResult({ ...result }, !result.ok);
}
