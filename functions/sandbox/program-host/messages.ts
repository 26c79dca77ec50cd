import type { IsolateMode } from "../host/program-isolate";
import type { IsolateRunRequest, IsolateRunResult, ToolCallAnswer } from "../wire";

/**
 * What crosses the WebSocket between the service and the program host (one socket per attempt).
 * The service sends `run` first; the host sends a `call` for every `tools.x(args)` of the program
 * and the service answers it (`answer`); the host ends with `result`. Types and one parser only.
 */

export { PROGRAM_HOST_SECRET_HEADER } from "../../common/program-host";

export interface RunMessage {
  type: "run";
  tenantId: string;
  mode: IsolateMode;
  /** The attempt's deadline as the run's caller set it (its `limit` messages name it). */
  deadlineMs: number;
  /**
   * When the attempt's deadline passes, in epoch ms by the service's clock. The host gives the
   * program only what is left of it when the program starts, and starts nothing past it: a
   * relative figure would be counted from a late start. Locally the service and the program host
   * run on one machine and read the same clock.
   */
  deadlineAt: number;
  /** `calls` is the harness's per-call context; the service keeps the real one (replay records stay with it). */
  request: IsolateRunRequest;
}

export interface AnswerMessage {
  type: "answer";
  id: number;
  answer: ToolCallAnswer;
}

export interface CallMessage {
  type: "call";
  id: number;
  name: string;
  args: unknown;
}

export interface ResultMessage {
  type: "result";
  outcome: IsolateRunResult;
}

export type ToHostMessage = RunMessage | AnswerMessage;
export type FromHostMessage = CallMessage | ResultMessage;

function record(data: unknown): Record<string, unknown> | undefined {
  if (typeof data !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A finite number above 0: a deadline, relative or absolute. */
function positive(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

/** A message the service sent, or undefined when it is not one (a run without a valid deadline is not one). */
export function parseToHost(data: unknown): ToHostMessage | undefined {
  const message = record(data);
  if (
    message?.type === "run" &&
    typeof message.tenantId === "string" &&
    positive(message.deadlineMs) &&
    positive(message.deadlineAt) &&
    typeof message.request === "object" &&
    message.request !== null
  ) {
    return message as unknown as RunMessage;
  }
  if (message?.type === "answer" && typeof message.id === "number" && typeof message.answer === "object" && message.answer !== null) {
    return message as unknown as AnswerMessage;
  }
  return undefined;
}

/** A message the program host sent, or undefined when it is not one. */
export function parseFromHost(data: unknown): FromHostMessage | undefined {
  const message = record(data);
  if (message?.type === "call" && typeof message.id === "number" && typeof message.name === "string") return message as unknown as CallMessage;
  if (message?.type === "result" && typeof message.outcome === "object" && message.outcome !== null) {
    const outcome = message.outcome as Record<string, unknown>;
    if (typeof outcome.result === "object" && outcome.result !== null && Array.isArray(outcome.trace)) return message as unknown as ResultMessage;
  }
  return undefined;
}
