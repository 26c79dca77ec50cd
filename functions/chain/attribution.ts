import type { ProgramError } from "../sandbox/types";
import type { TraceEntry } from "../sandbox/wire";

/**
 * Attributable reflection, first half (§3.3): which tool does a failure belong to? From the
 * trace when the failing call is known; from the program's text when the error's line reads the
 * result of a tool call; otherwise undefined, and the model is asked (prompt I_a).
 */

export type Attribution = { tool: string; how: "failed_call" | "program_line" } | undefined;

const CALL = /tools\s*\.\s*([A-Za-z_$][\w$]*)\s*\(/g;
const ASSIGNED_CALL = /(?:const|let|var)\s+(?:\{[^}]*\}|\[[^\]]*\]|([A-Za-z_$][\w$]*))\s*(?::[^=]+)?=\s*(?:await\s+)?tools\s*\.\s*([A-Za-z_$][\w$]*)\s*\(/;

function callsOn(line: string): string[] {
  return [...line.matchAll(CALL)].map((m) => m[1] ?? "").filter((name) => name !== "");
}

/** The tool whose result is read on `lineNumber` (1-based), looking at calls and the variables they fill. */
export function toolOnLine(program: string, lineNumber: number, known: ReadonlySet<string>): string | undefined {
  const lines = program.split("\n");
  const line = lines[lineNumber - 1];
  if (line === undefined) return undefined;
  const direct = callsOn(line).filter((name) => known.has(name));
  if (direct.length > 0) return direct[direct.length - 1];
  // Which variables assigned from a tool call does the failing line use? The nearest one wins.
  const assignments = new Map<string, string>();
  for (let i = 0; i < lineNumber - 1; i++) {
    const match = ASSIGNED_CALL.exec(lines[i] ?? "");
    if (match?.[1] !== undefined && match[2] !== undefined && known.has(match[2])) assignments.set(match[1], match[2]);
  }
  let best: { tool: string; at: number } | undefined;
  for (const [variable, tool] of assignments) {
    const at = line.search(new RegExp(`(^|[^\\w$.])${variable.replace(/\$/g, "\\$")}\\b`));
    if (at >= 0 && (best === undefined || at < best.at)) best = { tool, at };
  }
  return best?.tool;
}

/** Attribute a failed attempt to a tool without a model call, when the evidence allows. */
export function attributeFailure(program: string, error: ProgramError, trace: readonly TraceEntry[], known: ReadonlySet<string>): Attribution {
  if (error.tool !== undefined && known.has(error.tool)) return { tool: error.tool, how: "failed_call" };
  const failedCall = [...trace].reverse().find((entry) => !entry.ok);
  if (failedCall !== undefined && known.has(failedCall.tool) && error.kind === "runtime" && /failed:|not in this run/.test(error.message)) {
    return { tool: failedCall.tool, how: "failed_call" };
  }
  if (error.line !== undefined) {
    const tool = toolOnLine(program, error.line, known);
    if (tool !== undefined) return { tool, how: "program_line" };
  }
  return undefined;
}

/** Read a tool name out of the model's answer to I_a (first known name mentioned). */
export function parseAttributionAnswer(answer: string, known: readonly string[]): string | undefined {
  const byLength = [...known].sort((a, b) => b.length - a.length);
  let best: { name: string; at: number } | undefined;
  for (const name of byLength) {
    const at = answer.search(new RegExp(`(^|[^\\w])${name.replace(/[$]/g, "\\$")}([^\\w]|$)`));
    if (at >= 0 && (best === undefined || at < best.at)) best = { name, at };
  }
  return best?.name;
}
