import type { ChatMessage } from "../llm/client";
import { addUsage, ZERO_USAGE, type TokenUsage } from "../llm/usage";
import { extractProgram } from "../sandbox/extract-program";
import type { ProgramError } from "../sandbox/types";
import { callKey, type ReplayRecord, type TraceEntry } from "../sandbox/wire";
import type { ToolDefinition } from "../tools/definition";
import { attributeFailure, parseAttributionAnswer } from "./attribution";
import { attributionMessages, generationMessages, revisionMessages, type EarlierAttempt } from "./prompts";
import type { ProtocolOverrides } from "./typed-api";
import { declinedError, declinedReason, emptyAnswer, exhaustedError, interruptedError, noAnswerError, type RunError, type RunStatus } from "./run-ending";

export type { RunError, RunStatus } from "./run-ending";

/**
 * One Automatic Tool Chain run (§3): generate a program for the task, execute it, and on failure
 * attribute the error to a tool and regenerate with that tool's full protocol, up to
 * `maxAttempts` programs (the paper's α). Platform-free: the model, the program isolate (and the
 * tools it reaches) and every timing come in through `RunDependencies`; the platform side
 * (`services/start-run.ts`) wires them. `node scripts/module-reach.mjs functions/chain/run-task.ts`
 * lists what this module pulls in.
 */

export interface ModelTurn {
  content: string;
  usage: TokenUsage;
  durationMs: number;
  /** The model the endpoint says answered (e.g. `demo-model`), when it says. */
  model?: string | undefined;
}

export interface AttemptExecution {
  ok: boolean;
  answer?: unknown;
  error?: ProgramError;
  logs: string[];
  trace: TraceEntry[];
  durationMs: number;
  /** Sandbox overhead: from program ready to its first tool call, when it made one. */
  firstCallMs?: number | undefined;
}

/** Everything platform-specific a run needs. */
export interface RunDependencies {
  /** One model call; `durationMs` is measured by the caller's clock. */
  chat(messages: ChatMessage[], purpose: "generate" | "revise" | "attribute"): Promise<ModelTurn>;
  /** Run one program with the run's tools; `replay` answers side effects already done. */
  execute(program: string, replay: ReplayRecord[]): Promise<AttemptExecution>;
  /** Progress events, for streaming to chat interfaces. */
  emit?(event: RunEvent): void;
  /**
   * The run's turn, waited for before each model call, before each program runs and before the
   * run returns (to be stored), that is after each wait for I/O: the service's own requests that
   * arrived meanwhile are served between a burst of runs' phases instead of after all of them.
   */
  yieldTurn?(): Promise<void>;
}

export type RunEvent =
  | { type: "attempt_started"; attempt: number }
  | { type: "program"; attempt: number; program: string }
  | { type: "tool_called"; attempt: number; tool: string; ok: boolean; sent: boolean; status?: number | undefined }
  | { type: "error"; attempt: number; error: ProgramError; attributedTool?: string | undefined }
  | { type: "answer"; attempt: number; answer: unknown };

export interface AttemptRecord {
  attempt: number;
  program: string;
  ok: boolean;
  answer?: unknown;
  error?: ProgramError;
  attributedTool?: string;
  attributedBy?: "failed_call" | "program_line" | "model";
  logs: string[];
  trace: TraceEntry[];
  durationMs: number;
  firstCallMs?: number;
}

export interface ModelCallRecord {
  purpose: string;
  attempt: number;
  usage: TokenUsage;
  durationMs: number;
  /** Which model answered, so a run shows it (the demo model says `demo-model`). */
  model?: string;
}

export interface RunOutcome {
  status: RunStatus;
  /** Why a run that did not succeed ended so (run-ending.ts); absent on success. */
  error?: RunError;
  answer?: unknown;
  finalProgram?: string;
  attempts: AttemptRecord[];
  modelCalls: ModelCallRecord[];
  usage: TokenUsage;
  /** Tools called successfully by the final program, in order: the run's trajectory. */
  trajectory: string[];
}

export interface RunTaskInput {
  task: string;
  tools: ToolDefinition[];
  overrides: Map<string, ProtocolOverrides>;
  maxAttempts: number;
  feedbackTokenBudget: number;
  /** Named in the run's error. */
  runId?: string;
}

/**
 * A run stopped by its dependencies (the model endpoint failed, …) before it ended: `outcome`
 * keeps every attempt made so far, to be stored; `cause` is what failed. An Error because it
 * unwinds the run from deep in its loop (a model call inside an attempt) to the one caller that
 * stores the run (services/start-run.ts), carrying what a `Failure` cannot: the partial outcome.
 */
