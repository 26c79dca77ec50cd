import { z } from "zod";
import { ToolDefinition, type JsonSchema, type ToolParameter } from "./definition";
import { isToolName, NameRegistry, toIdentifier } from "./tool-names";

/**
 * A remote MCP server's tools (as `tools/list` gives them) as atc-edge tool definitions. Each
 * top-level property of the tool's input schema becomes a body parameter, so argument
 * validation, the typed API of runs, probing and routing treat MCP tools like REST ones.
 */

/** The part of an MCP `Tool` this module reads; parsed, since it comes from outside. */
export const RemoteTool = z.object({
  name: z.string().min(1).max(500),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z
    .object({ type: z.literal("object"), properties: z.record(z.string(), z.unknown()).optional(), required: z.array(z.string()).optional() })
    .passthrough(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.object({ title: z.string().optional() }).passthrough().optional(),
});
export type RemoteTool = z.infer<typeof RemoteTool>;

const MAX_DESCRIPTION = 20_000;

/** Definitions for `tools` of the server at `serverUrl`; names are identifiers, stable across imports. */
export function definitionsFromMcpTools(serverUrl: string, tools: readonly RemoteTool[], apiTitle?: string): { tools: ToolDefinition[]; warnings: string[] } {
  const names = new NameRegistry();
  const warnings: string[] = [];
  const definitions: ToolDefinition[] = [];
  // Claimed in the server's name order, so the same server always yields the same names.
  for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const name = names.claim(isToolName(tool.name) ? tool.name : toIdentifier(tool.name) || "mcpTool");
    if (name !== tool.name) warnings.push(`MCP tool "${tool.name}" is registered as ${name} (tool names are identifiers)`);
    const required = new Set(tool.inputSchema.required ?? []);
    const parameters: ToolParameter[] = Object.entries(tool.inputSchema.properties ?? {}).map(([parameter, raw]) => {
      const { description, ...schema } = isRecord(raw) ? raw : {};
      return {
        name: parameter,
        in: "body" as const,
        required: required.has(parameter),
        ...(typeof description === "string" ? { description } : {}),
        schema: schema as JsonSchema,
      };
    });
    const summary = tool.title ?? tool.annotations?.title;
    definitions.push(
      ToolDefinition.parse({
        name,
        method: "POST",
        serverUrl,
        path: "/",
        operation: `MCP ${tool.name}`,
        ...(summary === undefined ? {} : { summary: summary.slice(0, 1_000) }),
        description: (tool.description ?? "").slice(0, MAX_DESCRIPTION),
        parameters,
        bodyContentType: "application/json",
        ...(tool.outputSchema === undefined ? {} : { responseSchema: tool.outputSchema }),
        mcp: { tool: tool.name },
        tags: ["mcp"],
        ...(apiTitle === undefined ? {} : { apiTitle }),
      }),
    );
  }
  return { tools: definitions, warnings };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
