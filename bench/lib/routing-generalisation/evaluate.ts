/** One dataset measured: every task held out in turn and measured at each step, then the calibrated rows. */
import { addTrajectories, removeTrajectory } from "../../../functions/toolnet/graph";
import type { Ranked } from "../../../functions/toolnet/retrieval";
import { searchTwoWays } from "../../../functions/toolnet/retrieval/term-coverage";
import type { EmbeddingVectors } from "../embedding-vectors";
import type { Dataset, Task } from "../routing-datasets";
import { asTrajectory, buildContext } from "./build-context";
import { addCalibrated, addFirstStep, addTransitionsPerTenant, calibrationRow, type CalibrationRow, type TransitionStep } from "./calibration";
import { addEmbeddingsPerTenant, embeddingsRow, type EmbeddingsRow } from "./embeddings-calibration";
import { addCandidateSets, candidateSets, debugCandidateSetMiss } from "./candidate-sets";
import { type Context, routingSearch } from "./context";
import { debugFirstStep, firstStepRankings } from "./first-step";
import { debugLaterMiss, debugLaterStep, LATER_ALWAYS, laterStepRankings, missReason } from "./later-step";
import { add, K, type Report } from "./measures";
import { FIRST_ONLY, inHalf, SKIP_SETS } from "./options";
import { routingStepTokens, timeSteps } from "./step-cost";

/** What the pass collects for the calibrated rows, scored once every task is measured. */
interface Pending {
  calibration: CalibrationRow[];
  embeddings: EmbeddingsRow[];
  transitionSteps: TransitionStep[];
}

export async function evaluate(dataset: Dataset, vectors: EmbeddingVectors | undefined): Promise<Report> {
  const ctx = await buildContext(dataset, vectors);
  const byGroup = new Map<string, Task[]>();
  for (const t of dataset.tasks) byGroup.set(t.group, [...(byGroup.get(t.group) ?? []), t]);
  const report: Report = { misses: new Map(), first: new Map(), later: new Map(), sets: new Map(), tokens: new Map(), timing: new Map() };
  const pending: Pending = { calibration: [], embeddings: [], transitionSteps: [] };
  for (const task of dataset.tasks) {
    if (!inHalf(task.group)) continue;
    // Hold out the task (and its group): nothing it taught may help it.
    const held = byGroup.get(task.group) ?? [task];
    for (const t of held) {
      ctx.memory.remove(t.id);
      if (dataset.ordered) removeTrajectory(ctx.graph, t.id);
    }
    measureTask(ctx, dataset, task, report, pending);
    restore(ctx, dataset, held);
  }
  addCalibrated(report, pending.calibration);
  if (pending.embeddings.length > 0) addEmbeddingsPerTenant(report, pending.embeddings);
  addTransitionsPerTenant(report, pending.transitionSteps);
  return report;
}

/** Puts held-out tasks back into the task memory and the graph. */
function restore(ctx: Context, dataset: Dataset, held: readonly Task[]): void {
  for (const t of held) {
    ctx.memory.add({ id: t.id, task: t.text, tools: t.gold });
    if (dataset.ordered) {
      const trajectory = asTrajectory(ctx.defs, t);
      if (trajectory.tools.length > 0) addTrajectories(ctx.graph, [trajectory], { unknownTools: "skip" });
    }
  }
}

/** One held-out task at the first step, then (unless `--first-only`) its later steps, then (unless `--skip-sets`) its candidate sets and step costs. */
function measureTask(ctx: Context, dataset: Dataset, task: Task, report: Report, pending: Pending): void {
  const gold = task.gold;
  const firstGold = dataset.ordered ? gold.slice(0, 1) : gold;
  const distinctGold = [...new Set(gold.filter((g) => ctx.defs.has(g)))];
  const rankings = firstStepRankings(ctx, task.text);
  for (const [variant, ranking] of rankings) addFirstStep(report, variant, { firstGold, distinctGold }, ranking);
  pending.calibration.push(calibrationRow(ctx, task, { firstGold, distinctGold }, rankings));
  const embedded = embeddingsRow(ctx, task, { firstGold, distinctGold }, rankings);
  if (embedded !== undefined) pending.embeddings.push(embedded);
  if (process.env.FIRST_DEBUG !== undefined) debugFirstStep(ctx, task.text, firstGold);
  // A later step ranks by the task's words without API evidence (tenant-routing.ts #relevance).
  const relevance = searchTwoWays(ctx.index, task.text, 30, routingSearch(ctx)).plain;
  if (FIRST_ONLY) return;
  if (dataset.ordered) measureLaterSteps(ctx, task, relevance, report, pending);
  if (SKIP_SETS) return;
  const sets = candidateSets(ctx, task.text);
  if (process.env.ROUTING_DEBUG !== undefined) debugCandidateSetMiss(ctx, task.text, gold, relevance, sets.get("fused: all signals") ?? []);
  addCandidateSets(report, ctx, gold, sets);
  routingStepTokens(ctx, task, relevance, report.tokens);
  timeSteps(ctx, task, report.timing);
}

/** Every gold transition of an ordered task: each variant's hit@k, the calibration step and why the fused ranking missed. */
function measureLaterSteps(ctx: Context, task: Task, relevance: readonly Ranked[], report: Report, pending: Pending): void {
  const gold = task.gold;
  for (let i = 1; i < gold.length; i += 1) {
    const previous = gold[i - 1];
    const next = gold[i];
    if (previous === undefined || next === undefined || !ctx.defs.has(previous) || previous === next) continue;
    if (!ctx.defs.has(next)) {
      add(report.misses, "gold next tool is not a tool of the catalog", 1);
      continue;
    }
    const rankings = laterStepRankings(ctx, task.text, relevance, previous);
    for (const [variant, ranking] of rankings) {
      for (const k of K) add(report.later, `${variant}|${k}`, ranking.slice(0, k).includes(next) ? 1 : 0);
    }
    pending.transitionSteps.push({ group: task.group, next, with: rankings.get(LATER_ALWAYS) ?? [], without: rankings.get("fused − transition") ?? [] });
    if (process.env.LATER_DEBUG !== undefined) debugLaterStep(ctx, task.text, relevance, previous, next, rankings);
    if (process.env.ROUTING_DEBUG !== undefined) debugLaterMiss(ctx, task.text, relevance, previous, next, rankings.get(LATER_ALWAYS) ?? []);
    add(report.misses, missReason(ctx, relevance, previous, next, rankings.get(LATER_ALWAYS) ?? []), 1);
  }
}
