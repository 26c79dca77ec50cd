/**
 * The ATC paper's automatic metrics (appendix A.1.1), per task:
 * - Success: 1 when every ground-truth tool was executed correctly (a successful call), else 0.
 * - Correct Path (Path%): the share of ground-truth tools that appear among the generated calls.
 * - Correct Tool Precision (Prec%): the share of generated calls that are ground-truth tools.
 * Tools are compared by name; repeated gold tools count as often as they appear (multiset).
 */

export interface CallRecord {
  tool: string;
  ok: boolean;
}

export interface TaskScore {
  success: 0 | 1;
  path: number;
  precision: number;
}

function countOf(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/** Multiset intersection size of two name lists. */
function overlap(a: readonly string[], b: readonly string[]): number {
  const left = countOf(a);
  let shared = 0;
  for (const [name, n] of countOf(b)) shared += Math.min(n, left.get(name) ?? 0);
  return shared;
}

/** Score one task from the gold tool sequence and the calls the final program made. */
export function scoreTask(gold: readonly string[], calls: readonly CallRecord[]): TaskScore {
  const called = calls.map((c) => c.tool);
  const succeeded = calls.filter((c) => c.ok).map((c) => c.tool);
  const success = gold.length > 0 && overlap(gold, succeeded) === gold.length ? 1 : 0;
  const path = gold.length === 0 ? 0 : overlap(gold, called) / gold.length;
  const precision = called.length === 0 ? 0 : overlap(gold, called) / called.length;
  return { success, path, precision };
}

export interface SetScore {
  tasks: number;
  successPct: number;
  pathPct: number;
  precisionPct: number;
}

/** Average task scores over a set, as percentages rounded to one decimal. */
export function scoreSet(scores: readonly TaskScore[]): SetScore {
  const mean = (pick: (s: TaskScore) => number): number =>
    scores.length === 0 ? 0 : Math.round((scores.reduce((sum, s) => sum + pick(s), 0) / scores.length) * 1000) / 10;
  return { tasks: scores.length, successPct: mean((s) => s.success), pathPct: mean((s) => s.path), precisionPct: mean((s) => s.precision) };
}
