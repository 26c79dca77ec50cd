const FENCE = /```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const CODE_LANGUAGES = new Set(["", "ts", "typescript", "js", "javascript", "mjs", "cjs", "tsx", "jsx"]);

/**
 * The program inside a model's answer: the first fenced block in a code language (```ts …```),
 * else the first fenced block of any kind, else the whole text. An unclosed fence (a truncated
 * answer) runs to the end.
 */
export function extractProgram(text: string): string {
  let first: string | undefined;
  for (const match of text.matchAll(FENCE)) {
    const language = (match[1] ?? "").toLowerCase();
    const body = match[2] ?? "";
    if (CODE_LANGUAGES.has(language)) return body;
    first ??= body;
  }
  return first ?? text;
}
