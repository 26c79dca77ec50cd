/**
 * The host side of the metered QuickJS wasm (scripts/meter-quickjs.mjs). Every function entry and
 * loop header inside the wasm spends one unit of fuel; bulk memory copies are loops too, so a
 * unit is a bounded amount of work whatever the program does. When the wasm has spent its
 * allowance it calls the host, which counts, checks the limits and hands out the next allowance.
 */

/**
 * Units handed out per refuel: the longest the host goes without a look. Measured here (Node and
 * workerd, 2 shared CPUs), 1 ms of QuickJS work spends 70,000–300,000 units, so this is a look
 * every ~0.1–0.3 ms, and the refuel call costs well under 1 % of the work.
 */
export const FUEL_ALLOWANCE = 20_000;

/**
 * Thrown by the refuel handler to stop the program. An Error, thrown: only an exception unwinds
 * the wasm out of QuickJS's interpreter loop, and it cannot be caught inside QuickJS. Module-private:
 * callers stop a program with `stopSandbox()`; nothing catches it by class.
 */
class SandboxStopped extends Error {
  constructor() {
    super("the program was stopped at a limit");
    this.name = "SandboxStopped";
  }
}

/** Stop the running program from its refuel handler (see SandboxStopped). */
export function stopSandbox(): never {
  throw new SandboxStopped();
}

/**
 * Wait for a macrotask turn. Awaiting promises alone never leaves the microtask queue, so a run
 * whose tool results keep arriving would hold its isolate (locally, all of workerd, which serves
 * every isolate from one thread) until it ends.
 */
/** How long a run may keep its isolate between two such waits, while tool results keep arriving. */
export const YIELD_EVERY_MS = 4;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
