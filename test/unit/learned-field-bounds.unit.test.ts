import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/lib/stats";
import { queryTerms } from "../../functions/toolnet/retrieval/analyze";
import { bm25Score, inverseDocumentFrequency } from "../../functions/toolnet/retrieval/impact-math";
import { LEARNED_CONFIDENCE, LEARNED_IDF_OVER_FIELDS, LearnedField, UNMATCHED_TERM } from "../../functions/toolnet/retrieval/learned-field";
import { PostingList } from "../../functions/toolnet/retrieval/learned-postings";
import { DEFAULT_TUNING } from "../../functions/toolnet/retrieval/minisearch-engine";
import { sortRanked, type Ranked } from "../../functions/toolnet/retrieval/ranked";

/**
 * The learned field's search (slots, flat postings, per-term bounds, max-score.ts) against a
 * plain model written here from the definition: each tool's field is the positive sum of what
 * its sources taught, scored as BM25 over the fields, times sources / (sources + confidence).
 * Evidence arrives, is replaced and is taken away in a random order between searches, so
 * postings are removed and re-added and the terms' bounds go loose and are tightened again.
 * Weights are multiples of ½ and fields stay under the term and source budgets, so every sum is
 * exact in floating point and the model's scores must equal the field's to the last bit.
 */

const TUNING = DEFAULT_TUNING.bm25;
const VOCABULARY = ["can", "help", "need", ...Array.from({ length: 60 }, (_, i) => `w${i}`)];

/** What the model keeps: tool → source → term weights. */
type Taught = Map<string, Map<string, Map<string, number>>>;

function modelFields(taught: Taught): Map<string, { field: Map<string, number>; sources: number }> {
  const fields = new Map<string, { field: Map<string, number>; sources: number }>();
  for (const [tool, sources] of taught) {
    const totals = new Map<string, number>();
    for (const weights of sources.values()) for (const [term, weight] of weights) totals.set(term, (totals.get(term) ?? 0) + weight);
    const field = new Map([...totals].filter(([, weight]) => weight > 0));
    // Only sources that teach the tool a word count: one that only takes words away is no evidence for it.
    const teaching = [...sources.values()].filter((weights) => [...weights.values()].some((weight) => weight > 0)).length;
    if (field.size > 0) fields.set(tool, { field, sources: teaching });
  }
  return fields;
}

const CATALOG = 100;

function modelSearch(taught: Taught, text: string, limit: number): Ranked[] {
  const fields = modelFields(taught);
  if (fields.size === 0) return [];
  let totalLength = 0;
  for (const { field } of fields.values()) for (const weight of field.values()) totalLength += weight;
  const averageLength = totalLength / fields.size;
  const ranked: Ranked[] = [];
  const terms = [...new Set(queryTerms(text)), UNMATCHED_TERM];
  const documents = LEARNED_IDF_OVER_FIELDS ? fields.size : Math.max(CATALOG, fields.size);
  const idf = (term: string) => inverseDocumentFrequency(documents, [...fields.values()].filter(({ field }) => field.has(term)).length);
  for (const [tool, { field, sources }] of fields) {
    let length = 0;
    for (const weight of field.values()) length += weight;
    let sum = 0;
    let matched = false;
    for (const term of terms) {
      const weight = field.get(term);
      if (weight === undefined) continue;
      matched = true;
      sum += bm25Score(idf(term), weight, length, averageLength, TUNING);
    }
    if (matched) ranked.push({ name: tool, score: (sum * sources) / (sources + LEARNED_CONFIDENCE) });
  }
  return sortRanked(ranked).slice(0, limit);
}

function randomWeights(random: () => number): Map<string, number> {
  const weights = new Map<string, number>();
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i += 1) {
    // Common words often, the rest spread; now and then a word taken away (negative).
    const term = random() < 0.3 ? (VOCABULARY[Math.floor(random() * 3)] ?? "can") : (VOCABULARY[3 + Math.floor(random() * 60)] ?? "w0");
    weights.set(term, random() < 0.1 ? -1 : ([0.5, 1, 2, 2][Math.floor(random() * 4)] ?? 1));
  }
  if (random() < 0.05) weights.set(UNMATCHED_TERM, 1);
  return weights;
}

function randomQuery(random: () => number): string {
  return Array.from({ length: 1 + Math.floor(random() * 8) }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)] ?? "can").join(" ");
}

