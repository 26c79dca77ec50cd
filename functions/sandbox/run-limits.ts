import { DEFAULT_LIMITS, fuelForMs, STRETCH_FUEL_SHARE_OF_DEADLINE } from "./limits";
import type { RunOptions } from "./types";

/** One run's limits: its options over the defaults, with its fuel budgets. */
export type RunLimits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: (typeof DEFAULT_LIMITS)[K] extends string ? string : number } & {
  stretchFuel: number;
  totalFuel: number;
};

/** The limits a run keeps to: each option the caller set, else its default. */
export function resolveLimits(options: RunOptions): RunLimits {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
  return {
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
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
