import { transform } from "sucrase";

export type TranspileResult =
  | {
      ok: true;
      /** Plain JavaScript with the same lines as `source`: hand it to `runProgram`. */
      js: string;
      /** The program as extracted from the model's text (fences removed); `line`s refer to it. */
      source: string;
    }
  | { ok: false; error: string; line?: number };

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

/**
 * TypeScript or JavaScript → JavaScript QuickJS runs (ES2020+: async/await, classes, optional
 * chaining stay as they are). Only types are removed, and lines are kept, so line numbers in
 * stack traces are those of the program the model wrote.
 */
export function transpile(text: string): TranspileResult {
  const source = extractProgram(text);
  try {
    const { code } = transform(source, {
      transforms: ["typescript"],
      disableESTransforms: true,
    });
    return { ok: true, js: code, source };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = sucraseLine(error);
    return { ok: false, error: `SyntaxError: ${message}`, ...(line === undefined ? {} : { line }) };
  }
}

function sucraseLine(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("loc" in error)) return undefined;
  const loc: unknown = error.loc;
  if (typeof loc !== "object" || loc === null || !("line" in loc)) return undefined;
  return typeof loc.line === "number" ? loc.line : undefined;
}
