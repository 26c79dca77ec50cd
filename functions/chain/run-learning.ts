import type { EvaluationRequest } from "./evaluator";
import type { RunOutcome } from "./run-task";

const MAX_OUTCOME_CHARS = 400;

/** The evaluator's view of a run: the final attempt's tool calls, each with a short outcome. */
export function evaluationFromRun(task: string, outcome: RunOutcome): EvaluationRequest | undefined {
  const last = outcome.attempts[outcome.attempts.length - 1];
  if (last === undefined) return undefined;
  const steps = last.trace
    .filter((t) => t.sent || t.replayed)
    .map((t) => ({
      tool: t.tool,
      arguments: t.arguments,
      ok: t.ok,
      outcome: (t.ok ? (JSON.stringify(t.result) ?? "") : (t.error ?? "failed")).slice(0, MAX_OUTCOME_CHARS),
    }));
  return { task, steps, succeeded: outcome.status === "succeeded", ...(outcome.answer === undefined ? {} : { answer: outcome.answer }) };
}
