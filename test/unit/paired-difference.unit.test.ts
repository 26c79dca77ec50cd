/**
 * The route benchmark's paired comparison (bench/lib/paired-difference.ts, issue 45's "route p50
 * no worse"): a known shift between the sides is what it reports, inside its interval, and the
 * same latencies on both sides read as no difference whatever the noise between pairs.
 */
import { describe, expect, it } from "vitest";
import { comparePaired } from "../../bench/lib/paired-difference";
import { seededRandom } from "../../bench/lib/stats";

/** Latencies whose level drifts a lot from pair to pair (a shared machine's load), as both sides of a pair see it. */
function drifting(pairs: number, seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: pairs }, (_, i) => 4 + 3 * Math.sin(i / 25) + 2 * random());
}

describe("paired comparison of two sides' latencies", () => {
  it("reports a side slower by 0.5 ms in every pair as +0.5 ms, inside both intervals", () => {
    const off = drifting(600, 1);
    const on = off.map((ms) => ms + 0.5);
    const c = comparePaired(on, off, seededRandom(2), 400);
    expect(c.pairs).toBe(600);
    expect(c.medianPairDifference.value).toBeCloseTo(0.5, 9);
    expect(c.medianPairDifference.low).toBeCloseTo(0.5, 9);
    expect(c.p50Difference.value).toBeCloseTo(0.5, 9);
    expect(c.p50Difference.low).toBeLessThanOrEqual(0.5);
    expect(c.p50Difference.high).toBeGreaterThanOrEqual(0.5);
  });

  it("reads the same latencies on both sides as no difference, with an interval around 0", () => {
    const times = drifting(400, 3);
    const c = comparePaired(times, times, seededRandom(4), 400);
    expect(c.medianPairDifference).toEqual({ value: 0, low: 0, high: 0 });
    expect(c.p50Difference).toEqual({ value: 0, low: 0, high: 0 });
  });

  it("puts 0 inside the interval for two sides drawn alike, and a clear shift outside it", () => {
    const random = seededRandom(5);
    const base = drifting(500, 6);
    const a = base.map((ms) => ms + random());
    const b = base.map((ms) => ms + random());
    const alike = comparePaired(a, b, seededRandom(7), 400).medianPairDifference;
    expect(alike.low).toBeLessThanOrEqual(0);
    expect(alike.high).toBeGreaterThanOrEqual(0);
    const shifted = comparePaired(
      a.map((ms) => ms + 0.4),
      b,
      seededRandom(7),
    ).medianPairDifference;
    expect(shifted.low).toBeGreaterThan(0);
  });
});
