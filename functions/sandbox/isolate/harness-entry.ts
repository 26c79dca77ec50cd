/**
 * The code of every program isolate (a Worker Loader isolate with `globalOutbound: null`). It
 * is trusted: it runs the untrusted program inside QuickJS with counted CPU and bounded memory,
 * and forwards `tools.x(args)` to the one capability it was given (`env.TOOLS`, or the one passed
 * with the run). Nothing of the
 * isolate (env, globals, fetch) is reachable from inside QuickJS.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import quickjsWasm from "./quickjs.wasm";
import { timeoutLeft } from "../deadline";
import { deadlinePassedBeforeStart, failedResult } from "../host/attempt-outcome";
import { DEFAULT_LIMITS, executeProgram, loadQuickJs } from "../index";
import type { ProgramResult } from "../types";
import type { IsolateRunRequest, IsolateRunResult, RelayedTools, ToolsCapability, TraceEntry } from "../wire";

interface IsolateEnv {
  /** In the service's own process: its tool gateway. On the program host: absent, see `run`. */
  TOOLS?: ToolsCapability;
}

export default class ProgramIsolate extends WorkerEntrypoint<IsolateEnv> {
  /**
   * Run one program to completion (or to a limit) and return its result and call trace. `tools`,
   * when given, is the capability for this run (the program host's relay to the service).
   */
  async run(request: IsolateRunRequest, tools?: RelayedTools): Promise<IsolateRunResult> {
    const readyAt = Date.now();
    const capability = tools ?? this.env.TOOLS;
    if (capability === undefined) throw new Error("the program isolate has no tools capability");
    const engine = await loadQuickJs(quickjsWasm);
    // On the program host the run may have waited for this thread while the service closed the attempt.
    if (tools !== undefined && !(await tools.open()))
      return failedResult({ kind: "runtime", message: "the attempt was closed before its program could start; it was not run" }, 0);
    // A run that reached this isolate late (its thread busy with other programs) gets only what
    // is left of its absolute deadline, counted from now: the run's clock checks (each fuel
    // callback, its timer) use this timeout, so it stops at the deadline, not a timeout after it.
    const timeoutMs = timeoutLeft(request.limits.timeoutMs ?? DEFAULT_LIMITS.timeoutMs, request.deadlineAt, Date.now());
    if (timeoutMs <= 0) return failedResult(deadlinePassedBeforeStart("timeoutMs"), 0);
    const trace: TraceEntry[] = [];
    let firstCallAt: number | undefined;
    const result: ProgramResult = await executeProgram(request.program, {
      ...request.limits,
      timeoutMs,
      engine,
      tools: request.tools,
      callTool: async (name, args, context) => {
        firstCallAt ??= Date.now();
        const outcome = await capability.call(name, args, request.calls);
        trace.push({ ...outcome.trace, index: context.index, ...(context.line === undefined ? {} : { line: context.line }) });
        if (!outcome.ok) throw new Error(outcome.error);
        return outcome.value;
      },
    });
    return { result, trace, timing: { engineReadyMs: firstCallAt === undefined ? undefined : firstCallAt - readyAt } };
  }
}