export class RunInterrupted extends Error {
  override readonly name = "RunInterrupted";
  constructor(
    readonly outcome: RunOutcome,
    override readonly cause: unknown,
  ) {
    super(outcome.error?.message ?? "the run stopped");
  }
}

function describeError(error: ProgramError, trace: readonly TraceEntry[]): string {
  const failed = [...trace].reverse().find((t) => !t.ok);
  const lines = [`${error.kind}: ${error.message}`];
  if (error.line !== undefined) lines.push(`at program line ${error.line}`);
  if (error.stack !== undefined && !error.message.includes(error.stack)) lines.push(error.stack);
  if (failed !== undefined && failed.error !== undefined)
    lines.push(`last failed tool call: ${failed.tool}(${JSON.stringify(failed.arguments)}) → ${failed.error}`);
  return lines.join("\n");
}

/** Non-GET calls that succeeded and were really sent: later attempts must not send them again. */
function sideEffects(trace: readonly TraceEntry[]): ReplayRecord[] {
  return trace
    .filter((t) => t.sent && t.ok && t.method !== undefined && t.method !== "GET" && t.method !== "HEAD")
    .map((t) => ({ key: callKey(t.tool, t.arguments), value: t.result, ...(t.status === undefined ? {} : { status: t.status }) }));
}

/** Run a task to an answer or to the attempt limit. */
export async function runTask(input: RunTaskInput, deps: RunDependencies): Promise<RunOutcome> {
  const outcome = await runAttempts(input, deps);
  await deps.yieldTurn?.();
  return outcome;
}

async function runAttempts(input: RunTaskInput, deps: RunDependencies): Promise<RunOutcome> {
  const run = new AttemptRun(input, deps);
  try {
    for (let attempt = 1; attempt <= input.maxAttempts; attempt++) {
      const outcome = await run.attempt(attempt);
      if (outcome !== undefined) return outcome;
    }
  } catch (error) {
    // Whatever failed, the attempts made so far stay with the run.
    const reason = error instanceof Error ? error.message : String(error);
    // A provisional code: the caller that stores the run names its stop reason (services/start-run.ts).
    const code = typeof (error as { kind?: unknown }).kind === "string" ? `model:${(error as { kind: string }).kind}` : "interrupted";
    throw new RunInterrupted(run.failed(interruptedError(input.runId, code, reason)), error);
  }
  return run.failed(exhaustedError(input.runId, input.maxAttempts, run.lastError()));
}

/** What a run has gathered across its attempts: records, model calls, usage and side effects to replay. */
class AttemptRun {
  private readonly known: Set<string>;
  private readonly byName: Map<string, ToolDefinition>;
  private readonly attempts: AttemptRecord[] = [];
  private readonly modelCalls: ModelCallRecord[] = [];
  private usage: TokenUsage = { ...ZERO_USAGE };
  private readonly replay: ReplayRecord[] = [];
  private readonly earlier: EarlierAttempt[] = [];
  private attributed: ToolDefinition | undefined;

  constructor(
    private readonly input: RunTaskInput,
    private readonly deps: RunDependencies,
  ) {
    this.known = new Set(input.tools.map((t) => t.name));
    this.byName = new Map(input.tools.map((t) => [t.name, t]));
  }

  private async ask(messages: ChatMessage[], purpose: "generate" | "revise" | "attribute", attempt: number): Promise<string> {
    await this.deps.yieldTurn?.();
    const turn = await this.deps.chat(messages, purpose);
    this.modelCalls.push({ purpose, attempt, usage: turn.usage, durationMs: turn.durationMs, ...(turn.model === undefined ? {} : { model: turn.model }) });
    this.usage = addUsage(this.usage, turn.usage);
    return turn.content;
  }

