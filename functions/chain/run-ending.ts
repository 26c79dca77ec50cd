import type { ProgramError } from "../sandbox/types";

/**
 * How a run ends when it has no answer to give, and the one top-level error it then carries:
 * what the model declined, what a program concluded it could not find, what the attempts ended
 * on. Every message names the run, so a line copied from a log or a support request finds it.
 */

export type RunStatus = "succeeded" | "failed" | "no_answer";

/** The top-level error of a run that did not succeed: `code` to branch on, `message` to read. */
export interface RunError {
  /** `model_declined`, `no_answer`, `attempts_exhausted`, or `model:<kind>` when the model endpoint failed. */
  code: string;
  message: string;
}

const MAX_QUOTED_CHARS = 500;

function quoted(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_QUOTED_CHARS ? `${oneLine.slice(0, MAX_QUOTED_CHARS)}…` : oneLine;
}

function runName(runId: string | undefined): string {
  return runId === undefined ? "The run" : `Run ${runId}`;
}

/** Comments off, so `// why` lines before a lone `throw` do not hide it. */
function withoutComments(program: string): string {
  return program.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

// Prose: a sentence, not code (no fence was found, so the whole answer was taken as the program).
const SENTENCE = /^[A-Z][\w'’]*(?:[ ,]+[\w'’]+){3,}/;

/**
 * The model's answer says it cannot do the task, rather than being a program that went wrong: a
 * program that is one `throw` and called no tool (as the demo model answers what it does not
 * know), or plain sentences that do not parse. Revising such an answer only repeats it, so the
 * run stops there, with the model's words as its error.
 */
export function declinedReason(answer: string, program: string, error: ProgramError, toolCalls: number): string | undefined {
  if (toolCalls > 0) return undefined;
  // Its first statement throws: nothing after it ever runs, whatever follows.
  if (error.kind === "runtime" && /^throw\b/.test(withoutComments(program).trim())) {
    return quoted(error.message.split("\n")[0] ?? error.message);
  }
  const text = answer.trim();
  if (error.kind === "syntax" && !text.includes("```") && SENTENCE.test(text)) return quoted(text);
  return undefined;
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

/**
 * A program that ran to its end and returned nothing to answer with: `null`, `""`, `[]`, `{}`, or
 * an `{answer: …}` whose answer is one of those (a search that found nothing). The run ends
 * `no_answer`: the program concluded; another program would only guess. (`undefined`, a program
 * that forgot its `return`, is a mistake and is revised.)
 */
export function emptyAnswer(answer: unknown): boolean {
  if (answer === undefined) return false;
  if (isEmpty(answer)) return true;
  return typeof answer === "object" && answer !== null && !Array.isArray(answer) && "answer" in answer && isEmpty((answer as { answer: unknown }).answer);
}

/** What a note beside an empty answer says (`{answer: null, note}`), to quote in the error. */
function noteOf(answer: unknown): string | undefined {
  if (typeof answer !== "object" || answer === null || !("note" in answer)) return undefined;
  const note = (answer as { note: unknown }).note;
  return typeof note === "string" ? note : undefined;
}

export function declinedError(runId: string | undefined, reason: string): RunError {
  return { code: "model_declined", message: `${runName(runId)} stopped: the model declined the task: ${reason}` };
}

export function noAnswerError(runId: string | undefined, answer: unknown): RunError {
  const note = noteOf(answer);
  const said = note === undefined ? `it returned ${quoted(JSON.stringify(answer) ?? "nothing")}` : quoted(note);
  return { code: "no_answer", message: `${runName(runId)} ended without an answer: the program ran to its end and found none (${said}).` };
}

export function exhaustedError(runId: string | undefined, attempts: number, last: ProgramError | undefined): RunError {
  const lastError = last === undefined ? "" : `; the last one ended with ${last.kind}: ${quoted(last.message.split("\n")[0] ?? "")}`;
  return {
    code: "attempts_exhausted",
    message: `${runName(runId)} failed: no program answered in ${attempts} attempt${attempts === 1 ? "" : "s"}${lastError}`,
  };
}

/** A model endpoint (or any dependency) failed mid-run: the run stops with what it has so far. */
export function interruptedError(runId: string | undefined, code: string, reason: string): RunError {
  return { code, message: `${runName(runId)} stopped: ${reason}` };
}
