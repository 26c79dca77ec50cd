import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { BOOTSTRAP_FILENAME } from "./bootstrap";
import type { ThrownValue } from "./outcome";

/** Reading the sandbox's values on the host side: sizes are checked before a string is copied out, and no program code runs. */

export const MAX_STACK_CHARS = 8_000;

/** Read an exception handle on the host side (it never runs program code). */
export function readThrown(context: QuickJSContext, handle: QuickJSHandle): ThrownValue {
  try {
    const dumped: unknown = context.dump(handle);
    if (typeof dumped !== "object" || dumped === null) return { message: `uncaught ${String(dumped)}` };
    const record = dumped as Record<string, unknown>;
    return {
      ...(typeof record.name === "string" ? { name: record.name } : {}),
      message: typeof record.message === "string" ? record.message : "",
      ...(typeof record.stack === "string" ? { stack: trimFrames(record.stack) } : {}),
      ...(typeof record.lineNumber === "number" ? { lineNumber: record.lineNumber } : {}),
    };
  } catch {
    return { message: "an exception the host could not read" };
  }
}

/** The bootstrap's result envelope, or its size when it is past the answer limit (it is then not copied out). */
export function readEnvelope(context: QuickJSContext, handle: QuickJSHandle, maxAnswerBytes: number): string | { tooLarge: number } {
  if (context.typeof(handle) !== "string") return `E${JSON.stringify({ name: "Error", message: "the sandbox returned no result" })}`;
  const length = context.getLength(handle) ?? 0;
  if (length > maxAnswerBytes + 1) return { tooLarge: length - 1 };
  return context.getString(handle);
}

/** Drop the bootstrap's frames from a stack and cap its size. */
function trimFrames(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => !line.includes(BOOTSTRAP_FILENAME) && line.trim() !== "")
    .join("\n")
    .slice(0, MAX_STACK_CHARS);
}
