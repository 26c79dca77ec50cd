import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { BOOTSTRAP_FILENAME, BOOTSTRAP_SOURCE } from "./bootstrap";
import { sandboxDiagnostics } from "./diagnostics";
import { loadQuickJs, unmetered, type SandboxInstance } from "./engine";
import { FUEL_ALLOWANCE, SandboxStopped, YIELD_EVERY_MS, yieldToEventLoop } from "./fuel";
import { acquireInstance, releaseInstance } from "./instance-pool";
import { DEFAULT_LIMITS, fuelForMs, STRETCH_FUEL_SHARE_OF_DEADLINE } from "./limits";
import { errorFromThrown, errorMessage, lineInStack, parseThrownEnvelope, utf8Length, type ThrownValue } from "./outcome";
import { prepareProgram } from "./program-shape";
import type { ProgramError, ProgramErrorKind, ProgramResult, RunOptions, ToolCallRecord } from "./types";

/**
 * Fuel allowances a disposal may spend (× FUEL_ALLOWANCE units: 10 M, ≈ 30–150 ms of work here).
 * Freeing a full 64 MiB heap took less than one allowance in Node.
 */
const DISPOSE_REFUELS = 500;

/** Below this distance from its ceiling, the sandbox's memory counts as exhausted. */
const EXHAUSTED_MARGIN_BYTES = 8 * 1024 * 1024;
const MAX_STACK_CHARS = 8_000;

type Limits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: (typeof DEFAULT_LIMITS)[K] extends string ? string : number } & {
  stretchFuel: number;
  totalFuel: number;
};

type Outcome = { index: number; ok: true; text: string | undefined } | { index: number; ok: false; message: string };

