/** The figures' tallies (values by "variant|figure" key), the report of one dataset, and the arithmetic on them. */

export const K = [5, 10] as const;
export const MAX_TOOLS = 10;
/** k of the route answers whose length and all-gold figures are measured. */
export const ANSWER_K = 10;

export type Tally = Map<string, number[]>;
export function add(tally: Tally, key: string, value: number): void {
  const list = tally.get(key);
  if (list === undefined) tally.set(key, [value]);
  else list.push(value);
}
export const mean = (values: readonly number[] | undefined): number =>
  values === undefined || values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
export const fmt = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : "–");

export function recall(gold: readonly string[], found: readonly string[]): number {
  const set = new Set(found);
  return gold.filter((g) => set.has(g)).length / gold.length;
}

export interface Report {
  /** Why the gold next tool was missed at k = 5 by the fused ranking (one count per transition). */
  misses: Tally;
  first: Tally;
  later: Tally;
  sets: Tally;
  tokens: Tally;
  timing: Tally;
}
