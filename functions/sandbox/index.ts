import { runProgram } from "./run-program";
import { transpile } from "./transpile";
import type { ProgramResult, RunOptions } from "./types";

export { sandboxDiagnostics } from "./diagnostics";
export { loadQuickJs, type QuickJsEngine } from "./engine";
export { DEFAULT_LIMITS, INTERRUPT_CHECKS_PER_100MS } from "./limits";
export { runProgram } from "./run-program";
export { extractProgram } from "./extract-program";
export { transpile, type TranspileResult } from "./transpile";
export type {
  CallTool,
  ProgramError,
  ProgramErrorKind,
  ProgramResult,
  ProgramStats,
  RunOptions,
  ToolCallContext,
  ToolCallRecord,
} from "./types";

/** `transpile` then `runProgram`: a model's answer (TypeScript, JavaScript, fenced or not) in, a result out. */
export async function executeProgram(text: string, options: RunOptions): Promise<ProgramResult> {
  const transpiled = transpile(text);
  if (transpiled.ok) return runProgram(transpiled.js, options);
  return {
    ok: false,
    error: { kind: "syntax", message: transpiled.error, ...(transpiled.line === undefined ? {} : { line: transpiled.line }) },
    logs: [],
    calls: [],
    stats: { toolCalls: 0, interruptChecks: 0, fuel: 0, durationMs: 0 },
  };
}