  /** One program written, run and judged: the run's outcome when it answered, else undefined (the failure recorded). */
  async attempt(attempt: number): Promise<RunOutcome | undefined> {
    const { input, deps } = this;
    deps.emit?.({ type: "attempt_started", attempt });
    const messages =
      attempt === 1
        ? generationMessages(input.task, input.tools, input.overrides)
        : revisionMessages(input.task, input.tools, input.overrides, this.earlier, this.attributed, input.feedbackTokenBudget);
    const answer = await this.ask(messages, attempt === 1 ? "generate" : "revise", attempt);
    const program = extractProgram(answer).trim();
    deps.emit?.({ type: "program", attempt, program });
    await deps.yieldTurn?.();
    const execution = await deps.execute(program, [...this.replay]);
    for (const call of execution.trace) {
      deps.emit?.({ type: "tool_called", attempt, tool: call.tool, ok: call.ok, sent: call.sent, status: call.status });
    }
    this.replay.push(...sideEffects(execution.trace));
    const record: AttemptRecord = {
      attempt,
      program,
      ok: false,
      logs: execution.logs,
      trace: execution.trace,
      durationMs: execution.durationMs,
      ...(execution.firstCallMs === undefined ? {} : { firstCallMs: execution.firstCallMs }),
    };
    if (execution.ok && emptyAnswer(execution.answer)) return this.ended(record, execution, "no_answer", noAnswerError(input.runId, execution.answer));
    if (execution.ok && execution.answer !== undefined) return this.succeeded(record, execution);
    const error: ProgramError = execution.ok
      ? { kind: "runtime", message: "the program finished without returning a final answer (end it with `return <answer>`)" }
      : (execution.error ?? { kind: "runtime", message: "the program failed" });
    const declined = declinedReason(answer, program, error, execution.trace.length);
    if (declined !== undefined) {
      record.error = error;
      this.attempts.push(record);
      deps.emit?.({ type: "error", attempt, error });
      return this.failed(declinedError(input.runId, declined));
    }
    await this.recordFailure(record, error, execution.trace);
    return undefined;
  }

  /** A program that ran to its end (with an answer, or without one and an `error`): kept as an attempt, the run ends `status`. */
  private ended(record: AttemptRecord, execution: AttemptExecution, status: RunStatus, error?: RunError): RunOutcome {
    record.ok = true;
    record.answer = execution.answer;
    this.attempts.push(record);
    return {
      status,
      ...(error === undefined ? {} : { error }),
      answer: execution.answer,
      finalProgram: record.program,
      attempts: this.attempts,
      modelCalls: this.modelCalls,
      usage: this.usage,
      trajectory: execution.trace.filter((t) => t.ok).map((t) => t.tool),
    };
  }

  /** The last attempt's error, for the run's own. */
  lastError(): ProgramError | undefined {
    return this.attempts.at(-1)?.error;
  }

  private succeeded(record: AttemptRecord, execution: AttemptExecution): RunOutcome {
    const outcome = this.ended(record, execution, "succeeded");
    this.deps.emit?.({ type: "answer", attempt: record.attempt, answer: execution.answer });
    return outcome;
  }

  /** Records a failed attempt with the tool it is blamed on, which the next attempt's prompt shows in full. */
  private async recordFailure(record: AttemptRecord, error: ProgramError, trace: TraceEntry[]): Promise<void> {
    const { attempt, program } = record;
    record.error = error;
    // Kept before the attribution call: should that call fail, the attempt stays with the run.
    this.attempts.push(record);
    let attribution = attributeFailure(program, error, trace, this.known);
    let attributedBy: AttemptRecord["attributedBy"] = attribution?.how;
    if (attribution === undefined && attempt < this.input.maxAttempts && error.kind !== "syntax") {
      const tool = await this.askAttribution(program, error, trace, attempt);
      if (tool !== undefined) {
        attribution = { tool, how: "program_line" };
        attributedBy = "model";
      }
    }
    if (attribution !== undefined) {
      record.attributedTool = attribution.tool;
      if (attributedBy !== undefined) record.attributedBy = attributedBy;
    }
    this.attributed = attribution === undefined ? undefined : this.byName.get(attribution.tool);
    this.deps.emit?.({ type: "error", attempt, error, attributedTool: record.attributedTool });
    this.earlier.push({ program, error: describeError(error, trace), attributedTool: record.attributedTool });
  }

  /** The model's guess at the tool to blame, when the program and trace alone do not say. */
  private async askAttribution(program: string, error: ProgramError, trace: TraceEntry[], attempt: number): Promise<string | undefined> {
    const { input } = this;
    const answer = await this.ask(
      attributionMessages(input.task, input.tools, program, describeError(error, trace), input.feedbackTokenBudget),
      "attribute",
      attempt,
    );
    return parseAttributionAnswer(answer, [...this.known]);
  }

  /** The outcome when the run ended without an answer: the last program stands as the final one. */
  failed(error: RunError): RunOutcome {
    const last = this.attempts[this.attempts.length - 1];
    return {
      status: "failed",
      error,
      ...(last === undefined ? {} : { finalProgram: last.program }),
      attempts: this.attempts,
      modelCalls: this.modelCalls,
      usage: this.usage,
      trajectory: (last?.trace ?? []).filter((t) => t.ok).map((t) => t.tool),
    };
  }
}
