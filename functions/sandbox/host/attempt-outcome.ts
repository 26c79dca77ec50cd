import type { ProgramError } from "../types";
import type { IsolateRunResult } from "../wire";

/** A result for an attempt that ended without the harness answering. */
export function failedResult(error: ProgramError, ms: number): IsolateRunResult {
  return {
    result: { ok: false, error, logs: [], calls: [], stats: { toolCalls: 0, interruptChecks: 0, fuel: 0, durationMs: ms } },
    trace: [],
    timing: { engineReadyMs: undefined },
  };
}

/** The attempt ran out of its wall-clock deadline. */
export function deadlineError(ms: number): ProgramError {
  return { kind: "timeout", limit: "deadlineMs", message: `the attempt did not finish within its deadline of ${ms} ms and was stopped` };
}

/**
 * The attempt's deadline passed before its program could start (the program host's thread was
 * busy with other programs): nothing of it ran. `limit` is the caller's name for the deadline:
 * `deadlineMs` for a run, `timeoutMs` inside the sandbox.
 */
export function deadlinePassedBeforeStart(limit: "deadlineMs" | "timeoutMs"): ProgramError {
  return {
    kind: "timeout",
    limit,
    message: "the attempt's deadline passed before its program could start (the program host was busy); the program was not run",
  };
}

/** The sandbox names its own options; a run's caller knows the deadline as `deadlineMs`. */
export function withRunLimitNames(outcome: IsolateRunResult): IsolateRunResult {
  const { result } = outcome;
  if (result.ok || result.error.limit !== "timeoutMs") return outcome;
  return { ...outcome, result: { ...result, error: { ...result.error, limit: "deadlineMs" } } };
}

/** A result that arrives after the deadline (the timer could not fire in time) is not an answer. */
export function lateResultFails(outcome: IsolateRunResult, elapsedMs: number, deadlineMs: number): IsolateRunResult {
  const { result } = outcome;
  if (!result.ok || elapsedMs <= deadlineMs) return outcome;
  return { ...outcome, result: { ok: false, error: deadlineError(deadlineMs), logs: result.logs, calls: result.calls, stats: result.stats } };
}

/**
 * Deployed, the platform stops an isolate that spends its `cpuMs`: the call then fails with its
 * own message. That is a limit too, and is reported as one.
 */
export function isolateFailure(error: unknown): ProgramError {
  const message = error instanceof Error ? error.message : String(error);
  if (/cpu time|exceeded cpu|cpu limit/i.test(message)) {
    return { kind: "cpu_budget", limit: "cpuMs", message: `the program isolate was stopped by the platform's CPU limit (${message})` };
  }
  return { kind: "runtime", message: `the program isolate failed: ${message}` };
}
