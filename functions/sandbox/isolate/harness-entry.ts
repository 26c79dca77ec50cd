/**
 * The code of every program isolate (a Worker Loader isolate with `globalOutbound: null`). It
 * is trusted: it runs the untrusted program inside QuickJS with counted CPU and bounded memory,
 * and forwards `tools.x(args)` to the one capability it was given (`env.TOOLS`, or the one passed
 * with the run). Nothing of the
 * isolate (env, globals, fetch) is reachable from inside QuickJS.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import quickjsWasm from "./quickjs.wasm";
import { executeProgram, loadQuickJs } from "../index";
import type { ProgramResult } from "../types";
import type { IsolateRunRequest, IsolateRunResult, ToolsCapability, TraceEntry } from "../wire";

interface IsolateEnv {
  /** In the service's own process: its tool gateway. On the program host: absent, see `run`. */
  TOOLS?: ToolsCapability;
}

export default class ProgramIsolate extends WorkerEntrypoint<IsolateEnv> {
  /**
   * Run one program to completion (or to a limit) and return its result and call trace. `tools`,
   * when given, is the capability for this run (the program host's relay to the service).
   */
  async run(request: IsolateRunRequest, tools?: ToolsCapability): Promise<IsolateRunResult> {
    const readyAt = Date.now();
    const capability = tools ?? this.env.TOOLS;
    if (capability === undefined) throw new Error("the program isolate has no tools capability");
    const engine = await loadQuickJs(quickjsWasm);
    const trace: TraceEntry[] = [];
    let firstCallAt: number | undefined;
    const result: ProgramResult = await executeProgram(request.program, {
      ...request.limits,
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
