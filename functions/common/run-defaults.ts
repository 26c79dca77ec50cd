/**
 * The limits of tool calls and generated programs, in one place: what a run gets by default,
 * what a probing program gets, and the service's ceilings on one tool call. Everything that calls
 * a tool or runs a program takes its numbers from here, so a default changes in one line.
 */

/** One tool call: the service's default and ceiling, unless TOOL_TIMEOUT_MS / TOOL_MAX_RESPONSE_BYTES set others. */
export const TOOL_CALL_DEFAULTS = {
  timeoutMs: 10_000,
  maxResponseBytes: 1024 * 1024,
} as const;

/** The service's ceilings on one tool call: the environment's when set, else the defaults. */
export function serviceToolLimits(env: { TOOL_TIMEOUT_MS?: string | undefined; TOOL_MAX_RESPONSE_BYTES?: string | undefined }): {
  timeoutMs: number;
  maxResponseBytes: number;
} {
  return {
    timeoutMs: Number(env.TOOL_TIMEOUT_MS ?? TOOL_CALL_DEFAULTS.timeoutMs),
    maxResponseBytes: Number(env.TOOL_MAX_RESPONSE_BYTES ?? TOOL_CALL_DEFAULTS.maxResponseBytes),
  };
}

/**
 * CPU budget of a program, in QuickJS interrupt checks (one per 10,000 polls: backward jumps and
 * calls), never a clock. Local workerd runs program isolates on the thread that serves requests,
 * so a stretch of synchronous work delays everyone; yet a program that reshapes tool responses
 * must get its ordinary work done. 150 checks are 1.5 million polls: an empty counting loop polls
 * twice an iteration, so 550,000 iterations between two tool results (111 checks, measured) pass
 * with room to spare. A runaway `while (true) {}` polls fastest and is stopped after the same 150
 * checks: about 8 ms of a warm isolate here (1,800 checks per 100 ms, sandbox/limits.ts), 2.5×
 * the 60 checks this was before, still far inside one request's share of the thread. The whole
 * run gets ten such stretches. A run request may set both (`limits.stretchBudget`,
 * `limits.totalBudget`), up to the sandbox's own ceiling (sandbox/limits.ts: ≈100 ms of a tight loop).
 */
export const PROGRAM_CPU_BUDGET = { stretchBudget: 150, totalBudget: 1_500 } as const;

/** The most a run request may ask for: the sandbox's default budget (≈100 ms, ≈0.5 s of a tight loop). */
export const PROGRAM_CPU_CEILING = { stretchBudget: 1_800, totalBudget: 9_000 } as const;

/** One attempt of a run (`POST /v1/runs`, MCP `run_task`) when the request does not choose. */
export const RUN_LIMITS = {
  maxToolCalls: 50,
  /** Wall-clock limit of one attempt. */
  deadlineMs: 30_000,
  toolTimeoutMs: TOOL_CALL_DEFAULTS.timeoutMs,
  maxToolResponseBytes: TOOL_CALL_DEFAULTS.maxResponseBytes,
  memoryLimitBytes: 64 * 1024 * 1024,
  ...PROGRAM_CPU_BUDGET,
} as const;

/** A run when the request does not choose: programs per run (the paper's α) and tokens fed back. */
export const RUN_DEFAULTS = {
  maxAttempts: 3,
  feedbackTokenBudget: 3_000,
  limits: RUN_LIMITS,
} as const;

/** One probing program: probing is exploratory, so it gets less than a run. */
export const PROBE_PROGRAM_LIMITS = {
  deadlineMs: 20_000,
  maxToolCalls: 10,
  toolTimeoutMs: TOOL_CALL_DEFAULTS.timeoutMs,
  maxToolResponseBytes: 512 * 1024,
  memoryLimitBytes: 32 * 1024 * 1024,
  ...PROGRAM_CPU_BUDGET,
} as const;
