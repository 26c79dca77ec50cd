import { graphFailure, unknownTools } from "./errors";
import type { Failure } from "../../common/failures";
import { isReservedId } from "./node-ids";
import type { ToolGraph } from "./tool-graph";
import { DEFAULT_MAX_TRAJECTORY_LENGTH } from "./trajectory";

/**
 * Dynamic construction (§3.3): an evaluator scores every tool of a trajectory with an integer in
 * [-3, 3]; each node accumulates its scores, s_i⁽ⁿ⁾ = Σ_k Δ_i⁽ᵏ⁾. That sum is the only state an
 * evaluation changes: eq. 6–8 derive the weights from it when read (transition-weights.ts), so
 * one update touches exactly the nodes of its trajectory, and every edge into a re-scored node,
 * from any source, reflects the new score at its next read.
 */

export const MIN_EVALUATOR_SCORE = -3;
export const MAX_EVALUATOR_SCORE = 3;

/** One evaluated trajectory: the tools called, in order, and the evaluator's score of each step. */
export interface Evaluation {
  readonly tools: readonly string[];
  readonly scores: readonly number[];
}

export interface FeedbackOptions {
  /** Tools the graph no longer has: "error" (default) refuses the update; "skip" ignores them. */
  readonly unknownTools?: "error" | "skip";
}

export interface FeedbackResult {
  /** Each scored tool once: Δ applied this iteration and the new accumulated score. */
  readonly updated: readonly { tool: string; delta: number; score: number }[];
  readonly skippedTools: readonly string[];
}

/**
 * Applies one iteration of evaluator scores. The paper writes one Δ_i⁽ⁿ⁾ per node per
 * iteration, so a tool called at several steps gets the mean of its step scores: a tool retried
 * five times in a loop is judged once, as the paper's per-node notation implies, and Δ stays in
 * [-3, 3]. Validation happens before any score changes.
 */
export function applyFeedback(graph: ToolGraph, evaluation: Evaluation, options: FeedbackOptions = {}): FeedbackResult {
  const { tools, scores } = evaluation;
  checkEvaluation(tools, scores);
  const unknown = tools.filter((tool) => !graph.tools.has(tool));
  if (unknown.length > 0 && options.unknownTools !== "skip") throw unknownTools(unknown, "the evaluation");

  const sums = new Map<string, { total: number; steps: number }>();
  tools.forEach((tool, step) => {
    const score = scores[step];
    if (score === undefined || !graph.tools.has(tool)) return;
    const sum = sums.get(tool) ?? { total: 0, steps: 0 };
    sum.total += score;
    sum.steps += 1;
    sums.set(tool, sum);
  });

  const updated: { tool: string; delta: number; score: number }[] = [];
  for (const [tool, { total, steps }] of sums) {
    const node = graph.tools.get(tool);
    if (node === undefined) continue;
    const delta = total / steps;
    node.score += delta;
    updated.push({ tool, delta, score: node.score });
  }
  if (updated.length > 0) graph.version += 1;
  return { updated, skippedTools: [...new Set(unknown)] };
}

function checkEvaluation(tools: readonly string[], scores: readonly number[]): void {
  if (!Array.isArray(tools) || tools.length === 0) {
    throw graphFailure({ code: "invalid_trajectory", message: "An evaluation must name at least one tool." });
  }
  if (tools.length > DEFAULT_MAX_TRAJECTORY_LENGTH) {
    throw graphFailure({
      code: "invalid_trajectory",
      message: `An evaluation covers at most ${DEFAULT_MAX_TRAJECTORY_LENGTH} steps; got ${tools.length}.`,
    });
  }
  if (!Array.isArray(scores) || scores.length !== tools.length) {
    throw invalidScores(`The evaluator must give one score per step: ${tools.length} steps, ${Array.isArray(scores) ? scores.length : 0} scores.`, []);
  }
  const reserved = tools.filter(isReservedId);
  if (reserved.length > 0) {
    throw graphFailure({
      code: "reserved_name",
      message: "Start and end are not tools; the evaluator scores tools only.",
      names: [...new Set(reserved)],
    });
  }
  const bad: string[] = [];
  const badTools = new Set<string>();
  scores.forEach((score, step) => {
    const ok = Number.isInteger(score) && score >= MIN_EVALUATOR_SCORE && score <= MAX_EVALUATOR_SCORE;
    if (ok) return;
    const tool = tools[step] ?? "?";
    bad.push(`step ${step + 1} (${tool}): ${String(score)}`);
    badTools.add(tool);
  });
  if (bad.length > 0) {
    throw invalidScores(`Evaluator scores must be integers in [${MIN_EVALUATOR_SCORE}, ${MAX_EVALUATOR_SCORE}]; got ${bad.join("; ")}.`, [...badTools]);
  }
}

function invalidScores(message: string, names: readonly string[]): Failure {
  return graphFailure({ code: "invalid_scores", message, names });
}