// Thousands of random changes each checked against the model: over 30 s on a loaded 2-core machine, so 120 s.
describe("the learned field's search against a plain model of it, as evidence comes and goes", () => {
  it("gives the model's tools, scores, order and ties after every change, pruned and unpruned", () => {
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      const pruned = new LearnedField();
      const every = new LearnedField({ prune: false });
      const taught: Taught = new Map();
      const sources: string[] = [];
      for (let step = 0; step < 1_500; step += 1) {
        const roll = random();
        if (roll < 0.15 && sources.length > 0) {
          // A source taken away (a deleted conversation): every tool it taught loses its words.
          const source = sources.splice(Math.floor(random() * sources.length), 1)[0] ?? "";
          pruned.remove(source);
          every.remove(source);
          for (const bySource of taught.values()) bySource.delete(source);
        } else {
          // A source teaches a tool (some sources are taught again: their words are replaced).
          const source = roll < 0.3 && sources.length > 0 ? (sources[Math.floor(random() * sources.length)] ?? "s") : `s${step}`;
          const tool = `tool${Math.floor(random() * 40)}`;
          // Twin tools get the same evidence: equal scores, ties broken by name.
          const twins = random() < 0.1 ? [tool, `${tool}-twin`] : [tool];
          const weights = randomWeights(random);
          for (const name of twins) {
            pruned.set(source, name, weights);
            every.set(source, name, weights);
            let bySource = taught.get(name);
            if (bySource === undefined) taught.set(name, (bySource = new Map()));
            bySource.set(source, weights);
          }
          if (!sources.includes(source)) sources.push(source);
        }
        if (step % 5 !== 0) continue;
        const query = randomQuery(random);
        for (const limit of [1, 3, 10]) {
          const expected = modelSearch(taught, query, limit);
          expect(pruned.search(query, CATALOG, limit)).toStrictEqual(expected);
          expect(every.search(query, CATALOG, limit)).toStrictEqual(expected);
        }
      }
    }
  }, 120_000);

  it("without one source (the calibration's replay) gives the model's answer with that source never taught", () => {
    const random = seededRandom(9);
    const field = new LearnedField();
    const taught: Taught = new Map();
    for (let s = 0; s < 300; s += 1) {
      const tools = [`tool${Math.floor(random() * 30)}`, `tool${Math.floor(random() * 30)}`];
      for (const tool of tools) {
        const weights = randomWeights(random);
        field.set(`s${s}`, tool, weights);
        let bySource = taught.get(tool);
        if (bySource === undefined) taught.set(tool, (bySource = new Map()));
        bySource.set(`s${s}`, weights);
      }
    }
    for (let n = 0; n < 150; n += 1) {
      const source = `s${Math.floor(random() * 300)}`;
      const without: Taught = new Map([...taught].map(([tool, bySource]) => [tool, new Map([...bySource].filter(([s]) => s !== source))]));
      const query = randomQuery(random);
      for (const limit of [2, 10]) expect(field.search(query, CATALOG, limit, source)).toStrictEqual(modelSearch(without, query, limit));
    }
  }, 120_000);
});

describe("a term's postings and their bounds", () => {
  it("never bound below a posting they hold, and are exact for the postings left once tightened", () => {
    const random = seededRandom(4);
    const list = new PostingList();
    const lengths: number[] = [];
    const shares: number[] = [];
    const weights = new Map<number, number>();
    for (let step = 0; step < 2_000; step += 1) {
      const slot = Math.floor(random() * 50);
      if (weights.has(slot)) {
        list.delete(slot);
        weights.delete(slot);
      } else {
        const weight = 0.5 + Math.floor(random() * 8) / 2;
        lengths[slot] = weight + Math.floor(random() * 40);
        shares[slot] = random();
        list.post(slot, weight, lengths[slot] ?? 0, shares[slot] ?? 0);
        weights.set(slot, weight);
      }
      expect(new Set(Array.from(list.slots))).toEqual(new Set(weights.keys()));
      for (let p = 0; p < list.size; p += 1) {
        const at = list.slots[p] ?? 0;
        expect(list.weights[p]).toBe(weights.get(at));
        // Loose or tight, a bound is never below what a posting it holds needs.
        expect(list.maxWeight).toBeGreaterThanOrEqual(list.weights[p] ?? 0);
        expect(list.minLengthPerWeight).toBeLessThanOrEqual((lengths[at] ?? 0) / (list.weights[p] ?? 1));
        expect(list.maxShare).toBeGreaterThanOrEqual(shares[at] ?? 0);
      }
      if (step % 7 !== 0) continue;
      list.tighten(lengths, shares);
      const held = [...weights];
      expect(list.maxWeight).toBe(Math.max(0, ...held.map(([, w]) => w)));
      expect(list.minLengthPerWeight).toBe(Math.min(Number.POSITIVE_INFINITY, ...held.map(([s, w]) => (lengths[s] ?? 0) / w)));
      expect(list.maxShare).toBe(Math.max(0, ...held.map(([s]) => shares[s] ?? 0)));
    }
  }, 120_000);

  it("keep each slot's position while they hold a large share of the slots, and stay right as postings come and go", () => {
    const random = seededRandom(5);
    const list = new PostingList();
    const held = new Set<number>();
    const states = new Set<boolean>();
    // Phases that fill the list with most of 400 slots, then empty it again: positions come, go and come back.
    for (let step = 0; step < 6_000; step += 1) {
      const filling = Math.floor(step / 1_000) % 2 === 0;
      const slot = Math.floor(random() * 400);
      if (held.has(slot) && (!filling || random() < 0.2)) {
        list.delete(slot);
        held.delete(slot);
      } else if (!held.has(slot) && (filling || random() < 0.2)) {
        list.post(slot, 1, 10, 0.5);
        held.add(slot);
      }
      const positions = list.positions;
      states.add(positions !== undefined);
      if (positions === undefined || step % 3 !== 0) continue;
      // By slot: its place in the list plus 1, 0 for a slot the list does not hold.
      const expected = new Int32Array(positions.length);
      list.slots.forEach((at, p) => {
        expected[at] = p + 1;
      });
      const wrong = expected.map((position, at) => (positions[at] === position ? 0 : 1)).reduce((sum, w) => sum + w, 0);
      const stray = list.slots.filter((at) => !held.has(at)).length;
      expect({ step, held: list.size, stray, wrong }).toEqual({ step, held: held.size, stray: 0, wrong: 0 });
    }
    // Both kinds of list were checked: with positions (common) and without (rare).
    expect(states).toEqual(new Set([true, false]));
  }, 120_000);
});
