import type { CallContext, IsolateLimits, IsolateRunResult } from "../wire";
import { deadlineError, failedResult, isolateFailure, lateResultFails, withRunLimitNames } from "./attempt-outcome";
import type { IsolateMode } from "./program-isolate";
import { programExecutor } from "./program-executors";
import { isFailure } from "../../common/failures";

export type { IsolateMode } from "./program-isolate";

/** Limits of one program attempt, checked inside (QuickJS) and outside (the host deadline). */
export interface AttemptLimits extends IsolateLimits {
  /** Wall-clock deadline of the whole attempt, enforced from outside the program. */
  deadlineMs: number;
  maxToolCalls: number;
  toolTimeoutMs: number;
  maxToolResponseBytes: number;
}

export interface AttemptRequest {
  tenantId: string;
  program: string;
  tools: string[];
  replay: CallContext["replay"];
  limits: AttemptLimits;
  /** Keep whole tool results in the trace (probing needs them); runs keep clipped ones. */
  fullResults?: boolean;
}

export type AttemptOutcome = IsolateRunResult & { isolateMs: number };

/**
 * Run one program attempt in a Worker Loader isolate: no network (`globalOutbound: null`), no
 * way out but the tenant's tools, QuickJS inside for counted CPU and bounded memory, and a
 * wall-clock deadline enforced from here. Where the isolate runs is the configured executor's
 * choice (program-executors.ts): on the program host when one is bound (`PROGRAM_HOST`), in
 * another process; otherwise in this one.
 */
export async function runAttemptInIsolate(env: Env, request: AttemptRequest): Promise<AttemptOutcome> {
  const started = Date.now();
  const calls: CallContext = {
    allowed: request.tools,
    replay: request.replay,
    timeoutMs: request.limits.toolTimeoutMs,
    maxResponseBytes: request.limits.maxToolResponseBytes,
    ...(request.fullResults === true ? { fullResults: true } : {}),
  };
  const mode: IsolateMode = env.SANDBOX_ISOLATE === "fresh" ? "fresh" : "tenant";
  const { deadlineMs, toolTimeoutMs: _t, maxToolResponseBytes: _m, ...limits } = request.limits;
  try {
    // The sandbox's own deadline is what is left of the attempt's (reaching the isolate took some).
    const timeoutMs = Math.max(1, deadlineMs - (Date.now() - started));
    const outcome = await programExecutor(env).run({
      tenantId: request.tenantId,
      mode,
      deadlineMs,
      deadlineAt: started + deadlineMs,
      maxToolCalls: request.limits.maxToolCalls,
      run: { program: request.program, tools: request.tools, limits: { ...limits, timeoutMs }, calls },
    });
    const isolateMs = Date.now() - started;
    return { ...lateResultFails(withRunLimitNames(outcome), isolateMs, deadlineMs), isolateMs };
  } catch (error) {
    const isolateMs = Date.now() - started;
    if (isFailure(error, "timeout")) return { ...failedResult(deadlineError(deadlineMs), deadlineMs), isolateMs };
    // The isolate itself failed (it should not: QuickJS contains the program). Report, don't throw.
    return { ...failedResult(isolateFailure(error), deadlineMs), isolateMs };
  }
}
