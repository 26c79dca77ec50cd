import type { QuickJsEngine } from "./engine";

/** How a program run failed; one value per limit, so callers branch on `kind`. */
export type ProgramErrorKind =
  /** The program does not parse (TypeScript or JavaScript). */
  | "syntax"
  /** An exception the program did not catch (including failed tool calls it did not catch). */
  | "runtime"
  /** The host's wall-clock deadline passed while the program waited on tool calls. */
  | "timeout"
  /** Too many interrupt checks in one synchronous stretch, or in the whole run. */
  | "cpu_budget"
  /** The sandbox's heap is exhausted. */
  | "memory"
  /** Runaway recursion. */
  | "stack_overflow"
  /** The program awaits something that nothing can ever settle. */
  | "never_settles"
  /** More tool calls than the run allows. */
  | "too_many_calls"
  /** The answer, or the tool results together, exceed their byte limits. */
  | "output_too_large";

export interface ProgramError {
  kind: ProgramErrorKind;
  /** For runtime errors: `Name: message` followed by the program's stack frames. */
  message: string;
  /** Stack frames inside the program (`at main (program.js:3:17)`), when known. */
  stack?: string;
  /** Line in the program (the transpiled source keeps the source's lines) where it failed. */
  line?: number;
  /** Set when the uncaught error is a failed tool call: the tool's name. */
  tool?: string;
  /** For a stop at a limit: the option that was exceeded (`timeoutMs`, `stretchFuel`, `memoryLimitBytes`, …). */
  limit?: string;
}

/** One tool call the program made, in call order. */
export interface ToolCallRecord {
  tool: string;
  /** Program line of the call site. */
  line?: number;
  ok: boolean;
  /** Why the call failed (the host callback's error message), when it did. */
  error?: string;
}

export interface ProgramStats {
  toolCalls: number;
  /** Interrupt-handler invocations over the whole run (the CPU work measure, see README). */
  interruptChecks: number;
  /** Units of the metered wasm's fuel spent over the run, counted per refuel (see README). */
  fuel: number;
  /** Host wall-clock time of the whole run, including sandbox start and tool calls. */
  durationMs: number;
}

export type ProgramResult =
  | { ok: true; answer: unknown; logs: string[]; calls: ToolCallRecord[]; stats: ProgramStats }
  | { ok: false; error: ProgramError; logs: string[]; calls: ToolCallRecord[]; stats: ProgramStats };

/** What the host callback learns about a call besides its name and arguments. */
export interface ToolCallContext {
  /** Aborted when the run ends (finished, failed or timed out) before the call settles. */
  signal: AbortSignal;
  /** 0-based position of the call in the run. */
  index: number;
  /** Program line of the call site, when known. */
  line?: number;
}

/** The host side of a tool call; arguments and results cross the boundary as JSON. */
export type CallTool = (name: string, args: unknown, context: ToolCallContext) => Promise<unknown>;

export interface RunOptions {
  /** Tool names the program may call as `tools.<name>(args)`. */
  tools: readonly string[];
  callTool: CallTool;
  /** From `loadQuickJs`; when absent, `loadQuickJs()` is used (the Node loader). */
  engine?: QuickJsEngine;
  /**
   * Programs with the same key (a tenant id, say) may run on a recycled WebAssembly instance
   * (always with a fresh QuickJS runtime and context): start-up drops from several ms to about
   * 2 ms. Without a key every program gets a new instance.
   */
  isolationKey?: string;
  /** Heap of the sandbox (QuickJS limit and WebAssembly memory ceiling). Default 64 MiB. */
  memoryLimitBytes?: number;
  /** QuickJS stack limit. Default 256 KiB. */
  maxStackSizeBytes?: number;
  /** Interrupt checks allowed in one synchronous stretch (between tool results). */
  stretchBudget?: number;
  /** Interrupt checks allowed over the whole run. */
  totalBudget?: number;
  /** Units of wasm fuel allowed in one synchronous stretch (README, "Fuel"). Default: 10 % of `timeoutMs` at the slowest rate. */
  stretchFuel?: number;
  /** Units of wasm fuel allowed over the whole run. Default: `timeoutMs` at the slowest rate. */
  totalFuel?: number;
  /** Wall-clock deadline for the whole run, checked while it waits and (where clocks advance) while it computes. Default 30 s. */
  timeoutMs?: number;
  /** Default 50. */
  maxToolCalls?: number;
  /** Largest JSON arguments of one call, in bytes. Default 256 KiB. */
  maxArgumentBytes?: number;
  /** Total JSON bytes of all tool results handed to the program. Default 8 MiB. */
  maxResultBytes?: number;
  /** Largest JSON answer, in bytes. Default 1 MiB. */
  maxAnswerBytes?: number;
  /** Default 200 lines. */
  maxLogLines?: number;
  /** Total bytes of kept log text. Default 64 KiB. */
  maxLogBytes?: number;
  /** File name in stack traces. Default `program.js`. */
  filename?: string;
}