/** A hard stop: the host ends the run whatever the program does (it cannot catch these). */
type StopKind = Extract<ProgramErrorKind, "timeout" | "cpu_budget" | "too_many_calls" | "output_too_large">;

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
  readonly #limits: Limits;
  readonly #allowed: ReadonlySet<string>;
  readonly #started = Date.now();
  readonly #abort = new AbortController();
  readonly #logs: string[] = [];
  #logBytes = 0;
  #logTruncated = false;
  readonly #calls: ToolCallRecord[] = [];
  readonly #deferreds = new Map<number, QuickJSDeferredPromise>();
  #inflight = 0;
  readonly #ready: Outcome[] = [];
  #wake: (() => void) | undefined;
  #stop: { kind: StopKind; message: string; limit: string } | undefined;
  #stretchChecks = 0;
  #totalChecks = 0;
  #stretchFuel = 0;
  #totalFuel = 0;
  /** Set once the fuel meter threw through the wasm: the instance must never be touched again. */
  #meterStopped = false;
  #lastYield = this.#started;
  /** Fuel handed to the wasm at the last refuel (its fuel starts at 0, so the first refuel comes at once). */
  #allowance = 0;
  #resultBytes = 0;
  #finished = false;
  #instance: SandboxInstance | undefined;

  constructor(js: string, options: RunOptions) {
    this.#js = js;
    this.#options = options;
    const timeoutMs = options.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
    this.#limits = {
      memoryLimitBytes: options.memoryLimitBytes ?? DEFAULT_LIMITS.memoryLimitBytes,
      // QuickJS's check runs on the wasm's 5 MB C stack: 0 (no check) or more than that would let
      // recursion overwrite the heap.
      maxStackSizeBytes: clamp(options.maxStackSizeBytes ?? DEFAULT_LIMITS.maxStackSizeBytes, 16 * 1024, 1024 * 1024),
      stretchBudget: options.stretchBudget ?? DEFAULT_LIMITS.stretchBudget,
      totalBudget: options.totalBudget ?? DEFAULT_LIMITS.totalBudget,
      stretchFuel: options.stretchFuel ?? fuelForMs(timeoutMs * STRETCH_FUEL_SHARE_OF_DEADLINE),
      totalFuel: options.totalFuel ?? fuelForMs(timeoutMs),
      timeoutMs,
      maxToolCalls: options.maxToolCalls ?? DEFAULT_LIMITS.maxToolCalls,
      maxArgumentBytes: options.maxArgumentBytes ?? DEFAULT_LIMITS.maxArgumentBytes,
      maxResultBytes: options.maxResultBytes ?? DEFAULT_LIMITS.maxResultBytes,
      maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_LIMITS.maxAnswerBytes,
      maxLogLines: options.maxLogLines ?? DEFAULT_LIMITS.maxLogLines,
      maxLogBytes: options.maxLogBytes ?? DEFAULT_LIMITS.maxLogBytes,
      maxLogLineChars: Math.min(DEFAULT_LIMITS.maxLogLineChars, options.maxLogBytes ?? DEFAULT_LIMITS.maxLogBytes),
      filename: options.filename ?? DEFAULT_LIMITS.filename,
    };
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
    instance.refuel = (fuelLeft) => this.#refuel(fuelLeft);

    const timer = setTimeout(() => {
      this.#halt("timeout", this.#timeoutMessage(), "timeoutMs");
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
        interruptHandler: () => this.#interrupt(),
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
      healthy &&= !this.#meterStopped;
      // After out-of-memory QuickJS's heap may be inconsistent, and freeing it can run without
      // end: such an instance is dropped whole, never disposed. Any other disposal is metered
      // too, with a budget of its own: no wasm work done for a program runs unmetered.
      const clean = healthy && !this.#memoryExhausted() && this.#disposeWithin(instance, DISPOSE_REFUELS, owned, context, runtime);
      instance.refuel = unmetered;
      releaseInstance(instance, this.#limits.memoryLimitBytes, this.#options.isolationKey, clean);
    }
  }

  async #drive(runtime: QuickJSRuntime, context: QuickJSContext, code: string, owned: QuickJSHandle[]): Promise<ProgramResult> {
    const run = this.#bootstrap(context);
    owned.push(run);

    const compiled = context.evalCode(code, this.#limits.filename, { type: "global" });
    if (compiled.error) {
      const thrown = this.#readThrown(context, compiled.error);
      compiled.error.dispose();
      return this.#failure(this.#stopError() ?? this.#classify(thrown, true));
    }
    const program = compiled.value;
    owned.push(program);

    const started = context.callFunction(run, context.undefined, program);
    if (started.error) {
      const thrown = this.#readThrown(context, started.error);
      started.error.dispose();
      return this.#failure(this.#stopError() ?? this.#classify(thrown, false));
    }
    const envelope = started.value;
    owned.push(envelope);

    for (;;) {
      const jobs = runtime.executePendingJobs(-1);
      if (jobs.error) {
        const thrown = this.#readThrown(context, jobs.error);
        jobs.error.dispose();
        return this.#failure(this.#stopError() ?? this.#classify(thrown, false));
      }
      const stopped = this.#stopError();
      if (stopped) return this.#failure(stopped);

      const state = context.getPromiseState(envelope);
      if (state.type === "fulfilled") {
        const text = this.#readEnvelope(context, state.value);
        state.value.dispose();
        return this.#settle(text);
      }
      if (state.type === "rejected") {
        const thrown = this.#readThrown(context, state.error);
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
      const late = this.#stopError();
      if (late) return this.#failure(late);
      this.#deliver(context);
      // The program yielded to await tool results: a new synchronous stretch begins.
      this.#stretchChecks = 0;
      this.#stretchFuel = 0;
    }
  }

  /** Evaluate the bootstrap, hand it the host functions, and return its `run` function. */
  #bootstrap(context: QuickJSContext): QuickJSHandle {
    const init = context.unwrapResult(context.evalCode(BOOTSTRAP_SOURCE, BOOTSTRAP_FILENAME, { type: "global", strict: true }));
    const hostCall = context.newFunction("hostCall", (name, json, stack) => this.#hostCall(context, name, json, stack));
    const hostLog = context.newFunction("hostLog", (line) => (this.#hostLog(context, line) ? context.true : context.false));
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
    if (this.#stop) return context.newString("the run is stopping");
    const name = context.typeof(nameHandle) === "string" ? context.getString(nameHandle) : "";
    if (!this.#allowed.has(name)) return context.newString(`tool ${name} is not in this run's candidate set`);
    const { maxToolCalls, maxArgumentBytes } = this.#limits;
    if (this.#calls.length >= maxToolCalls) {
      this.#halt("too_many_calls", `the program tried to make more than ${maxToolCalls} tool calls`, "maxToolCalls");
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
      this.#halt(
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
    if (this.#ready.length > 0 || this.#stop) return;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Keep one console line if the log has room; false once it is full (the bootstrap stops logging). */
  #hostLog(context: QuickJSContext, lineHandle: QuickJSHandle): boolean {
    const { maxLogLines, maxLogBytes, maxLogLineChars } = this.#limits;
    if (this.#logs.length >= maxLogLines || this.#logBytes >= maxLogBytes) {
      this.#logTruncated = true;
      return false;
    }
    if (context.typeof(lineHandle) !== "string") return true;
    const length = context.getLength(lineHandle) ?? 0;
    // The bootstrap already cut the line; a longer one means the program bypassed it.
    const line = length > maxLogLineChars + 1 ? "[log line too long]" : context.getString(lineHandle);
    const bytes = utf8Length(line);
    if (this.#logBytes + bytes > maxLogBytes) {
      this.#logTruncated = true;
      this.#logBytes = maxLogBytes;
      return false;
    }
    this.#logBytes += bytes;
    this.#logs.push(line);
    return true;
  }

  /** Interrupt handler: counts, never reads a clock. True stops the program (uncatchably). */
  #interrupt(): boolean {
    this.#stretchChecks++;
    this.#totalChecks++;
    if (this.#stop) return true;
    const { stretchBudget, totalBudget } = this.#limits;
    if (this.#stretchChecks > stretchBudget) {
      this.#halt(
        "cpu_budget",
        `the program computed without pause for more than ${stretchBudget} interrupt checks (its CPU budget per stretch between tool calls)`,
        "stretchBudget",
      );
      return true;
    }
    if (this.#totalChecks > totalBudget) {
      this.#halt("cpu_budget", `the program used more than ${totalBudget} interrupt checks in total (its CPU budget for the run)`, "totalBudget");
      return true;
    }
    return false;
  }

  /**
   * Called by the metered wasm every FUEL_ALLOWANCE units of work, whatever QuickJS is doing
   * (bytecode, inside a built-in, the regex engine, the GC). Past a limit it throws: the throw
   * unwinds the wasm, which is the only way to stop work inside one built-in call, and leaves the
   * instance in an unknown state, so it is dropped. The clock check is what bounds a run by wall
   * time where clocks advance during computation (local workerd, Node); deployed, clocks stand
   * still until I/O and the fuel counts are the bound.
   */
  #refuel(fuelLeft: number): number {
    if (this.#meterStopped) throw new SandboxStopped();
    // What was spent since the last refuel: its allowance, and any debt of a charge by size.
    const spent = this.#allowance - fuelLeft;
    this.#allowance = FUEL_ALLOWANCE;
    this.#stretchFuel += spent;
    this.#totalFuel += spent;
    const { stretchFuel, totalFuel, timeoutMs } = this.#limits;
    if (Date.now() - this.#started >= timeoutMs) this.#halt("timeout", this.#timeoutMessage(), "timeoutMs");
    else if (this.#stretchFuel > stretchFuel) {
      this.#halt(
        "cpu_budget",
        `the program computed without pause for more than ${stretchFuel} units of fuel (its CPU budget per stretch between tool calls)`,
        "stretchFuel",
      );
    } else if (this.#totalFuel > totalFuel) {
      this.#halt("cpu_budget", `the program used more than ${totalFuel} units of fuel in total (its CPU budget for the run)`, "totalFuel");
    } else return FUEL_ALLOWANCE;
    this.#meterStopped = true;
    throw new SandboxStopped();
  }

  #timeoutMessage(): string {
    return `the program did not finish within its deadline of ${this.#limits.timeoutMs} ms`;
  }

  #halt(kind: StopKind, message: string, limit: string): void {
    this.#stop ??= { kind, message, limit };
  }

  #stopError(): ProgramError | undefined {
    return this.#stop ? { kind: this.#stop.kind, message: this.#stop.message, limit: this.#stop.limit } : undefined;
  }

  #readEnvelope(context: QuickJSContext, handle: QuickJSHandle): string | { tooLarge: number } {
    if (context.typeof(handle) !== "string") return `E${JSON.stringify({ name: "Error", message: "the sandbox returned no result" })}`;
    const length = context.getLength(handle) ?? 0;
    if (length > this.#limits.maxAnswerBytes + 1) return { tooLarge: length - 1 };
    return context.getString(handle);
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

  /** Read an exception handle on the host side (it never runs program code). */
  #readThrown(context: QuickJSContext, handle: QuickJSHandle): ThrownValue {
    try {
      const dumped: unknown = context.dump(handle);
      if (typeof dumped !== "object" || dumped === null) return { message: `uncaught ${String(dumped)}` };
      const record = dumped as Record<string, unknown>;
      return {
        ...(typeof record.name === "string" ? { name: record.name } : {}),
        message: typeof record.message === "string" ? record.message : "",
        ...(typeof record.stack === "string" ? { stack: trimFrames(record.stack) } : {}),
        ...(typeof record.lineNumber === "number" ? { lineNumber: record.lineNumber } : {}),
      };
    } catch {
      return { message: "an exception the host could not read" };
    }
  }

  #classify(thrown: ThrownValue, compiling: boolean): ProgramError {
    return errorFromThrown(thrown, { filename: this.#limits.filename, compiling, memoryExhausted: this.#memoryExhausted() });
  }

  #hostFailure(error: unknown): ProgramError {
    const stopped = this.#stopError();
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

  /** `#dispose`, metered: past `refuels` allowances of fuel it is stopped, and false (the instance is dropped). */
  #disposeWithin(
    instance: SandboxInstance,
    refuels: number,
    owned: QuickJSHandle[],
    context: QuickJSContext | undefined,
    runtime: QuickJSRuntime | undefined,
  ): boolean {
    let left = refuels;
    instance.refuel = () => {
      if (--left < 0) throw new SandboxStopped();
      return FUEL_ALLOWANCE;
    };
    return this.#dispose(owned, context, runtime);
  }

  /** Release every QuickJS object of the run; false when QuickJS reports leaked objects. */
  #dispose(owned: QuickJSHandle[], context: QuickJSContext | undefined, runtime: QuickJSRuntime | undefined): boolean {
    try {
      for (const deferred of this.#deferreds.values()) deferred.dispose();
      this.#deferreds.clear();
      for (const handle of owned.reverse()) if (handle.alive) handle.dispose();
      context?.dispose();
      runtime?.dispose();
      return runtime !== undefined;
    } catch {
      sandboxDiagnostics.disposeFailures++;
      return false;
    }
  }

  #success(answer: unknown): ProgramResult {
    return { ok: true, answer, logs: this.#logLines(), calls: this.#calls, stats: this.#stats() };
  }

  #failure(error: ProgramError): ProgramResult {
    const limit = error.limit ?? LIMIT_OF_KIND[error.kind];
    return { ok: false, error: limit === undefined ? error : { ...error, limit }, logs: this.#logLines(), calls: this.#calls, stats: this.#stats() };
  }

  #logLines(): string[] {
    const lines = [...this.#logs];
    if (this.#logTruncated) {
      lines.push(`[log truncated: at most ${this.#limits.maxLogLines} lines and ${this.#limits.maxLogBytes} bytes are kept]`);
    }
    return lines;
  }

  #stats(): ProgramResult["stats"] {
    return { toolCalls: this.#calls.length, interruptChecks: this.#totalChecks, fuel: this.#totalFuel, durationMs: Date.now() - this.#started };
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** Drop the bootstrap's frames from a stack and cap its size. */
function trimFrames(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => !line.includes(BOOTSTRAP_FILENAME) && line.trim() !== "")
    .join("\n")
    .slice(0, MAX_STACK_CHARS);
}
