import type { ChatMessage } from "../llm/client";
import { addUsage, ZERO_USAGE, type TokenUsage } from "../llm/usage";
import { extractProgram } from "../sandbox/extract-program";
import type { ProgramError } from "../sandbox/types";
import { callKey, type ReplayRecord, type TraceEntry } from "../sandbox/wire";
import type { ToolDefinition } from "../tools/definition";
import { attributeFailure, parseAttributionAnswer } from "./attribution";
import { attributionMessages, generationMessages, revisionMessages, type EarlierAttempt } from "./prompts";
import type { ProtocolOverrides } from "./typed-api";

/**
 * One Automatic Tool Chain run (§3): generate a program for the task, execute it, and on failure
 * attribute the error to a tool and regenerate with that tool's full protocol, up to
 * `maxAttempts` programs (the paper's α). Platform-free: the model, the program isolate (and the
 * tools it reaches) and every timing come in through `RunDependencies`; the platform side
 * (`start-run.ts`) wires them. `node scripts/module-reach.mjs functions/chain/run-task.ts`
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
  status: "succeeded" | "failed";
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
  const known = new Set(input.tools.map((t) => t.name));
  const byName = new Map(input.tools.map((t) => [t.name, t]));
  const attempts: AttemptRecord[] = [];
  const modelCalls: ModelCallRecord[] = [];
  let usage: TokenUsage = { ...ZERO_USAGE };
  const replay: ReplayRecord[] = [];
  const earlier: EarlierAttempt[] = [];
  let attributed: ToolDefinition | undefined;

  const ask = async (messages: ChatMessage[], purpose: "generate" | "revise" | "attribute", attempt: number): Promise<string> => {
    await deps.yieldTurn?.();
    const turn = await deps.chat(messages, purpose);
    modelCalls.push({ purpose, attempt, usage: turn.usage, durationMs: turn.durationMs, ...(turn.model === undefined ? {} : { model: turn.model }) });
    usage = addUsage(usage, turn.usage);
    return turn.content;
  };

  for (let attempt = 1; attempt <= input.maxAttempts; attempt++) {
    deps.emit?.({ type: "attempt_started", attempt });
    const messages =
      attempt === 1
        ? generationMessages(input.task, input.tools, input.overrides)
        : revisionMessages(input.task, input.tools, input.overrides, earlier, attributed, input.feedbackTokenBudget);
    const program = extractProgram(await ask(messages, attempt === 1 ? "generate" : "revise", attempt)).trim();
    deps.emit?.({ type: "program", attempt, program });
    await deps.yieldTurn?.();
    const execution = await deps.execute(program, [...replay]);
    for (const call of execution.trace) {
      deps.emit?.({ type: "tool_called", attempt, tool: call.tool, ok: call.ok, sent: call.sent, status: call.status });
    }
    replay.push(...sideEffects(execution.trace));
    const record: AttemptRecord = {
      attempt,
      program,
      ok: false,
      logs: execution.logs,
      trace: execution.trace,
      durationMs: execution.durationMs,
      ...(execution.firstCallMs === undefined ? {} : { firstCallMs: execution.firstCallMs }),
    };
    const noAnswer = execution.ok && (execution.answer === undefined || execution.answer === null || execution.answer === "");
    if (execution.ok && !noAnswer) {
      record.ok = true;
      record.answer = execution.answer;
      attempts.push(record);
      deps.emit?.({ type: "answer", attempt, answer: execution.answer });
      return {
        status: "succeeded",
        answer: execution.answer,
        finalProgram: program,
        attempts,
        modelCalls,
        usage,
        trajectory: execution.trace.filter((t) => t.ok).map((t) => t.tool),
      };
    }
    const error: ProgramError = noAnswer
      ? { kind: "runtime", message: "the program finished without returning a final answer (end it with `return <answer>`)" }
      : (execution.error ?? { kind: "runtime", message: "the program failed" });
    record.error = error;
    let attribution = attributeFailure(program, error, execution.trace, known);
    let attributedBy: AttemptRecord["attributedBy"] = attribution?.how;
    if (attribution === undefined && attempt < input.maxAttempts && error.kind !== "syntax") {
      const answer = await ask(
        attributionMessages(input.task, input.tools, program, describeError(error, execution.trace), input.feedbackTokenBudget),
        "attribute",
        attempt,
      );
      const tool = parseAttributionAnswer(answer, [...known]);
      if (tool !== undefined) {
        attribution = { tool, how: "program_line" };
        attributedBy = "model";
      }
    }
    if (attribution !== undefined) {
      record.attributedTool = attribution.tool;
      if (attributedBy !== undefined) record.attributedBy = attributedBy;
    }
    attributed = attribution === undefined ? undefined : byName.get(attribution.tool);
    attempts.push(record);
    deps.emit?.({ type: "error", attempt, error, attributedTool: record.attributedTool });
    earlier.push({ program, error: describeError(error, execution.trace), attributedTool: record.attributedTool });
  }
  const last = attempts[attempts.length - 1];
  return {
    status: "failed",
    ...(last === undefined ? {} : { finalProgram: last.program }),
    attempts,
    modelCalls,
    usage,
    trajectory: (last?.trace ?? []).filter((t) => t.ok).map((t) => t.tool),
  };
}
