import { existsSync } from "node:fs";
import { startProgramHost as startProcess, type ProgramHostProcess, type WatchdogTiming } from "../../scripts/program-host-process.mjs";

export type { ProgramHostProcess } from "../../scripts/program-host-process.mjs";

/**
 * The program host (functions/sandbox/program-host) as tests and benches run it, the way
 * `npm start` does (scripts/program-host-process.mjs): its own workerd process on a free loopback
 * port, a fresh secret, a lower CPU priority than the service, and the watchdog.
 */

const BUNDLE = ".test-build/program-host/entry.js";

/**
 * Start a program host (`watchdog`: faster timing, for tests of the watchdog). It answers name
 * lookups with this machine's resolver only when `resolveNames` is set: most tests' network is a
 * Node function that answers invented host names, which no resolver knows.
 */
export async function startProgramHost(watchdog: Partial<WatchdogTiming> = {}, resolveNames = false): Promise<ProgramHostProcess> {
  if (!existsSync(BUNDLE)) throw new Error(`no program host bundle at ${BUNDLE}: run through vitest (globalSetup builds it)`);
  // A failed restart is tried again after the next unanswered checks; said, so that a test
  // waiting for the restart shows why it waited.
  const onRestart = (error: unknown): void => {
    if (error !== undefined) console.error(`program host restart failed (the watchdog tries again): ${error}`);
  };
  return startProcess({ scriptPath: BUNDLE, watchdog, resolveNames, onRestart });
}
