import type { RankingTuning } from "./minisearch-engine";

/** The impact index's pure arithmetic: MiniSearch 7's BM25 term for term, and posting-list helpers. */

/** BM25's inverse document frequency, as MiniSearch 7's calcBM25Score computes it. */
export function inverseDocumentFrequency(documents: number, matching: number): number {
  return Math.log(1 + (documents - matching + 0.5) / (matching + 0.5));
}

/** MiniSearch 7's calcBM25Score, term for term, given its inverse document frequency. */
export function bm25Score(invDocFreq: number, termFreq: number, fieldLength: number, avgFieldLength: number, { k, b, d }: RankingTuning["bm25"]): number {
  return invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
}

/**
 * The impact more than half of all `tools` have for a term (its tools `docs`, their impacts in
 * `sum`), or 0 when no one impact is that common: such a term is cheaper stored as its exceptions.
 */
export function commonImpact(docs: Int32Array, sum: Float64Array, tools: number): number {
  const counts = new Map<number, number>();
  for (const doc of docs) {
    const impact = sum[doc] ?? 0;
    const count = (counts.get(impact) ?? 0) + 1;
    if (count * 2 > tools) return impact;
    counts.set(impact, count);
  }
  return 0;
}

/** First position in [from, to) whose tool id is ≥ `doc` (galloping, then binary search). */
export function seek(docs: Int32Array, from: number, to: number, doc: number): number {
  if (from >= to || (docs[from] ?? 0) >= doc) return from;
  let step = 1;
  let low = from;
  let high = from + 1;
  while (high < to && (docs[high] ?? 0) < doc) {
    low = high;
    step *= 2;
    high = from + step;
  }
  high = Math.min(high, to);
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((docs[mid] ?? 0) < doc) low = mid + 1;
    else high = mid;
  }
  return low;
}
