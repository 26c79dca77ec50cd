/**
 * A fair "A vs B" of latencies measured in pairs (issue 45's route p50 with the learned field on
 * vs off): each pair is one route at each side, taken back to back in a random order, so drift in
 * the shared machine's load reaches both sides alike. Reports each side's p50, the median of the
 * per-pair differences and a bootstrap interval (pairs resampled) for both.
 */
import { percentile, randomInt } from "./stats";

/** The comparison of side a against side b; differences are a − b, ms. */
export interface PairedComparison {
  pairs: number;
  p50A: number;
  p50B: number;
  /** p50(a) − p50(b) and its 95 % bootstrap interval. */
  p50Difference: { value: number; low: number; high: number };
  /** The median of the per-pair differences a − b and its 95 % bootstrap interval. */
  medianPairDifference: { value: number; low: number; high: number };
}

const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((x, y) => x - y),
    50,
  );

/** The 2.5th and 97.5th percentiles of `statistic` over `rounds` resamples (with replacement) of the pair indices. */
function bootstrap(pairs: number, statistic: (indices: Int32Array) => number, random: () => number, rounds: number): { low: number; high: number } {
  const estimates: number[] = [];
  const indices = new Int32Array(pairs);
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < pairs; i += 1) indices[i] = randomInt(random, pairs);
    estimates.push(statistic(indices));
  }
  estimates.sort((x, y) => x - y);
  return { low: percentile(estimates, 2.5), high: percentile(estimates, 97.5) };
}

/** Compares paired samples: `a[i]` and `b[i]` were measured back to back. */
export function comparePaired(a: readonly number[], b: readonly number[], random: () => number, rounds = 2_000): PairedComparison {
  const pairs = Math.min(a.length, b.length);
  const differences = Array.from({ length: pairs }, (_, i) => (a[i] ?? 0) - (b[i] ?? 0));
  const pick = (values: readonly number[], indices: Int32Array) => Array.from(indices, (i) => values[i] ?? 0);
  const p50Difference = (indices: Int32Array) => median(pick(a, indices)) - median(pick(b, indices));
  const pairDifference = (indices: Int32Array) => median(pick(differences, indices));
  return {
    pairs,
    p50A: median(a.slice(0, pairs)),
    p50B: median(b.slice(0, pairs)),
    p50Difference: { value: median(a.slice(0, pairs)) - median(b.slice(0, pairs)), ...bootstrap(pairs, p50Difference, random, rounds) },
    medianPairDifference: { value: median(differences), ...bootstrap(pairs, pairDifference, random, rounds) },
  };
}

/** One line for a comparison: "p50 a / b, difference [interval]; median per-pair difference [interval]". */
export function pairedLine(c: PairedComparison): string {
  const f = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(2)}`;
  const d = c.p50Difference;
  const m = c.medianPairDifference;
  return `p50 ${c.p50A.toFixed(2)} / ${c.p50B.toFixed(2)} ms, difference ${f(d.value)} ms [95 %: ${f(d.low)}, ${f(d.high)}]; median per-pair difference ${f(m.value)} ms [${f(m.low)}, ${f(m.high)}] (${c.pairs} pairs)`;
}
