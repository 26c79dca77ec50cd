import canonicalize from "canonicalize";
import type { ProgramResult, RunOptions } from "./types";

/**
 * The wire format between the service and a program isolate: what the host asks the harness
 * to run (`IsolateRunRequest`), what it answers (`IsolateRunResult`), and what crosses the one
 * capability the isolate has, `env.TOOLS` (`ToolsCapability`: the harness calls it with a
 * `CallContext`, the service's tool gateway answers a `ToolCallAnswer`). Types and one pure
 * function only: both sides, and the platform-free run loop, import it.
 */

/** One tool call as the run's trace records it. */
export interface TraceEntry {
  index: number;
  tool: string;
  arguments: unknown;
  /** HTTP method actually used, when the call got as far as building a request. */
  method?: string;
  /** False when the call was refused before sending, or answered from an earlier attempt's record. */
  sent: boolean;
  /** True when an identical non-GET call succeeded in an earlier attempt and its result was reused. */
  replayed: boolean;
  ok: boolean;
  status?: number;
  durationMs: number;
  bytes: number;
  truncated: boolean;
  error?: string;
  line?: number;
  /** The (capped) result the program received, kept for reflection and evaluation. */
  result?: unknown;
}

/** What the tools capability answers for one call. */
export type ToolCallAnswer =
  | { ok: true; value: unknown; trace: Omit<TraceEntry, "index" | "line"> }
  | { ok: false; error: string; trace: Omit<TraceEntry, "index" | "line"> };

/** A non-GET call that succeeded in an earlier attempt of the same run, with what it returned. */
export interface ReplayRecord {
  /** `callKey(tool, arguments)` of the call. */
  key: string;
  value: unknown;
  status?: number;
}

/** Identity of a call for replay: tool name plus canonical JSON of its arguments. */
export function callKey(tool: string, args: unknown): string {
  return `${tool}:${canonicalize(args ?? {}) ?? "{}"}`;
}

/** Per-attempt rules the harness passes with every call (see services/tool-gateway.ts). */
export interface CallContext {
  allowed: string[];
  replay: ReplayRecord[];
  timeoutMs: number;
  maxResponseBytes: number;
  /** Keep whole results in the trace (probing documents tools from them); else results are clipped. */
  fullResults?: boolean;
}

/** The one capability a program isolate has: calling its tenant's tools. */
export interface ToolsCapability {
  call(name: string, args: unknown, context: CallContext): Promise<ToolCallAnswer>;
}

/** The tools of a run on the program host: its relay to the service, which also knows whether the attempt is still wanted. */
export interface RelayedTools extends ToolsCapability {
  /** False once the service has closed the attempt: a program not yet started must not start. */
  open(): boolean | Promise<boolean>;
}

export type IsolateLimits = Pick<
  RunOptions,
  | "memoryLimitBytes"
  | "maxStackSizeBytes"
  | "stretchBudget"
  | "totalBudget"
  | "timeoutMs"
  | "maxToolCalls"
  | "maxResultBytes"
  | "maxAnswerBytes"
  | "maxLogLines"
  | "maxLogBytes"
>;

export interface IsolateRunRequest {
  program: string;
  tools: string[];
  limits: IsolateLimits;
  calls: CallContext;
  /**
   * The attempt's absolute deadline (epoch ms). When set, the harness cuts `limits.timeoutMs` to
   * what is left of it when the program starts, and starts nothing once it has passed. Set only
   * where the harness reads the same clock as the side that set it (the program host: one machine).
   */
  deadlineAt?: number;
}

export interface IsolateRunResult {
  result: ProgramResult;
  trace: TraceEntry[];
  timing: { engineReadyMs: number | undefined };
}

/** Fixed when an isolate's tools binding is created: the one tenant whose tools it may call. */
export interface GatewayProps {
  tenantId: string;
}
