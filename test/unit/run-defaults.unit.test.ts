import { describe, expect, it, vi } from "vitest";
import { CreateRun, runSettings } from "../../functions/http/endpoints/runs";
import { PROBE_PROGRAM_LIMITS, PROGRAM_CPU_BUDGET, RUN_DEFAULTS, RUN_LIMITS, serviceToolLimits, TOOL_CALL_DEFAULTS } from "../../functions/common/run-defaults";
import { DEFAULT_LIMITS } from "../../functions/sandbox";
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "../../functions/tools/safe-call";

// The route module's run starter reaches the isolate host (workerd only); only the request schema is under test.
vi.mock("../../functions/services/start-run", () => ({ startRun: vi.fn() }));

describe("run defaults: one set, used by every path", () => {
  it("are what a run request that chooses nothing gets (REST and MCP run_task share runSettings)", () => {
    expect(runSettings(CreateRun.parse({ task: "Who directed Dune?" }))).toEqual({
      maxAttempts: RUN_DEFAULTS.maxAttempts,
      feedbackTokenBudget: RUN_DEFAULTS.feedbackTokenBudget,
      limits: { ...RUN_LIMITS, ...PROGRAM_CPU_BUDGET },
    });
    // A partial limits object gets the same defaults for what it leaves out.
    expect(CreateRun.parse({ task: "t", limits: { maxToolCalls: 5 } }).limits).toEqual({ ...RUN_LIMITS, maxToolCalls: 5 });
  });

  it("give a tool call the same timeout and size cap everywhere", () => {
    expect({ timeoutMs: DEFAULT_TIMEOUT_MS, maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES }).toEqual(TOOL_CALL_DEFAULTS);
    expect(serviceToolLimits({})).toEqual(TOOL_CALL_DEFAULTS);
    expect({ timeoutMs: RUN_LIMITS.toolTimeoutMs, maxResponseBytes: RUN_LIMITS.maxToolResponseBytes }).toEqual(TOOL_CALL_DEFAULTS);
    expect(PROBE_PROGRAM_LIMITS.toolTimeoutMs).toBe(TOOL_CALL_DEFAULTS.timeoutMs);
  });

  it("let the environment set the service's tool-call ceilings", () => {
    expect(serviceToolLimits({ TOOL_TIMEOUT_MS: "2500", TOOL_MAX_RESPONSE_BYTES: "4096" })).toEqual({ timeoutMs: 2_500, maxResponseBytes: 4_096 });
  });

  it("are the sandbox's defaults for a program whose caller sets none", () => {
    expect({ timeoutMs: DEFAULT_LIMITS.timeoutMs, maxToolCalls: DEFAULT_LIMITS.maxToolCalls, memoryLimitBytes: DEFAULT_LIMITS.memoryLimitBytes }).toEqual({
      timeoutMs: RUN_LIMITS.deadlineMs,
      maxToolCalls: RUN_LIMITS.maxToolCalls,
      memoryLimitBytes: RUN_LIMITS.memoryLimitBytes,
    });
  });

  it("give probing programs less than a run", () => {
    expect(PROBE_PROGRAM_LIMITS.deadlineMs).toBeLessThan(RUN_LIMITS.deadlineMs);
    expect(PROBE_PROGRAM_LIMITS.maxToolCalls).toBeLessThan(RUN_LIMITS.maxToolCalls);
    expect(PROBE_PROGRAM_LIMITS.memoryLimitBytes).toBeLessThan(RUN_LIMITS.memoryLimitBytes);
  });
});
