import type { ToolDefinition } from "../tools/definition";

/**
 * The definition tool play calls with: every documented parameter optional and any argument the
 * documentation does not name passed through (query for GET/DELETE/HEAD, body otherwise). Play2Prompt
 * exists for tools whose documentation is wrong, so the tool itself — not our copy of its
 * documentation — must be the one to accept or reject an argument; its error messages are what
 * the search learns from. The destination guard, credential injection and size caps still apply.
 */
export function exploratoryDefinition(definition: ToolDefinition, args: Record<string, unknown>): ToolDefinition {
  const known = new Set(definition.parameters.map((p) => p.name));
  const location = ["GET", "DELETE", "HEAD"].includes(definition.method) ? ("query" as const) : ("body" as const);
  const extra = Object.keys(args)
    .filter((name) => !known.has(name))
    .map((name) => ({ name, in: location, required: false, schema: {} }));
  return {
    ...definition,
    parameters: [...definition.parameters.map((p) => (p.in === "path" ? p : { ...p, required: false })), ...extra],
    ...(location === "body" && extra.length > 0 && definition.bodyContentType === undefined ? { bodyContentType: "application/json" } : {}),
  };
}
