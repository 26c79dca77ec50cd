import type { ToolDefinition } from "../../tools/definition";

/** Longest text of one tool sent to an embeddings model; most servers cap inputs near 512 tokens. */
export const MAX_TOOL_EMBEDDING_CHARS = 2_000;

/**
 * The text a tool's vector is made from: its name, operation, summary and description, one per
 * line. The Worker embeds this at registration, and benchmarks embed the same text.
 */
export function toolEmbeddingText(definition: ToolDefinition): string {
  return [definition.name, definition.operation, definition.summary ?? "", definition.description].join("\n").slice(0, MAX_TOOL_EMBEDDING_CHARS);
}
