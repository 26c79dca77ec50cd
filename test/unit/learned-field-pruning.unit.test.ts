import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/lib/stats";
import { LearnedField } from "../../functions/toolnet/retrieval/learned-field";

/**
 * The learned field's pruned search (max-score.ts) against scoring every match, on fields shaped
 * like real traffic: a few framing words ("can", "help") in most fields, the rest rarer and rarer.
 */

const FRAMING = ["can", "help", "need", "pleas", "want"];
const VOCABULARY = [...FRAMING, ...Array.from({ length: 400 }, (_, i) => `w${i}`)];

/** A word: a framing word often, else one of the vocabulary by a Zipf-like law (rank r with weight 1 / (r + 1)). */
function skewedWord(random: () => number): string {
  if (random() < 0.35) return FRAMING[Math.floor(random() * FRAMING.length)] ?? "can";
  const rank = Math.floor(Math.exp(random() * Math.log(VOCABULARY.length)) - 1);
  return VOCABULARY[Math.min(rank, VOCABULARY.length - 1)] ?? "w0";
}

function skewedWeights(random: () => number): Map<string, number> {
  const weights = new Map<string, number>();
  const count = 4 + Math.floor(random() * 12);
  // Mostly whole evidence, some halves (later tools, failed calls), now and then a word taken away.
  const weight = () => (random() < 0.1 ? -1 : random() < 0.3 ? 0.5 : random() < 0.8 ? 2 : 1);
  for (let i = 0; i < count; i += 1) weights.set(skewedWord(random), weight());
  return weights;
}

/** Two fields fed the same evidence, one pruning and one scoring every match; some sources are taken away again, and some tools are exact copies (ties). */
function fieldsOf(seed: number, tools: number): { pruned: LearnedField; every: LearnedField; sources: string[] } {
  const random = seededRandom(seed);
  const pruned = new LearnedField();
  const every = new LearnedField({ prune: false });
  const sources: string[] = [];
  const teach = (source: string, tool: string, weights: Map<string, number>) => {
    pruned.set(source, tool, weights);
    every.set(source, tool, weights);
    sources.push(source);
  };
  for (let t = 0; t < tools; t += 1) {
    const taught = 1 + Math.floor(random() * 10);
    for (let s = 0; s < taught; s += 1) {
      const weights = skewedWeights(random);
      teach(`s${t}:${s}`, `tool${t}`, weights);
      if (t % 50 === 0) teach(`s${t}:${s}`, `copy${t}`, weights);
    }
    if (random() < 0.1) {
      pruned.remove(`s${t}:0`);
      every.remove(`s${t}:0`);
    }
  }
  return { pruned, every, sources };
}

function skewedQuery(random: () => number): string {
  const words = Array.from({ length: 2 + Math.floor(random() * 18) }, () => skewedWord(random));
  if (random() < 0.2) words.push("unheard");
  return words.join(" ");
}

describe("the learned field's pruned search", () => {
  const { pruned, every, sources } = fieldsOf(45, 2_000);
  const random = seededRandom(7);
  const queries = Array.from({ length: 200 }, () => skewedQuery(random));

  it("ranks exactly as scoring every match: same tools, scores, order and ties, at every limit", () => {
    for (const limit of [1, 3, 10, 50, 200]) {
      for (const query of queries) expect(pruned.search(query, 2_000, limit)).toStrictEqual(every.search(query, 2_000, limit));
    }
    // A limit beyond every match: the whole ranking.
    for (const query of queries.slice(0, 20)) expect(pruned.search(query, 2_000, 10_000)).toStrictEqual(every.search(query, 2_000, 10_000));
    // The copies tie with their originals: ties are part of what was compared.
    expect(every.search("w1 w2 w3 can help", 2_000, 10_000).some((r, i, all) => all[i - 1]?.score === r.score)).toBe(true);
  });

  it("ranks exactly as scoring every match in the view without one source (the calibration's replay)", () => {
    for (let n = 0; n < 60; n += 1) {
      const left = sources[Math.floor(random() * sources.length)] ?? "";
      const query = queries[n] ?? "";
      for (const limit of [5, 50]) expect(pruned.search(query, 2_000, limit, left)).toStrictEqual(every.search(query, 2_000, limit, left));
    }
  });

  it("reads far fewer postings and scores far fewer tools than scoring every match", () => {
    const before = { ...pruned.work };
    const everyBefore = { ...every.work };
    for (const query of queries) {
      pruned.search(query, 2_000, 10);
      every.search(query, 2_000, 10);
    }
    const postings = { pruned: pruned.work.postings - before.postings, every: every.work.postings - everyBefore.postings };
    const scored = { pruned: pruned.work.rescored - before.rescored, every: every.work.rescored - everyBefore.rescored };
    expect(postings.every).toBeGreaterThan(0);
    expect(postings.pruned).toBeLessThan(postings.every / 3);
    expect(scored.pruned).toBeLessThan(scored.every / 20);
  });
});
