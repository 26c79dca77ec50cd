import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";
import { issuesToErrors, toProblem } from "../app";
import { SERVICE_NAME, SERVICE_VERSION } from "../../common/service-version";
import { mcpTool } from "../../toolnet/tool-export";
import { callRegisteredTool } from "./call-registered-tool";
import { topRoutedTools } from "./routed-tools";
import { SERVICE_TOOLS, type McpTenantContext, type ServiceTool } from "./service-tools";
import { readMcpSettings } from "./settings";
import { problemResult } from "./tool-results";

/**
 * A tenant's MCP server: the SDK's low-level `Server` (tool schemas are JSON Schema, and some
 * tools are the tenant's own), made per request; the transport is stateless.
 */

const INSTRUCTIONS =
  "Tools of one atc-edge tenant. Call find_tools with the task to see which tools fit the next step, then call_tool; " +
  "after each call, find_tools with previous_tool gives the learned next tools. run_task solves a whole task in one go. " +
  "give_feedback teaches routing which tools worked.";

/** The MCP listing of a service tool: its zod input as JSON Schema. */
function listing(tool: ServiceTool): Tool {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(tool.input, { io: "input" }) as Record<string, unknown>;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchema as Tool["inputSchema"],
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: true },
  };
}

const SERVICE_LISTINGS = SERVICE_TOOLS.map(listing);

/** The tools the tenant's server lists: the service tools, then (when enabled) top routed tools. */
export async function listTenantTools(context: McpTenantContext): Promise<Tool[]> {
  const settings = await readMcpSettings(context.tenant);
  const reserved = new Set(SERVICE_TOOLS.map((t) => t.name));
  const routed = (await topRoutedTools(context.tenant, settings.routedTools)).filter((t) => !reserved.has(t.function.name));
  return [...SERVICE_LISTINGS, ...routed.map((t) => mcpTool(t) as Tool)];
}

/** Dispatch one tools/call; every failure is an MCP tool error with the REST problem's type. */
async function callTenantTool(
  context: McpTenantContext,
  name: string,
  args: Record<string, unknown>,
  extra: Parameters<ServiceTool["handle"]>[2],
): Promise<CallToolResult> {
  try {
    const tool = SERVICE_TOOLS.find((t) => t.name === name);
    if (tool !== undefined) {
      const parsed = tool.input.safeParse(args);
      if (!parsed.success) {
        return problemResult({
          kind: "invalid-request",
          detail: `The arguments do not match ${name}'s input schema.`,
          errors: issuesToErrors(parsed.error.issues),
        });
      }
      return await tool.handle(parsed.data, context, extra);
    }
    // A tenant tool listed directly (routedTools > 0) is called like call_tool would call it.
    if ((await readMcpSettings(context.tenant)).routedTools > 0) return await callRegisteredTool(context, name, args);
    return problemResult({ kind: "not-found", detail: `No tool named ${name}; use find_tools and call_tool.` });
  } catch (error) {
    return problemResult(toProblem(error));
  }
}

/** A server bound to one tenant, for one request. */
export function tenantMcpServer(context: McpTenantContext): Server {
  const server = new Server(
    { name: SERVICE_NAME, version: SERVICE_VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTenantTools(context) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTenantTool(context, request.params.name, request.params.arguments ?? {}, extra));
  return server;
}
