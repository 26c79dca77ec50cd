import type { ToolDefinition } from "../tools/definition";
import type { parseInstanceAnswer } from "./prompts";
import type { DirectCallResult, Instance, ProgramRun } from "./probe-types";
import { directExample } from "./protocol";

/**
 * What one probe came to (ProbingSession, probing-session.ts): an instance found by a program, or
 * the error that tells the model and the progress events why there is none.
 */

/**
 * What one I_p sample's program found: the tool's last successful answer in the trace as an
 * instance (with the error to show the model when that answer is empty), or why there is none.
 */
export function programOutcome(
  def: ToolDefinition,
  program: string,
  answer: ReturnType<typeof parseInstanceAnswer>,
  run: ProgramRun,
): { instance: Instance; error: string } | { instance?: undefined; error: string } {
  const hit = [...run.trace].reverse().find((c) => c.tool === def.name && c.ok);
  const response = hit === undefined ? undefined : hit.result !== undefined ? hit.result : run.ok ? run.answer : undefined;
  if (hit !== undefined && response !== undefined) {
    const used = [...new Set(run.trace.filter((c) => c.ok && c.tool !== def.name).map((c) => c.tool))];
    const args = isRecord(hit.arguments) ? hit.arguments : {};
    return {
      instance: {
        example: { query: answer.query ?? directExample(def, args).query, program, arguments: args },
        response,
        helpers: used,
        how: used.length > 0 ? "helper_chain" : "model",
        description: answer.description,
      },
      error: `tools.${def.name}(${preview(hit.arguments, 200)}) succeeded but returned an empty result (${preview(response, 120)}); use arguments that find something`,
    };
  }
  const failed = run.trace.find((c) => c.tool === def.name && !c.ok);
  return {
    error:
      failed !== undefined
        ? `tools.${def.name}(${preview(failed.arguments, 200)}) failed: ${failed.error ?? "error"}`
        : (run.error?.message ?? `the program did not call tools.${def.name}`),
  };
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function preview(value: unknown, max = 300): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function describeCall(result: DirectCallResult): string {
  const status = result.status === undefined ? "" : `HTTP ${result.status}: `;
  return `${status}${result.error ?? preview(result.body)}`;
}
