import { highlight } from "./highlighter.js";

/**
 * Syntax highlighting on the server (highlight.js), so run pages show highlighted programs
 * without shipping a highlighter to the browser.
 */
export function highlightProgram(source: string): string {
  return highlight(source, "typescript");
}

export function highlightJson(value: unknown): string {
  return highlight(JSON.stringify(value, null, 2) ?? "null", "json");
}
