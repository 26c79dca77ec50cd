import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/lib/stats";
import { withLearnedField } from "../../functions/toolnet/retrieval/learned-field";
import { sortRanked, type Ranked } from "../../functions/toolnet/retrieval/ranked";
import { bestRanked } from "../../functions/toolnet/retrieval/top-k";

/**
 * The first step's merge of the learned field into the own-text ranking, and the best-k selection
 * both it and the field's search answer with (top-k.ts `bestRanked`), against the plain
 * definitions: a map of summed scores, every entry sorted (sortRanked), the first `limit` kept.
 * Scores repeat (ties are broken by name) and limits run from 0 past every entry.
 */

/** The merge as first written: every tool's summed score, all sorted. */
function plainMerge(ranked: readonly Ranked[], learned: readonly Ranked[], weight: number): Ranked[] {
  if (learned.length === 0 || weight <= 0) return [...ranked];
  const scores = new Map(ranked.map((r) => [r.name, r.score]));
  for (const r of learned) scores.set(r.name, (scores.get(r.name) ?? 0) + weight * r.score);
  return sortRanked([...scores].map(([name, score]) => ({ name, score })));
}

/** `count` tools of `pool` (distinct), with scores from a few values so ties are common. */
function randomRanking(random: () => number, pool: number, count: number): Ranked[] {
  const names = new Set<string>();
  while (names.size < Math.min(count, pool)) names.add(`tool${Math.floor(random() * pool)}`);
  const scores = [0, 0.5, 1, 1.25, 2, 3.5, random() * 4];
  return sortRanked([...names].map((name) => ({ name, score: scores[Math.floor(random() * scores.length)] ?? 0 })));
}

describe("the learned field's merge and best-k selection", () => {
  it("bestRanked keeps exactly what sorting every entry and cutting at the limit keeps", () => {
    const random = seededRandom(11);
    for (let round = 0; round < 300; round += 1) {
      const entries = randomRanking(random, 120, Math.floor(random() * 90));
      // Shuffled: the selection must not rely on its input's order.
      const shuffled = entries.map((entry) => ({ entry, key: random() })).sort((a, b) => a.key - b.key);
      const names = shuffled.map(({ entry }) => entry.name);
      const scores = Float64Array.from(shuffled, ({ entry }) => entry.score);
      for (const limit of [0, 1, 5, 30, 50, 200, Number.POSITIVE_INFINITY]) {
        expect(bestRanked(names, scores, names.length, limit)).toStrictEqual(entries.slice(0, limit));
      }
    }
  });

  it("withLearnedField gives the plain merge's tools, scores, order and ties, cut at any limit", () => {
    const random = seededRandom(12);
    for (let round = 0; round < 300; round += 1) {
      const own = randomRanking(random, 100, Math.floor(random() * 40));
      const learned = randomRanking(random, 100, Math.floor(random() * 55));
      const weight = [0, 0.5, 1, 1.5][Math.floor(random() * 4)] ?? 1;
      const expected = plainMerge(own, learned, weight);
      expect(withLearnedField(own, learned, weight)).toStrictEqual(expected);
      for (const limit of [1, 8, 30]) expect(withLearnedField(own, learned, weight, limit)).toStrictEqual(expected.slice(0, limit));
    }
  });

  it("withLearnedField stays right once more names than it numbers have passed (its numbering starts again)", () => {
    const random = seededRandom(13);
    // 700 merges of 100 new names each: past the 50,000 names numbered before starting again.
    for (let round = 0; round < 700; round += 1) {
      const prefix = `r${round}:`;
      const rename = (ranking: Ranked[]) => ranking.map((r) => ({ ...r, name: prefix + r.name }));
      const own = rename(randomRanking(random, 80, 40));
      const learned = rename(randomRanking(random, 80, 60));
      expect(withLearnedField(own, learned, 1)).toStrictEqual(plainMerge(own, learned, 1));
    }
  });
});
