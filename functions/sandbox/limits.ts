import { RUN_LIMITS } from "../common/run-defaults";

/**
 * Default limits of a program run. CPU work is measured in interrupt checks, never with a clock:
 * deployed Workers freeze `Date.now()`/`performance.now()` until I/O, so a clock read while the
 * program computes does not move.
 */

/**
 * QuickJS calls the interrupt handler once per 10,000 polls (QuickJS polls on jumps and function
 * calls; its regex engine polls too). `while (true) {}`, the fastest-polling
 * code there is, made per 100 ms on this machine (2 CPUs, release-sync wasm, after V8 tiered the
 * wasm up): 1,900–1,950 in workerd, 1,640–1,830 in Node; about 1,000 while the code was still cold
 * or the machine loaded. Other code polls far less often per ms (README, "Calibration"): the same
 * count of checks is 15× longer for a counting loop and 150× for an allocation-heavy one.
 */
export const INTERRUPT_CHECKS_PER_100MS = 1_800;

/**
 * Fuel the metered wasm spends per ms of work, for the workload that spends it slowest (so a
 * fuel budget is an upper bound on time): see README, "Fuel".
 */
export const FUEL_PER_MS_SLOWEST = 50_000;

/**
 * Default wasm fuel of one stretch: a tenth of the deadline's worth at the slowest rate. Where the
 * clock stands still during computation (deployed), a stretch that starts before the deadline
 * therefore ends by deadline + 10 %, whatever it does.
 */
export const STRETCH_FUEL_SHARE_OF_DEADLINE = 0.1;

/** Wasm fuel for `ms` of work at the slowest rate: a budget that lasts at most about that long. */
export function fuelForMs(ms: number): number {
  return Math.max(1, Math.round(ms * FUEL_PER_MS_SLOWEST));
}

/** A program's limits when its caller sets none: the run's (common/run-defaults.ts) where both have one. */
export const DEFAULT_LIMITS = {
  memoryLimitBytes: RUN_LIMITS.memoryLimitBytes,
  maxStackSizeBytes: 256 * 1024,
  /** One synchronous stretch (between two tool results): about 100 ms of a tight loop. */
  stretchBudget: INTERRUPT_CHECKS_PER_100MS,
  /** The whole run: about 0.5 s of a tight loop. */
  totalBudget: 5 * INTERRUPT_CHECKS_PER_100MS,
  timeoutMs: RUN_LIMITS.deadlineMs,
  maxToolCalls: RUN_LIMITS.maxToolCalls,
  maxArgumentBytes: 256 * 1024,
  maxResultBytes: 8 * 1024 * 1024,
  maxAnswerBytes: 1024 * 1024,
  maxLogLines: 200,
  maxLogBytes: 64 * 1024,
  /** One console line is cut to this many characters inside the sandbox. */
  maxLogLineChars: 2_000,
  filename: "program.js",
} as const;
