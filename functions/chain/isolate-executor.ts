import { exports } from "cloudflare:workers";
import harnessSource from "../sandbox/generated/harness.js.txt";
import quickjsBytes from "../sandbox/generated/quickjs.wasm.bin";
import type { IsolateLimits, IsolateRunRequest, IsolateRunResult } from "../sandbox/isolate/protocol";
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
  replay: GatewayProps["replay"];
  limits: AttemptLimits;
}

export type AttemptOutcome = IsolateRunResult & { isolateMs: number };

interface ProgramIsolateStub {
  run(request: IsolateRunRequest): Promise<IsolateRunResult>;
}

const ISOLATE_COMPATIBILITY_DATE = "2026-04-20";

function deadlineResult(ms: number): IsolateRunResult {
  return {
    result: {
      ok: false,
      error: { kind: "timeout", message: `the attempt did not finish within ${ms} ms and was stopped` },
      logs: [],
      calls: [],
      stats: { toolCalls: 0, interruptChecks: 0, durationMs: ms },
    },
    trace: [],
    timing: { engineReadyMs: undefined },
  };
}

/**
 * Run one program attempt in a fresh Worker Loader isolate: no network (`globalOutbound:
 * null`), no bindings but the tools capability, QuickJS inside for counted CPU and bounded
 * memory, and a wall-clock deadline from here. Deployed, the isolate's own CPU and subrequest
 * limits apply too (local workerd does not enforce them).
 */
export async function runAttemptInIsolate(env: Env, request: AttemptRequest): Promise<AttemptOutcome> {
  const started = Date.now();
  const props: GatewayProps = {
    tenantId: request.tenantId,
    allowed: request.tools,
    replay: request.replay,
    timeoutMs: request.limits.toolTimeoutMs,
    maxResponseBytes: request.limits.maxToolResponseBytes,
  };
  const worker = env.LOADER.load({
    compatibilityDate: ISOLATE_COMPATIBILITY_DATE,
    mainModule: "harness.js",
    modules: { "harness.js": harnessSource, "quickjs.wasm": { wasm: quickjsBytes } },
    globalOutbound: null,
    env: { TOOLS: exports.ToolGateway({ props }) },
    limits: { cpuMs: Math.max(1_000, request.limits.deadlineMs), subRequests: request.limits.maxToolCalls + 5 },
  });
  const isolate = worker.getEntrypoint() as unknown as ProgramIsolateStub;
  const { deadlineMs, toolTimeoutMs: _t, maxToolResponseBytes: _m, ...limits } = request.limits;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<IsolateRunResult>((resolve) => {
    timer = setTimeout(() => resolve(deadlineResult(deadlineMs)), deadlineMs);
  });
  try {
    const outcome = await Promise.race([isolate.run({ program: request.program, tools: request.tools, limits: { ...limits, timeoutMs: deadlineMs } }), deadline]);
    return { ...outcome, isolateMs: Date.now() - started };
  } catch (error) {
    // The isolate itself failed (it should not: QuickJS contains the program). Report, don't throw.
    const message = error instanceof Error ? error.message : String(error);
    const failed = deadlineResult(deadlineMs);
    failed.result = { ...failed.result, ok: false, error: { kind: "runtime", message: `the program isolate failed: ${message}` } };
    return { ...failed, isolateMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
