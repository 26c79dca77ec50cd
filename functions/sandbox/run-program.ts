import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { BOOTSTRAP_FILENAME, BOOTSTRAP_SOURCE } from "./bootstrap";
import { sandboxDiagnostics } from "./diagnostics";
import { loadQuickJs, unmetered, type SandboxInstance } from "./engine";
import { YIELD_EVERY_MS, yieldToEventLoop } from "./fuel";
import { MAX_STACK_CHARS, readEnvelope, readThrown } from "./host-reads";
import { acquireInstance, releaseInstance } from "./instance-pool";
import { errorFromThrown, errorMessage, lineInStack, parseThrownEnvelope, utf8Length, type ThrownValue } from "./outcome";
import { prepareProgram } from "./program-shape";
import { DISPOSE_REFUELS, disposeWithin } from "./run-disposal";
import { resolveLimits, type RunLimits } from "./run-limits";
import { RunLog } from "./run-log";
import { RunMeter } from "./run-meter";
import type { ProgramError, ProgramErrorKind, ProgramResult, RunOptions, ToolCallRecord } from "./types";

/** Below this distance from its ceiling, the sandbox's memory counts as exhausted. */
const EXHAUSTED_MARGIN_BYTES = 8 * 1024 * 1024;

type Outcome = { index: number; ok: true; text: string | undefined } | { index: number; ok: false; message: string };

/** The option each kind of stop comes from, when the stop itself does not say more precisely. */
const LIMIT_OF_KIND: Partial<Record<ProgramErrorKind, string>> = {
  timeout: "timeoutMs",
  memory: "memoryLimitBytes",
  stack_overflow: "maxStackSizeBytes",
  too_many_calls: "maxToolCalls",
};

/**
 * Run a program (JavaScript from `transpile`) in a fresh QuickJS sandbox. Never throws: every
 * failure, including the sandbox's own, comes back as `{ ok: false, error }`.
 */
export async function runProgram(js: string, options: RunOptions): Promise<ProgramResult> {
  try {
    return await new ProgramRun(js, options).execute();
  } catch (error) {
    return {
      ok: false,
      error: { kind: "runtime", message: `the sandbox failed: ${errorMessage(error)}` },
      logs: [],
      calls: [],
      stats: { toolCalls: 0, interruptChecks: 0, fuel: 0, durationMs: 0 },
    };
  }
}

class ProgramRun {
  readonly #js: string;
  readonly #options: RunOptions;
  readonly #limits: RunLimits;
  readonly #allowed: ReadonlySet<string>;
  readonly #started = Date.now();
  readonly #abort = new AbortController();
  readonly #meter: RunMeter;
  readonly #log: RunLog;
  readonly #calls: ToolCallRecord[] = [];
  readonly #deferreds = new Map<number, QuickJSDeferredPromise>();
  #inflight = 0;
  readonly #ready: Outcome[] = [];
  #wake: (() => void) | undefined;
  #lastYield = this.#started;
  #resultBytes = 0;
  #finished = false;
  #instance: SandboxInstance | undefined;

  constructor(js: string, options: RunOptions) {
    this.#js = js;
    this.#options = options;
    this.#limits = resolveLimits(options);
    this.#meter = new RunMeter(this.#limits, this.#started);
    this.#log = new RunLog(this.#limits);
    this.#allowed = new Set(options.tools);
  }

