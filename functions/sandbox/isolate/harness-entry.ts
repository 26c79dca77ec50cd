/**
 * The code of every program isolate (a Worker Loader isolate with `globalOutbound: null`). It
 * is trusted: it runs the untrusted program inside QuickJS with counted CPU and bounded memory,
 * and forwards `tools.x(args)` to the one capability it was given, `env.TOOLS`. Nothing of the
 * isolate (env, globals, fetch) is reachable from inside QuickJS.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import quickjsWasm from "./quickjs.wasm";
import { executeProgram, loadQuickJs } from "../index";
import type { ProgramResult } from "../types";
import type { IsolateRunRequest, IsolateRunResult, ToolsCapability, TraceEntry } from "../wire";

interface IsolateEnv {
  TOOLS: ToolsCapability;
}

export default class ProgramIsolate extends WorkerEntrypoint<IsolateEnv> {
  /** Run one program to completion (or to a limit) and return its result and call trace. */
  async run(request: IsolateRunRequest): Promise<IsolateRunResult> {
    const readyAt = Date.now();
    const engine = await loadQuickJs(quickjsWasm);
    const trace: TraceEntry[] = [];
    let firstCallAt: number | undefined;
    const result: ProgramResult = await executeProgram(request.program, {
      ...request.limits,
      engine,
      tools: request.tools,
      callTool: async (name, args, context) => {
        firstCallAt ??= Date.now();
        const outcome = await this.env.TOOLS.call(name, args, request.calls);
        trace.push({ ...outcome.trace, index: context.index, ...(context.line === undefined ? {} : { line: context.line }) });
        if (!outcome.ok) throw new Error(outcome.error);
        return outcome.value;
      },
    });
    return { result, trace, timing: { engineReadyMs: firstCallAt === undefined ? undefined : firstCallAt - readyAt } };
  }
}
