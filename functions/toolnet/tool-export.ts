import type { ToolDefinition } from "../tools/definition";
import { openAiTool, type OpenAiTool } from "./openai-tools";
import { countJsonTokens } from "../text/token-count";

/**
 * Every tool of a tenant at once, for clients that want the whole set rather than routing's few:
 * as an OpenAI `tools` array, or as an MCP `tools/list` result. The token count says what the
 * set costs in every request that carries it (o200k_base, the JSON as returned).
 */

export type ExportFormat = "openai" | "mcp";

/** An MCP tool as `tools/list` returns it. */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolExport {
  format: ExportFormat;
  count: number;
  tokens: { count: number; encoding: "o200k_base"; of: "tools" };
  tools: OpenAiTool[] | McpTool[];
}

/** An OpenAI function tool as an MCP `tools/list` entry (the same name, description and schema). */
export function mcpTool(tool: OpenAiTool): McpTool {
  const { name, description, parameters } = tool.function;
  return { name, ...(description === undefined ? {} : { description }), inputSchema: parameters ?? { type: "object" } };
}

/** The definitions in name order, in the requested shape, with their token count. */
export function exportTools(definitions: readonly ToolDefinition[], format: ExportFormat): ToolExport {
  const openai = [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(openAiTool);
  const tools = format === "openai" ? openai : openai.map(mcpTool);
  return { format, count: tools.length, tokens: { count: countJsonTokens(tools), encoding: "o200k_base", of: "tools" }, tools };
}