  async execute(): Promise<ProgramResult> {
    sandboxDiagnostics.runs++;
    const prepared = prepareProgram(this.#js);
    if (!prepared.ok) return this.#failure({ kind: "syntax", message: `SyntaxError: ${prepared.message}`, line: prepared.line });

    let instance: SandboxInstance;
    try {
      const engine = this.#options.engine ?? (await loadQuickJs());
      instance = await acquireInstance(engine, this.#limits.memoryLimitBytes, this.#options.isolationKey);
    } catch (error) {
      return this.#failure({ kind: "runtime", message: `the sandbox could not start: ${errorMessage(error)}` });
    }
    this.#instance = instance;
    instance.refuel = (fuelLeft) => this.#meter.refuel(fuelLeft);

    const timer = setTimeout(() => {
      this.#meter.halt("timeout", this.#meter.timeoutMessage(), "timeoutMs");
      this.#wakeUp();
    }, this.#limits.timeoutMs);
    let runtime: QuickJSRuntime | undefined;
    let context: QuickJSContext | undefined;
    const owned: QuickJSHandle[] = [];
    let healthy = true;
    try {
      runtime = instance.quickjs.newRuntime({
        memoryLimitBytes: this.#limits.memoryLimitBytes,
        maxStackSizeBytes: this.#limits.maxStackSizeBytes,
        interruptHandler: () => this.#meter.interrupt(),
      });
      runtime.setModuleLoader((name) => ({
        error: new Error(`cannot import "${name}": a program has no modules; its only capability is the global \`tools\` object`),
      }));
      context = runtime.newContext();
      return await this.#drive(runtime, context, prepared.code, owned);
    } catch (error) {
      // A host-level exception inside the sandbox (host stack overflow from deep native
      // recursion, a WebAssembly trap): the instance is in an unknown state; never touch it again.
      healthy = false;
      sandboxDiagnostics.abandonedInstances++;
      return this.#failure(this.#hostFailure(error));
    } finally {
      this.#finished = true;
      clearTimeout(timer);
      this.#abort.abort(new Error("the program run ended"));
      healthy &&= !this.#meter.meterStopped;
      // After out-of-memory QuickJS's heap may be inconsistent, and freeing it can run without
      // end: such an instance is dropped whole, never disposed. Any other disposal is metered
      // too, with a budget of its own: no wasm work done for a program runs unmetered.
      const clean = healthy && !this.#memoryExhausted() && disposeWithin(instance, DISPOSE_REFUELS, { deferreds: this.#deferreds, owned, context, runtime });
      instance.refuel = unmetered;
      releaseInstance(instance, this.#limits.memoryLimitBytes, this.#options.isolationKey, clean);
    }
  }

  async #drive(runtime: QuickJSRuntime, context: QuickJSContext, code: string, owned: QuickJSHandle[]): Promise<ProgramResult> {
    const run = this.#bootstrap(context);
    owned.push(run);

    const compiled = context.evalCode(code, this.#limits.filename, { type: "global" });
    if (compiled.error) {
      const thrown = readThrown(context, compiled.error);
      compiled.error.dispose();
      return this.#failure(this.#meter.stopError() ?? this.#classify(thrown, true));
    }
    const program = compiled.value;
    owned.push(program);

    const started = context.callFunction(run, context.undefined, program);
    if (started.error) {
      const thrown = readThrown(context, started.error);
      started.error.dispose();
      return this.#failure(this.#meter.stopError() ?? this.#classify(thrown, false));
    }
    const envelope = started.value;
    owned.push(envelope);

    for (;;) {
      const jobs = runtime.executePendingJobs(-1);
      if (jobs.error) {
        const thrown = readThrown(context, jobs.error);
        jobs.error.dispose();
        return this.#failure(this.#meter.stopError() ?? this.#classify(thrown, false));
      }
      const stopped = this.#meter.stopError();
      if (stopped) return this.#failure(stopped);

      const state = context.getPromiseState(envelope);
      if (state.type === "fulfilled") {
        const text = readEnvelope(context, state.value, this.#limits.maxAnswerBytes);
        state.value.dispose();
        return this.#settle(text);
      }
      if (state.type === "rejected") {
        const thrown = readThrown(context, state.error);
        state.error.dispose();
        return this.#failure(this.#classify(thrown, false));
      }
      if (this.#ready.length === 0) {
        if (this.#inflight === 0 && !runtime.hasPendingJob()) {
          // A promise job that runs out of memory dies silently and leaves its chain pending.
          if (this.#memoryExhausted()) {
            return this.#failure({ kind: "memory", message: "the program ran out of sandbox memory (its promises can no longer settle)" });
          }
          return this.#failure({
            kind: "never_settles",
            message: "the program is waiting on a promise that never settles (no tool call is pending)",
          });
        }
        await this.#nextOutcome();
      }
      // Let the isolate's other work (other requests, locally the whole workerd process) in
      // before the program's next stretch: awaiting only promises would never leave the
      // microtask queue while tool results keep arriving. At most every few ms, so that a run of
      // quick tool calls does not pay a timer turn per call.
      if (Date.now() - this.#lastYield >= YIELD_EVERY_MS) {
        await yieldToEventLoop();
        this.#lastYield = Date.now();
      }
      const late = this.#meter.stopError();
      if (late) return this.#failure(late);
      this.#deliver(context);
      // The program yielded to await tool results: a new synchronous stretch begins.
      this.#meter.newStretch();
    }
  }

  /** Evaluate the bootstrap, hand it the host functions, and return its `run` function. */
  #bootstrap(context: QuickJSContext): QuickJSHandle {
    const init = context.unwrapResult(context.evalCode(BOOTSTRAP_SOURCE, BOOTSTRAP_FILENAME, { type: "global", strict: true }));
    const hostCall = context.newFunction("hostCall", (name, json, stack) => this.#hostCall(context, name, json, stack));
    const hostLog = context.newFunction("hostLog", (line) => (this.#log.keep(context, line) ? context.true : context.false));
    const names = context.newString(JSON.stringify([...this.#allowed]));
    const maxLine = context.newNumber(this.#limits.maxLogLineChars);
    try {
      return context.unwrapResult(context.callFunction(init, context.undefined, hostCall, hostLog, names, maxLine));
    } finally {
      for (const handle of [maxLine, names, hostLog, hostCall, init]) handle.dispose();
    }
  }

  /** `hostCall(name, argumentsJson, callSiteStack)`: a promise handle, or a refusal message. */
  #hostCall(context: QuickJSContext, nameHandle: QuickJSHandle, jsonHandle: QuickJSHandle, stackHandle: QuickJSHandle): QuickJSHandle {
    if (this.#meter.stopping) return context.newString("the run is stopping");
    const name = context.typeof(nameHandle) === "string" ? context.getString(nameHandle) : "";
    if (!this.#allowed.has(name)) return context.newString(`tool ${name} is not in this run's candidate set`);
    const { maxToolCalls, maxArgumentBytes } = this.#limits;
    if (this.#calls.length >= maxToolCalls) {
      this.#meter.halt("too_many_calls", `the program tried to make more than ${maxToolCalls} tool calls`, "maxToolCalls");
      return context.newString(`too many tool calls: at most ${maxToolCalls} per program`);
    }
    let args: unknown;
    if (context.typeof(jsonHandle) === "string") {
      const length = context.getLength(jsonHandle) ?? 0;
      const text = length > maxArgumentBytes ? undefined : context.getString(jsonHandle);
      if (text === undefined || utf8Length(text) > maxArgumentBytes) {
        return context.newString(`tools.${name}: the arguments exceed ${maxArgumentBytes} bytes of JSON`);
      }
      try {
        args = JSON.parse(text);
      } catch {
        return context.newString(`tools.${name}: the arguments are not JSON`);
      }
    }
    const stack = context.typeof(stackHandle) === "string" ? context.getString(stackHandle).slice(0, MAX_STACK_CHARS) : undefined;
    const line = lineInStack(stack, this.#limits.filename);
    const index = this.#calls.length;
    this.#calls.push({ tool: name, ...(line === undefined ? {} : { line }), ok: false });
    const deferred = context.newPromise();
    this.#deferreds.set(index, deferred);
    this.#inflight++;
    void this.#invoke(name, args, index, line);
    // The library takes ownership of the returned handle; the deferred keeps its resolvers.
    return deferred.handle;
  }

  /** Run the host callback; its outcome waits in `#ready` until the drive loop delivers it. */
  async #invoke(name: string, args: unknown, index: number, line: number | undefined): Promise<void> {
    let outcome: Outcome;
    try {
      const value = await this.#options.callTool(name, args, {
        signal: this.#abort.signal,
        index,
        ...(line === undefined ? {} : { line }),
      });
      outcome = this.#encodeResult(name, index, value);
    } catch (error) {
      outcome = { index, ok: false, message: errorMessage(error) };
    }
    this.#inflight--;
    if (this.#finished) return;
    this.#ready.push(outcome);
    this.#wakeUp();
  }

  #encodeResult(name: string, index: number, value: unknown): Outcome {
    if (value === undefined) return { index, ok: true, text: undefined };
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      return { index, ok: false, message: `tool ${name} returned a value that is not JSON (${errorMessage(error)})` };
    }
    if (text === undefined) return { index, ok: true, text: undefined };
    const bytes = utf8Length(text);
    this.#resultBytes += bytes;
    if (this.#resultBytes > this.#limits.maxResultBytes) {
      this.#meter.halt(
        "output_too_large",
        `tool results exceed ${this.#limits.maxResultBytes} bytes in total (tools.${name} returned ${bytes} bytes)`,
        "maxResultBytes",
      );
    }
    return { index, ok: true, text };
  }

  /** Hand every settled tool call back to the program (resolve or reject its promise). */
  #deliver(context: QuickJSContext): void {
    for (const outcome of this.#ready.splice(0)) {
      const deferred = this.#deferreds.get(outcome.index);
      const record = this.#calls[outcome.index];
      if (!deferred || !record) continue;
      this.#deferreds.delete(outcome.index);
      try {
        if (outcome.ok) {
          record.ok = true;
          if (outcome.text === undefined) deferred.resolve();
          else {
            const value = context.newString(outcome.text);
            try {
              deferred.resolve(value);
            } finally {
              value.dispose();
            }
          }
        } else {
          record.error = outcome.message;
          const reason = context.newString(outcome.message);
          try {
            deferred.reject(reason);
          } finally {
            reason.dispose();
          }
        }
      } finally {
        deferred.dispose();
      }
    }
  }

  async #nextOutcome(): Promise<void> {
    if (this.#ready.length > 0 || this.#meter.stopping) return;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #settle(envelope: string | { tooLarge: number }): ProgramResult {
    const { maxAnswerBytes, filename } = this.#limits;
    if (typeof envelope !== "string" || (envelope.startsWith("A") && utf8Length(envelope) - 1 > maxAnswerBytes)) {
      const size = typeof envelope === "string" ? utf8Length(envelope) - 1 : envelope.tooLarge;
      return this.#failure({ kind: "output_too_large", message: `the answer is ${size} bytes of JSON; the limit is ${maxAnswerBytes}` });
    }
    if (envelope === "U") return this.#success(undefined);
    if (envelope.startsWith("A")) return this.#success(JSON.parse(envelope.slice(1)));
    return this.#failure(errorFromThrown(parseThrownEnvelope(envelope.slice(1)), { filename, compiling: false, memoryExhausted: this.#memoryExhausted() }));
  }

  #classify(thrown: ThrownValue, compiling: boolean): ProgramError {
    return errorFromThrown(thrown, { filename: this.#limits.filename, compiling, memoryExhausted: this.#memoryExhausted() });
  }

  #hostFailure(error: unknown): ProgramError {
    const stopped = this.#meter.stopError();
    if (stopped) return stopped;
    const message = errorMessage(error);
    if (error instanceof RangeError && /call stack/i.test(message)) {
      return { kind: "stack_overflow", message: "the program recursed too deeply (the host's stack overflowed)" };
    }
    if (this.#memoryExhausted()) return { kind: "memory", message: `the program ran out of sandbox memory (${message})` };
    return { kind: "runtime", message: `the sandbox failed: ${message}` };
  }

  #memoryExhausted(): boolean {
    const instance = this.#instance;
    if (!instance) return false;
    return instance.memory.buffer.byteLength + EXHAUSTED_MARGIN_BYTES >= instance.maxBytes;
  }

  #success(answer: unknown): ProgramResult {
    return { ok: true, answer, logs: this.#log.lines(), calls: this.#calls, stats: this.#stats() };
  }

  #failure(error: ProgramError): ProgramResult {
    const limit = error.limit ?? LIMIT_OF_KIND[error.kind];
    return { ok: false, error: limit === undefined ? error : { ...error, limit }, logs: this.#log.lines(), calls: this.#calls, stats: this.#stats() };
  }

  #stats(): ProgramResult["stats"] {
    return { toolCalls: this.#calls.length, interruptChecks: this.#meter.totalChecks, fuel: this.#meter.totalFuel, durationMs: Date.now() - this.#started };
  }
}
