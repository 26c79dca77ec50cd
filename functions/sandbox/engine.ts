import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type CustomizeVariantOptions, type QuickJSWASMModule } from "quickjs-emscripten-core";
import { sandboxDiagnostics } from "./diagnostics";

/**
 * QuickJS compiled to WebAssembly, ready to start sandboxes.
 *
 * The compiled `WebAssembly.Module` is cached per isolate; every program gets its own
 * WebAssembly instance with its own linear memory. Two measured reasons (see README):
 * this QuickJS build cannot see the size of its own allocations (no malloc_usable_size), so
 * `JS_SetMemoryLimit` does not bound a heap made of many objects; only a memory ceiling on
 * the instance does. And deep native recursion (the parser, JSON.stringify on deep data) can
 * overflow the host stack before QuickJS's own stack check fires; the instance is then in an
 * unknown state and must never be used again. Instantiating from the compiled module costs
 * about 1 ms. The wasm is metered (scripts/meter-quickjs.mjs): its work calls back into the host
 * at a bounded interval, whatever the program does.
 */
export interface QuickJsEngine {
  /** A fresh QuickJS instance whose heap cannot grow more than `heapBytes` past its start size. */
  instantiate(heapBytes: number): Promise<SandboxInstance>;
}

export interface SandboxInstance {
  quickjs: QuickJSWASMModule;
  memory: WebAssembly.Memory;
  /** Ceiling of `memory`, in bytes. */
  maxBytes: number;
  /**
   * Called by the metered wasm whenever it has spent its fuel (see `fuel.ts`): returns the next
   * allowance, or throws to stop whatever runs inside (the instance is then never used again).
   * Between programs it is `unmetered`.
   */
  refuel: RefuelHandler;
}

/** The host side of the wasm's fuel meter: given the fuel left (≤ 0, below 0 after a charge by size), the next allowance. */
export type RefuelHandler = (fuelLeft: number) => number;

/** Fuel handed out per refuel when no program is being metered. */
const UNMETERED_ALLOWANCE = 1_000_000;
export const unmetered: RefuelHandler = () => UNMETERED_ALLOWANCE;

/** The import the metered wasm calls (scripts/meter-quickjs.mjs). */
const REFUEL_IMPORT = { module: "atc", name: "refuel" } as const;

const PAGE_BYTES = 65_536;
/** The module's own minimum (16 MiB: data, a 5 MB C stack, the start of the heap). */
const INITIAL_PAGES = 256;
/** The module's declared maximum (2 GiB). */
const MAX_PAGES = 32_768;

class CompiledEngine implements QuickJsEngine {
  readonly #module: WebAssembly.Module;

  constructor(module: WebAssembly.Module) {
    const metered = WebAssembly.Module.imports(module).some((i) => i.module === REFUEL_IMPORT.module && i.name === REFUEL_IMPORT.name);
    // An unmetered QuickJS could compute inside one built-in call for as long as it likes.
    if (!metered) throw new Error("this QuickJS wasm is not metered: build it with scripts/build-sandbox.mjs");
    this.#module = module;
  }

  async instantiate(heapBytes: number): Promise<SandboxInstance> {
    const extraPages = Math.max(1, Math.ceil(heapBytes / PAGE_BYTES));
    const maximum = Math.min(MAX_PAGES, INITIAL_PAGES + extraPages);
    const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum });
    const module = this.#module;
    const partial: { refuel: RefuelHandler } = { refuel: unmetered };
    // The library's own `wasmModule` option would instantiate without the refuel import, so the
    // instantiation is done here (emscripten's `instantiateWasm` hook). Emscripten only hears of
    // a failure thrown synchronously from the hook: a rejected instantiation would leave its
    // module promise pending for ever, and the program waiting on it. The failure is raced in.
    let instantiationFailed: (error: unknown) => void = () => {};
    const failure = new Promise<never>((_, reject) => {
      instantiationFailed = reject;
    });
    const instantiateWasm = (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void): Record<string, never> => {
      WebAssembly.instantiate(module, { ...imports, [REFUEL_IMPORT.module]: { [REFUEL_IMPORT.name]: (fuelLeft: number) => partial.refuel(fuelLeft) } }).then(
        (instance) => done(instance),
        (error: unknown) => instantiationFailed(error),
      );
      // Emscripten's contract: exports come later, through `done`.
      return {};
    };
    const quickjs = await Promise.race([
      newQuickJSWASMModuleFromVariant(
        newVariant(variant, {
          wasmMemory: memory,
          emscriptenModule: { ...QUIET_EMSCRIPTEN, instantiateWasm } as typeof QUIET_EMSCRIPTEN,
        }),
      ),
      failure,
    ]);
    const instance: SandboxInstance = {
      quickjs,
      memory,
      maxBytes: maximum * PAGE_BYTES,
      get refuel() {
        return partial.refuel;
      },
      set refuel(handler: RefuelHandler) {
        partial.refuel = handler;
      },
    };
    return instance;
  }
}

function recordModuleMessage(message: string): void {
  sandboxDiagnostics.lastModuleMessage = message.slice(0, 500);
}

/**
 * Emscripten prints aborts (a failed QuickJS assertion after out-of-memory, for instance) to the
 * console. Its `print`/`printErr` options, which the library's types leave out, route them to
 * the diagnostics instead of the service's logs.
 */
const QUIET_EMSCRIPTEN: NonNullable<CustomizeVariantOptions["emscriptenModule"]> & {
  print(message: string): void;
  printErr(message: string): void;
} = {
  print: recordModuleMessage,
  printErr: recordModuleMessage,
};

const engines = new WeakMap<WebAssembly.Module, QuickJsEngine>();
let nodeEngine: Promise<QuickJsEngine> | undefined;

/**
 * The QuickJS engine of this isolate.
 *
 * In a Worker, pass the module imported from `./workerd-wasm` (wrangler compiles `.wasm`
 * imports into `WebAssembly.Module`s; workerd cannot compile WebAssembly from bytes at run
 * time). Without an argument the wasm file is read and compiled once, which works in Node
 * (tests, scripts) only.
 */
export async function loadQuickJs(wasmModule?: WebAssembly.Module): Promise<QuickJsEngine> {
  if (wasmModule) {
    let engine = engines.get(wasmModule);
    if (!engine) {
      engine = new CompiledEngine(wasmModule);
      engines.set(wasmModule, engine);
    }
    return engine;
  }
  nodeEngine ??= import("./node-wasm").then(({ compileQuickJsWasm }) => compileQuickJsWasm()).then((module) => new CompiledEngine(module));
  try {
    return await nodeEngine;
  } catch (error) {
    // Let a later call try again instead of caching the failure.
    nodeEngine = undefined;
    throw error;
  }
}
