import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { sandboxDiagnostics } from "./diagnostics";
import type { SandboxInstance } from "./engine";
import { FUEL_ALLOWANCE, stopSandbox } from "./fuel";

/**
 * Fuel allowances a disposal may spend (× FUEL_ALLOWANCE units: 10 M, ≈ 30–150 ms of work here).
 * Freeing a full 64 MiB heap took less than one allowance in Node.
 */
export const DISPOSE_REFUELS = 500;

/** Every QuickJS object of a run, for disposal. */
export interface RunHandles {
  deferreds: Map<number, QuickJSDeferredPromise>;
  owned: QuickJSHandle[];
  context: QuickJSContext | undefined;
  runtime: QuickJSRuntime | undefined;
}

/** `dispose`, metered: past `refuels` allowances of fuel it is stopped, and false (the instance is dropped). */
export function disposeWithin(instance: SandboxInstance, refuels: number, handles: RunHandles): boolean {
  let left = refuels;
  instance.refuel = () => {
    if (--left < 0) stopSandbox();
    return FUEL_ALLOWANCE;
  };
  return dispose(handles);
}

/** Release every QuickJS object of the run; false when QuickJS reports leaked objects. */
function dispose({ deferreds, owned, context, runtime }: RunHandles): boolean {
  try {
    for (const deferred of deferreds.values()) deferred.dispose();
    deferreds.clear();
    for (const handle of owned.reverse()) if (handle.alive) handle.dispose();
    context?.dispose();
    runtime?.dispose();
    return runtime !== undefined;
  } catch {
    sandboxDiagnostics.disposeFailures++;
    return false;
  }
}
