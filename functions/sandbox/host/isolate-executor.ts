import { exports } from "cloudflare:workers";
import type { CallContext, GatewayProps, IsolateLimits, IsolateRunRequest, IsolateRunResult } from "../wire";
import { deadlineError, failedResult, isolateFailure, lateResultFails, withRunLimitNames } from "./attempt-outcome";
import { programIsolate, type IsolateMode } from "./program-isolate";
import { runAttemptOnProgramHost, type ProgramHost } from "./remote-attempt";

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

/** The program host, when this service is configured with one (local workerd: `npm start`, tests). */
function programHost(env: Env): ProgramHost | undefined {
  return env.PROGRAM_HOST === undefined || env.PROGRAM_HOST_SECRET === undefined ? undefined : { binding: env.PROGRAM_HOST, secret: env.PROGRAM_HOST_SECRET };
}

/** In this process: the isolate's `env.TOOLS` is the service's tool gateway, and the deadline a race. */
async function runInProcess(env: Env, request: AttemptRequest, mode: IsolateMode, run: IsolateRunRequest): Promise<IsolateRunResult> {
  const props: GatewayProps = { tenantId: request.tenantId };
  const isolate = programIsolate(
    env.LOADER,
    { tenantId: request.tenantId, mode, deadlineMs: request.limits.deadlineMs, maxToolCalls: request.limits.maxToolCalls },
    { TOOLS: exports.ToolGateway({ props }) },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineReached()), request.limits.deadlineMs);
  });
  try {
    return await Promise.race([isolate.run(run), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

class DeadlineReached extends Error {}

/**
 * Run one program attempt in a Worker Loader isolate: no network (`globalOutbound: null`), no
 * way out but the tenant's tools, QuickJS inside for counted CPU and bounded memory, and a
 * wall-clock deadline enforced from here. With a program host bound (`PROGRAM_HOST`), the isolate
 * runs there, in another process (remote-attempt.ts); otherwise in this one.
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
  const host = programHost(env);
  try {
    // The sandbox's own deadline is what is left of the attempt's (reaching the isolate took some).
    const timeoutMs = Math.max(1, deadlineMs - (Date.now() - started));
    const outcome =
      host === undefined
        ? await runInProcess(env, request, mode, { program: request.program, tools: request.tools, limits: { ...limits, timeoutMs }, calls })
        : await runAttemptOnProgramHost(
            host,
            // The host needs no replay records: the calls come back here and are answered with them.
            // `deadlineAt` is absolute (this clock; the host runs on the same machine), so a
            // program the host starts late gets only what is left, not a fresh `timeoutMs`.
            {
              tenantId: request.tenantId,
              mode,
              deadlineMs,
              deadlineAt: started + deadlineMs,
              request: { program: request.program, tools: request.tools, limits: { ...limits, timeoutMs }, calls: { ...calls, replay: [] } },
            },
            calls,
          );
    const isolateMs = Date.now() - started;
    return { ...lateResultFails(withRunLimitNames(outcome), isolateMs, deadlineMs), isolateMs };
  } catch (error) {
    const isolateMs = Date.now() - started;
    if (error instanceof DeadlineReached) return { ...failedResult(deadlineError(deadlineMs), deadlineMs), isolateMs };
    // The isolate itself failed (it should not: QuickJS contains the program). Report, don't throw.
    return { ...failedResult(isolateFailure(error), deadlineMs), isolateMs };
  }
}
