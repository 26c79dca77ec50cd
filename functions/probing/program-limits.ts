/** Limits of one probing program: probing is exploratory, so it gets less than a run. */
export const PROBE_PROGRAM_LIMITS = {
  deadlineMs: 20_000,
  maxToolCalls: 10,
  toolTimeoutMs: 10_000,
  maxToolResponseBytes: 512 * 1024,
  memoryLimitBytes: 32 * 1024 * 1024,
  stretchBudget: 60,
  totalBudget: 600,
} as const;
