/** The calibrated rows, scored after the pass: history leading the first step and learned transitions at later steps, as routing decides them per tenant. */
import { historyLeads } from "../../../functions/toolnet/history-calibration";
import { calibratedEntry, chosenWeight } from "../../../functions/toolnet/signal-calibration";
import type { Task } from "../routing-datasets";
import type { Context } from "./context";
import {
  WARM,
  WARM_ALWAYS,
  WARM_ALWAYS_FIRST_VOTES,
  WARM_ANSWER,
  WARM_ANSWER_ALWAYS,
  WARM_ANSWER_BEST_FIRST,
  WARM_BEST_FIRST,
  WARM_BEST_FIRST_FIRST_VOTES,
  WARM_FIRST_VOTES_ONLY,
} from "./first-step";
import { LATER } from "./later-step";
import { add, ANSWER_K, K, recall, type Report } from "./measures";
import { FIRST_MIN_SIMILARITY } from "./options";

/** A later step as the per-tenant transitions variant reads it: the gold next tool, fused with and without learned transitions. */
export interface TransitionStep {
  group: string;
  next: string;
  with: readonly string[];
  without: readonly string[];
}

/**
 * The later step as routing makes it: learned transitions take part unless the tenant's other
 * tasks' later steps (the task's group left out; routing replays its 64 most recent) hit less
 * often at k = 5 with them than without, by 2 steps or more (signal-calibration.ts).
 */
export function addTransitionsPerTenant(report: Report, steps: readonly TransitionStep[]): void {
  const hits = (ranking: readonly string[], next: string) => (ranking.slice(0, 5).includes(next) ? 1 : 0);
  const byGroup = new Map<string, { steps: number; with: number; without: number }>();
  const total = { steps: 0, with: 0, without: 0 };
  for (const step of steps) {
    const own = byGroup.get(step.group) ?? { steps: 0, with: 0, without: 0 };
    for (const tally of [own, total]) {
      tally.steps += 1;
      tally.with += hits(step.with, step.next);
      tally.without += hits(step.without, step.next);
    }
    byGroup.set(step.group, own);
  }
  if (process.env.TRANSITIONS_DEBUG !== undefined) {
    const only = (a: "with" | "without", b: "with" | "without") => steps.filter((s) => hits(s[a], s.next) === 1 && hits(s[b], s.next) === 0).length;
    console.log(
      `transitions replay: ${total.steps} steps, with ${total.with}, without ${total.without}; only with ${only("with", "without")}, only without ${only("without", "with")}`,
    );
  }
  for (const step of steps) {
    const own = byGroup.get(step.group) ?? { steps: 0, with: 0, without: 0 };
    const others = { steps: total.steps - own.steps, with: total.with - own.with, without: total.without - own.without };
    // As routing chooses it (signal-calibration.ts): left out only when the replay holds 2 more steps without them.
    const ranking = chosenWeight(calibratedEntry("transitions"), { judged: others.steps, hits: [others.without, others.with] }) > 0 ? step.with : step.without;
    for (const k of K) add(report.later, `${LATER}|${k}`, ranking.slice(0, k).includes(step.next) ? 1 : 0);
  }
}

/** One measured task's first step as the calibrated variant reads it. */
export interface CalibrationRow {
  group: string;
  /** History's first vote (null: no similar task voted) and the cold ranking's first tool. */
  voted: string | null;
  best: string | null;
  firstGold: readonly string[];
  distinctGold: readonly string[];
  /** The warm ranking as today (history may overrule the best match) and with the best match first. */
  leads: readonly string[];
  bestFirst: readonly string[];
  /** The same two without votes for the tools similar tasks used after their first (the ablation). */
  leadsFirstVotes: readonly string[];
  bestFirstFirstVotes: readonly string[];
  /** The route answer at k = 10 from `leads` and from `bestFirst`. */
  answerLeads: readonly string[];
  answerBestFirst: readonly string[];
}

/**
 * The warm first step as routing makes it: history may overrule the best match only where the
 * tenant's other tasks (the task's group left out; routing samples its 64 most recent) show its
 * first vote right more often than the words' first choice (history-calibration.ts). Scored
 * after the pass, once every task's two outcomes are known.
 */
export function addCalibrated(report: Report, rows: readonly CalibrationRow[]): void {
  type Tally = { voted: number; history: number; words: number };
  const plus = (a: Tally, b: Tally): Tally => ({ voted: a.voted + b.voted, history: a.history + b.history, words: a.words + b.words });
  const none: Tally = { voted: 0, history: 0, words: 0 };
  // Right: the choice is the first gold tool (StableToolBench: one of its gold set).
  const outcome = (row: CalibrationRow): Tally =>
    row.voted === null
      ? none
      : { voted: 1, history: row.firstGold.includes(row.voted) ? 1 : 0, words: row.best !== null && row.firstGold.includes(row.best) ? 1 : 0 };
  const byGroup = new Map<string, Tally>();
  let total = none;
  for (const row of rows) {
    byGroup.set(row.group, plus(byGroup.get(row.group) ?? none, outcome(row)));
    total = plus(total, outcome(row));
  }
  for (const row of rows) {
    const own = byGroup.get(row.group) ?? none;
    const others = { voted: total.voted - own.voted, history: total.history - own.history, words: total.words - own.words };
    const leads = historyLeads(others);
    addFirstStep(report, WARM, row, leads ? row.leads : row.bestFirst);
    addFirstStep(report, WARM_FIRST_VOTES_ONLY, row, leads ? row.leadsFirstVotes : row.bestFirstFirstVotes);
    addFirstStep(report, WARM_ANSWER, row, leads ? row.answerLeads : row.answerBestFirst);
  }
}

export function addFirstStep(report: Report, variant: string, row: Pick<CalibrationRow, "firstGold" | "distinctGold">, ranking: readonly string[]): void {
  add(report.first, `${variant}|1`, recall(row.firstGold, ranking.slice(0, 1)));
  for (const k of K) add(report.first, `${variant}|${k}`, recall(row.firstGold, ranking.slice(0, k)));
  if (row.distinctGold.length >= 2) add(report.first, `${variant}|all10`, recall(row.distinctGold, ranking.slice(0, ANSWER_K)) === 1 ? 1 : 0);
  add(report.first, `${variant}|length`, Math.min(ANSWER_K, ranking.length));
}

/** The task's calibration row, from its first-step rankings (history's first vote read as routing reads it). */
export function calibrationRow(
  ctx: Context,
  task: Task,
  gold: Pick<CalibrationRow, "firstGold" | "distinctGold">,
  rankings: ReadonlyMap<string, string[]>,
): CalibrationRow {
  return {
    group: task.group,
    voted: ctx.memory.votes(task.text, { tools: "first", minSimilarity: FIRST_MIN_SIMILARITY })[0]?.name ?? null,
    best: rankings.get("cold: fused, no history")?.[0] ?? null,
    firstGold: gold.firstGold,
    distinctGold: gold.distinctGold,
    leads: rankings.get(WARM_ALWAYS) ?? [],
    bestFirst: rankings.get(WARM_BEST_FIRST) ?? [],
    leadsFirstVotes: rankings.get(WARM_ALWAYS_FIRST_VOTES) ?? [],
    bestFirstFirstVotes: rankings.get(WARM_BEST_FIRST_FIRST_VOTES) ?? [],
    answerLeads: rankings.get(WARM_ANSWER_ALWAYS) ?? [],
    answerBestFirst: rankings.get(WARM_ANSWER_BEST_FIRST) ?? [],
  };
}
