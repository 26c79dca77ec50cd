import { exports } from "cloudflare:workers";
import harnessSource from "../generated/harness.js.txt";
import quickjsBytes from "../generated/quickjs.wasm.bin";
import type { ProgramError } from "../types";
import type { CallContext, IsolateLimits, IsolateRunRequest, IsolateRunResult } from "../wire";
import type { GatewayProps } from "./tool-gateway";

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

interface ProgramIsolateStub {
  run(request: IsolateRunRequest): Promise<IsolateRunResult>;
}

const ISOLATE_COMPATIBILITY_DATE = "2026-04-20";
/** Changes whenever the harness or QuickJS changes, so a kept isolate never runs stale code. */
const HARNESS_VERSION = `${harnessSource.length}-${quickjsBytes.byteLength}`;

/**
 * `tenant` (default): one program isolate per tenant and harness version, kept warm by the
 * loader (LOADER.get). Each attempt still gets a fresh QuickJS runtime in its own WebAssembly
 * instance and memory, so nothing of one program survives into the next, and the isolate's only
 * binding is the tenant's own tools. Measured here, a fresh isolate costs ~100 ms of start (its
 * wasm compiled anew, and never warmed up: a CPU-budget stretch then runs 5–10× slower).
 * `fresh`: a new isolate per attempt (LOADER.load), with CPU and subrequest limits when deployed.
 */
export type IsolateMode = "tenant" | "fresh";

/** Deployed, Cloudflare enforces these per invocation too; local workerd ignores them. */
const TENANT_ISOLATE_LIMITS = { cpuMs: 30_000, subRequests: 205 };

function workerCode(tenantId: string, limits: { cpuMs: number; subRequests: number } = TENANT_ISOLATE_LIMITS): WorkerLoaderWorkerCode {
  const props: GatewayProps = { tenantId };
  return {
    compatibilityDate: ISOLATE_COMPATIBILITY_DATE,
    limits,
    mainModule: "harness.js",
    modules: { "harness.js": harnessSource, "quickjs.wasm": { wasm: quickjsBytes } },
    // No network at all: the program's only way out is the tools capability.
    globalOutbound: null,
    env: { TOOLS: exports.ToolGateway({ props }) },
  };
}

function failedResult(error: ProgramError, ms: number): IsolateRunResult {
  return {
    result: { ok: false, error, logs: [], calls: [], stats: { toolCalls: 0, interruptChecks: 0, fuel: 0, durationMs: ms } },
    trace: [],
    timing: { engineReadyMs: undefined },
  };
}

function deadlineError(ms: number): ProgramError {
  return { kind: "timeout", limit: "deadlineMs", message: `the attempt did not finish within its deadline of ${ms} ms and was stopped` };
}

/** The sandbox names its own options; a run's caller knows the deadline as `deadlineMs`. */
function withRunLimitNames(outcome: IsolateRunResult): IsolateRunResult {
  const { result } = outcome;
  if (result.ok || result.error.limit !== "timeoutMs") return outcome;
  return { ...outcome, result: { ...result, error: { ...result.error, limit: "deadlineMs" } } };
}

/**
 * Deployed, the platform stops an isolate that spends its `cpuMs`: the call then fails with its
 * own message. That is a limit too, and is reported as one.
 */
function isolateFailure(error: unknown): ProgramError {
  const message = error instanceof Error ? error.message : String(error);
  if (/cpu time|exceeded cpu|cpu limit/i.test(message)) {
    return { kind: "cpu_budget", limit: "cpuMs", message: `the program isolate was stopped by the platform's CPU limit (${message})` };
  }
  return { kind: "runtime", message: `the program isolate failed: ${message}` };
}

/**
 * Run one program attempt in a Worker Loader isolate: no network (`globalOutbound: null`), no
 * binding but the tenant's tools capability, QuickJS inside for counted CPU and bounded memory,
 * and a wall-clock deadline enforced from here.
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
  const worker =
    mode === "tenant"
      ? env.LOADER.get(`atc-sandbox:${HARNESS_VERSION}:${request.tenantId}`, async () => workerCode(request.tenantId))
      : env.LOADER.load(workerCode(request.tenantId, { cpuMs: Math.max(1_000, request.limits.deadlineMs), subRequests: request.limits.maxToolCalls + 5 }));
  const isolate = worker.getEntrypoint() as unknown as ProgramIsolateStub;
  const { deadlineMs, toolTimeoutMs: _t, maxToolResponseBytes: _m, ...limits } = request.limits;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<IsolateRunResult>((resolve) => {
    timer = setTimeout(() => resolve(failedResult(deadlineError(deadlineMs), deadlineMs)), deadlineMs);
  });
  try {
    // The sandbox's own deadline is what is left of the attempt's (loading the isolate took some).
    const timeoutMs = Math.max(1, deadlineMs - (Date.now() - started));
    const run = isolate.run({ program: request.program, tools: request.tools, limits: { ...limits, timeoutMs }, calls });
    const outcome = withRunLimitNames(await Promise.race([run, deadline]));
    const isolateMs = Date.now() - started;
    // A result that arrives after the deadline (the timer could not fire while this thread was
    // busy) is not an answer: the attempt failed at its deadline.
    const { result } = outcome;
    if (result.ok && isolateMs > deadlineMs) {
      return { ...outcome, result: { ok: false, error: deadlineError(deadlineMs), logs: result.logs, calls: result.calls, stats: result.stats }, isolateMs };
    }
    return { ...outcome, isolateMs };
  } catch (error) {
    // The isolate itself failed (it should not: QuickJS contains the program). Report, don't throw.
    return { ...failedResult(isolateFailure(error), deadlineMs), isolateMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
