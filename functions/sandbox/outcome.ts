import type { ProgramError } from "./types";

/** An exception as read out of the sandbox. `name` is absent when the thrown value is no Error. */
export interface ThrownValue {
  name?: string;
  message: string;
  stack?: string;
  lineNumber?: number;
  tool?: string;
}

/** First line of the program named in a stack (`at main (program.js:12:5)` → 12). */
export function lineInStack(stack: string | undefined, filename: string): number | undefined {
  if (stack === undefined) return undefined;
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`${escaped}:(\\d+)`).exec(stack);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The ProgramError for an exception that ended a run. `compiling` marks errors thrown while the
 * program was parsed; `memoryExhausted` says the sandbox's memory is at its ceiling (QuickJS then
 * sometimes throws `null` instead of an out-of-memory error).
 */
export function errorFromThrown(thrown: ThrownValue, context: { filename: string; compiling: boolean; memoryExhausted: boolean }): ProgramError {
  const { name, message, stack, tool } = thrown;
  const headline = name === undefined ? message : message === "" ? name : `${name}: ${message}`;
  const line = thrown.lineNumber ?? lineInStack(stack, context.filename);
  const located = {
    ...(stack === undefined || stack === "" ? {} : { stack }),
    ...(line === undefined ? {} : { line }),
  };
  if (/stack overflow|maximum call stack/i.test(message) && (name === "InternalError" || name === "SyntaxError" || name === "RangeError")) {
    return { kind: "stack_overflow", message: `the program recursed too deeply (${headline})`, ...located };
  }
  if (/out of memory/i.test(message) || (name === undefined && context.memoryExhausted)) {
    return { kind: "memory", message: `the program ran out of sandbox memory (${headline})`, ...located };
  }
  if (context.compiling && name === "SyntaxError") {
    return { kind: "syntax", message: headline, ...located };
  }
  return {
    kind: "runtime",
    message: stack === undefined || stack === "" ? headline : `${headline}\n${stack}`,
    ...located,
    ...(tool === undefined ? {} : { tool }),
  };
}

/** Parse the `E` envelope the bootstrap produces; tolerant, since the program may have broken JSON. */
export function parseThrownEnvelope(json: string): ThrownValue {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { message: "the program's exception could not be read" };
  }
  if (typeof value !== "object" || value === null) return { message: "the program's exception could not be read" };
  const record = value as Record<string, unknown>;
  return {
    ...(typeof record.name === "string" ? { name: record.name } : {}),
    message: typeof record.message === "string" ? record.message : "",
    ...(typeof record.stack === "string" ? { stack: record.stack } : {}),
    ...(typeof record.tool === "string" ? { tool: record.tool } : {}),
  };
}

/** Bytes of `text` as UTF-8, without allocating an encoded copy. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : String(error);
}
