/**
 * What a program isolate is made of, apart from where its code comes from (the generated harness
 * and QuickJS), so the one rule that matters most is stated and tested in one place: a program
 * isolate has no network. `globalOutbound: null` is set here for every isolate, whichever process
 * loads it (the service, or the program host): without it the isolate would inherit the loading
 * Worker's network.
 */

/** The code every program isolate runs: the harness module and the QuickJS wasm. */
export interface IsolateModules {
  harness: string;
  quickjs: ArrayBuffer;
}

/** Cloudflare's per-invocation limits for the isolate (local workerd ignores them). */
export interface IsolateLimits {
  cpuMs: number;
  subRequests: number;
}

const ISOLATE_COMPATIBILITY_DATE = "2026-04-20";

/** The Worker Loader definition of a program isolate: no network, `env` its only bindings. */
export function isolateWorkerCode(modules: IsolateModules, limits: IsolateLimits, env: Record<string, unknown>): WorkerLoaderWorkerCode {
  return {
    compatibilityDate: ISOLATE_COMPATIBILITY_DATE,
    limits,
    mainModule: "harness.js",
    modules: { "harness.js": modules.harness, "quickjs.wasm": { wasm: modules.quickjs } },
    // No network at all: the program's only way out is the tools capability.
    globalOutbound: null,
    env,
  };
}
