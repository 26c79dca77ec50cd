import harnessSource from "../generated/harness.js.txt";
import quickjsBytes from "../generated/quickjs.wasm.bin";
import { isolateWorkerCode, type IsolateLimits } from "./isolate-code";
import type { IsolateRunRequest, IsolateRunResult, RelayedTools } from "../wire";

/**
 * `tenant` (default): one program isolate per tenant and harness version, kept warm by the
 * loader (LOADER.get). Each attempt still gets a fresh QuickJS runtime in its own WebAssembly
 * instance and memory, so nothing of one program survives into the next, and the isolate can
 * reach only the tenant's own tools. Measured here, a fresh isolate costs ~100 ms of start (its
 * wasm compiled anew, and never warmed up: a CPU-budget stretch then runs 5–10× slower).
 * `fresh`: a new isolate per attempt (LOADER.load), with CPU and subrequest limits when deployed.
 */
export type IsolateMode = "tenant" | "fresh";

/** The harness's entrypoint (isolate/harness-entry.ts). */
export interface ProgramIsolateStub {
  run(request: IsolateRunRequest, tools?: RelayedTools): Promise<IsolateRunResult>;
}

/** What decides which isolate runs an attempt and what it may use. */
export interface IsolateChoice {
  tenantId: string;
  mode: IsolateMode;
  deadlineMs: number;
  maxToolCalls: number;
}

/** Changes whenever the harness or QuickJS changes, so a kept isolate never runs stale code. */
const HARNESS_VERSION = `${harnessSource.length}-${quickjsBytes.byteLength}`;
/** Deployed, Cloudflare enforces these per invocation too; local workerd ignores them. */
const TENANT_ISOLATE_LIMITS = { cpuMs: 30_000, subRequests: 205 };

/**
 * The Worker Loader isolate for one attempt: no network (`globalOutbound: null`), the harness and
 * QuickJS as its only code, and `env` as its only bindings (the service's tool gateway, or none
 * when the tools come with each run).
 */
export function programIsolate(loader: WorkerLoader, choice: IsolateChoice, env: Record<string, unknown>): ProgramIsolateStub {
  const code = (limits: IsolateLimits): WorkerLoaderWorkerCode => isolateWorkerCode({ harness: harnessSource, quickjs: quickjsBytes }, limits, env);
  const worker =
    choice.mode === "tenant"
      ? loader.get(`atc-sandbox:${HARNESS_VERSION}:${choice.tenantId}`, async () => code(TENANT_ISOLATE_LIMITS))
      : loader.load(code({ cpuMs: Math.max(1_000, choice.deadlineMs), subRequests: choice.maxToolCalls + 5 }));
  return worker.getEntrypoint() as unknown as ProgramIsolateStub;
}
