import { DEFAULT_TUNING } from "./minisearch-engine";

/**
 * What max-score.ts's search reads of a BM25 field whose tools are numbered (the learned field,
 * learned-field.ts): each term's postings with the bounds of what it can add, and BM25's
 * term-frequency part and a term's ceiling, the two sums its bounds rest on.
 */

const TUNING = DEFAULT_TUNING.bm25;

/** One term's postings: tools by slot with the term's weight there, and what bounds its contribution. */
export interface TermPostings {
  readonly slots: ArrayLike<number>;
  readonly weights: ArrayLike<number>;
  readonly size: number;
  /** At least the largest weight among the postings. */
  readonly maxWeight: number;
  /** At most the smallest field length ÷ weight among the postings. */
  readonly minLengthPerWeight: number;
  /** At least the largest share (see `ScoredField.shares`) among the postings' tools. */
  readonly maxShare: number;
  /** Each posting's BM25 before its term's IDF (`termFrequencyPart`), for this average field length and these lengths by slot. */
  parts(averageLength: number, lengths: ArrayLike<number>): ArrayLike<number>;
  /** Each slot's position in `slots` plus 1 (0: not held), when the postings keep it (a common term's). */
  readonly positions: Int32Array | undefined;
}

/** What a search reads of the field. */
export interface ScoredField {
  /** The N of the terms' IDF. */
  documents: number;
  averageLength: number;
  /** The tools whose field holds `term` (size 0: none). */
  postings: (term: string) => TermPostings;
  /** `term`'s weight in the field of the tool in `slot` (undefined: it has none). */
  weightIn: (slot: number, term: string) => number | undefined;
  /** Each slot's field length. */
  lengths: ArrayLike<number>;
  /** The share of its sum each slot's score keeps, at most 1 (the pruning's bounds rely on it). */
  shares: ArrayLike<number>;
  /** More than every slot in use. */
  slotCount: number;
  nameOf: (slot: number) => string;
  /** A tool's score from its summed BM25: its share of the sum, rounded as the field rounds it. */
  finish: (slot: number, sum: number) => number;
}

/** A search's work, summed over searches: postings read while gathering, and tools scored exactly. */
export interface SearchWork {
  postings: number;
  rescored: number;
}

/**
 * BM25's term-frequency part (MiniSearch 7's, impact-math.ts `bm25Score` without the IDF factor,
 * which it multiplies last): IDF × this is `bm25Score` to the last bit. It depends on the tool's
 * field alone and the fields' average length, not on the query, so a term's postings keep theirs
 * from search to search (learned-postings.ts).
 */
export function termFrequencyPart(termFreq: number, fieldLength: number, averageLength: number): number {
  const { k, b, d } = TUNING;
  return d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / averageLength));
}

/**
 * The most one posting of `postings` adds to a tool's sum (before its share): BM25's term
 * frequency part tf / (tf + k₁(1 − b) + k₁·b·length/avg) is 1 / (1 + k₁(1 − b)/tf + (k₁·b/avg)·(length/tf)),
 * largest at the largest tf and the smallest length per tf.
 */
export function termCeiling(postings: TermPostings, idf: number, averageLength: number): number {
  const { k, b, d } = TUNING;
  const most = 1 / (1 + (k * (1 - b)) / postings.maxWeight + ((k * b) / averageLength) * postings.minLengthPerWeight);
  return idf * (d + (k + 1) * Math.min(1, most));
}

/** A term no tool has: nothing to read, nothing it can add. */
export const NO_POSTINGS: TermPostings = {
  slots: [],
  weights: [],
  size: 0,
  maxWeight: 0,
  minLengthPerWeight: Number.POSITIVE_INFINITY,
  maxShare: 0,
  parts: () => [],
  positions: undefined,
};
