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
 * so a stretch of synchronous work delays everyone: the budget is sized for slow-polling code (a
 * counting loop polls ~15× less often per ms than `while(true){}`; measured ~50–70 ms for 60
 * checks in a warm program isolate here), not for the tight loop (~4 ms). 60 checks are 600,000
 * loop iterations between two tool results, ample for programs that reshape tool responses.
 */
export const PROGRAM_CPU_BUDGET = { stretchBudget: 60, totalBudget: 600 } as const;

/** One attempt of a run (`POST /v1/runs`, MCP `run_task`) when the request does not choose. */
export const RUN_LIMITS = {
  maxToolCalls: 50,
  /** Wall-clock limit of one attempt. */
  deadlineMs: 30_000,
  toolTimeoutMs: TOOL_CALL_DEFAULTS.timeoutMs,
  maxToolResponseBytes: TOOL_CALL_DEFAULTS.maxResponseBytes,
  memoryLimitBytes: 64 * 1024 * 1024,
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
