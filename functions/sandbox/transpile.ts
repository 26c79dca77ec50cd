import { transform } from "sucrase";
import { extractProgram } from "./extract-program";

export type TranspileResult =
  | {
      ok: true;
      /** Plain JavaScript with the same lines as `source`: hand it to `runProgram`. */
      js: string;
      /** The program as extracted from the model's text (fences removed); `line`s refer to it. */
      source: string;
    }
  | { ok: false; error: string; line?: number };

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
