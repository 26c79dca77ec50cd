import { z } from "zod";
import type { ChatMessage } from "../llm/client";

/**
 * ToolNet's tool evaluator (§3.3): a model reads a finished trajectory and scores every tool
 * call with an integer in [-3, 3]; the scores feed the graph's dynamic construction.
 */

export interface EvaluatedStep {
  tool: string;
  arguments: unknown;
  ok: boolean;
  /** A short rendering of the result or the error. */
  outcome: string;
}

export interface EvaluationRequest {
  task: string;
  steps: EvaluatedStep[];
  answer?: unknown;
  succeeded: boolean;
}

export const EvaluatorAnswer = z.object({ scores: z.array(z.number().int().min(-3).max(3)) });

const MAX_OUTCOME_CHARS = 400;

/** The evaluator prompt for one trajectory. */
export function evaluatorMessages(request: EvaluationRequest): ChatMessage[] {
  const steps = request.steps
    .map((step, i) => `${i + 1}. ${step.tool}(${JSON.stringify(step.arguments)}) → ${step.ok ? "ok" : "FAILED"}: ${step.outcome.slice(0, MAX_OUTCOME_CHARS)}`)
    .join("\n");
  const content = [
    "You are a tool evaluator. Read the task and the tool calls made to solve it, then score every tool call.",
    "Scores are integers from -3 to 3: 3 = the call was necessary and worked well; 0 = neutral or unnecessary; -3 = the tool failed, returned wrong or useless data, or misled the solution.",
    `Task: ${request.task}`,
    `Tool calls:\n${steps}`,
    `Outcome: ${request.succeeded ? "the run produced an answer" : "the run failed"}${request.answer === undefined ? "" : ` — answer: ${JSON.stringify(request.answer).slice(0, 400)}`}`,
    `Answer with JSON only: {"scores": [one integer per tool call, ${request.steps.length} in all, in order]}`,
  ].join("\n\n");
  return [{ role: "user", content }];
}

/** Parse the evaluator's answer: exactly one valid score per step, or undefined. */
export function parseEvaluatorAnswer(text: string, steps: number): number[] | undefined {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  if (json === undefined) return undefined;
  try {
    const parsed = EvaluatorAnswer.safeParse(JSON.parse(json));
    return parsed.success && parsed.data.scores.length === steps ? parsed.data.scores : undefined;
  } catch {
    return undefined;
  }
}
