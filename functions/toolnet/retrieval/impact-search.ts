import type { Arrays } from "./impact-layout";
import { bm25Score, inverseDocumentFrequency, seek } from "./impact-math";
import type { RankingTuning } from "./minisearch-engine";
import { repeatedTermWeight } from "./query-term-weight";
import { sortRanked, type Ranked } from "./ranked";
import { TOOL_DOC_FIELDS } from "./tool-document";
import { TopScores } from "./top-k";

/**
 * The impact index's query-time search (impact-index.ts keeps the index and its changes): term at
 * a time over the merged impacts into per-tool accumulators, then the few tools within reach of
 * the k-th best, rescored exactly in MiniSearch's order of additions.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** Tools whose approximate score is within this share of the k-th best are rescored exactly: rounding differs by far less. */
const CANDIDATE_SLACK = 1e-9;

/** A search's count of a tool's matched terms starts here once a posting touches it (0 = not touched; a tool without a common term counts down). */
const TOUCHED = 1 << 20;

/** A search's working arrays, one slot per tool. */
export interface SearchScratch {
  /** Per tool, side by side: the sum of its weighted impacts, then TOUCHED + its matched terms (0 until a posting touches it). */
  accumulators: Float64Array;
  /** Accumulator offsets (2 × tool id) of the tools touched, in the order first touched. */
  touched: Int32Array;
  /** Tool ids of the contenders for the k best (see rankBest), and their approximate scores. */
  contenders: Int32Array;
  approx: Float64Array;
}

/** A search's query terms: the distinct known terms by slot, how often the query has each, and the slot of each occurrence in query order. */
export interface QueryTerms {
  order: number[];
  unique: number[];
  multiplicity: number[];
}

/** What the term-at-a-time pass leaves besides the accumulators: how many tools it touched, and what the common terms add to every tool. */
interface Accumulated {
  touchedCount: number;
  /** Sum of the common terms' weighted default impacts, and how many common terms the query has. */
  baseSum: number;
  baseTerms: number;
}

/** What a search reads of a merged index: its arrays with current impacts, its tuning and its tools. */
/** One term's raw counts: where each field's postings start in `docs`/`tfs` (FIELDS + 1 entries), the tool ids and term frequencies. */
export interface TermCounts {
  offsets: Int32Array;
  docs: Int32Array;
  tfs: Int32Array;
}

export interface SearchedIndex {
  arrays: Arrays;
  tuning: RankingTuning;
  /** Tool name by id (an array, or a stored part's names decoded as asked). */
  names: { readonly length: number; at(id: number): string | undefined };
  /** Number of tools indexed. */
  count: number;
  /** A term's raw counts, when they are not in `arrays` (read from storage for the term alone); else read from `arrays`. */
  countsOf?: (term: number) => TermCounts;
}

/** The k best for `query`, with the candidates rescored and their impacts by candidate × term (see ImpactIndex.searchMatching). */
export function rankBest(
  index: SearchedIndex,
  query: QueryTerms,
  scratch: SearchScratch,
  limit: number,
): { ranked: Ranked[]; candidates: number[]; values: Float64Array; terms: number } {
  const accumulated = accumulate(index, query, scratch);
  const candidates = candidatesToRescore(index.names.length, accumulated, scratch, limit);
  const values = candidateImpacts(index, query, candidates);
  return { ranked: rankExactly(index.names, query, candidates, values, limit), candidates, values, terms: query.unique.length };
}

/** The query's known terms (`termIds`, its words' term ids, -1 for a word not indexed): in order (repeats count again, as in MiniSearch); unknown terms match nothing. */
export function queryTermsOf(termIds: readonly number[], { impactOffsets, defaultImpact }: Arrays): QueryTerms {
  const order: number[] = [];
  const unique: number[] = [];
  const multiplicity: number[] = [];
  for (const id of termIds) {
    if (id < 0 || (impactOffsets[id] === impactOffsets[id + 1] && defaultImpact[id] === 0)) continue;
    let slot = unique.indexOf(id);
    if (slot < 0) {
      slot = unique.length;
      unique.push(id);
      multiplicity.push(0);
    }
    multiplicity[slot] = (multiplicity[slot] ?? 0) + 1;
    order.push(slot);
  }
  return { order, unique, multiplicity };
}

/**
 * Term at a time: every posting adds its weighted impact to its tool's accumulator (one pair
 * per tool, side by side: the sum of its impacts, then its matched terms), in typed arrays. A
 * term stored as its exceptions adds its default to every tool at once (baseSum, baseTerms) and
 * corrects only its exceptions, so the few terms that nearly every tool has cost a few hundred
 * postings instead of one per tool.
 */
function accumulate({ arrays, tuning }: SearchedIndex, { unique, multiplicity }: QueryTerms, { accumulators: acc, touched }: SearchScratch): Accumulated {
  const { impactOffsets, impactDocs, impacts, defaultImpact } = arrays;
  const saturation = tuning.queryTermSaturation;
  const m = unique.length;
  let touchedCount = 0;
  let baseSum = 0;
  let baseTerms = 0;
  for (let slot = 0; slot < m; slot += 1) {
    const term = unique[slot] ?? 0;
    const occurrences = multiplicity[slot] ?? 0;
    const weight = occurrences === 1 ? 1 : occurrences * repeatedTermWeight(occurrences, saturation);
    const common = defaultImpact[term] ?? 0;
    const from = impactOffsets[term] ?? 0;
    const to = impactOffsets[term + 1] ?? 0;
    if (common === 0) {
      for (let p = from; p < to; p += 1) {
        const at = (impactDocs[p] ?? 0) * 2;
        const count = acc[at + 1] ?? 0;
        if (count === 0) {
          touched[touchedCount] = at;
          touchedCount += 1;
          acc[at + 1] = TOUCHED + 1;
        } else {
          acc[at + 1] = count + 1;
        }
        acc[at] = (acc[at] ?? 0) + weight * (impacts[p] ?? 0);
      }
      continue;
    }
    baseSum += weight * common;
    baseTerms += 1;
    const correction = weight * common;
    for (let p = from; p < to; p += 1) {
      const at = (impactDocs[p] ?? 0) * 2;
      const impact = impacts[p] ?? 0;
      const count = acc[at + 1] ?? 0;
      if (count === 0) {
        touched[touchedCount] = at;
        touchedCount += 1;
        acc[at + 1] = impact > 0 ? TOUCHED : TOUCHED - 1;
      } else if (impact === 0) {
        acc[at + 1] = count - 1;
      }
      acc[at] = (acc[at] ?? 0) + (weight * impact - correction);
    }
  }
  return { touchedCount, baseSum, baseTerms };
}

/**
 * The tools to rescore exactly, in id order: those within CANDIDATE_SLACK of the k-th best
 * approximate score (the sums differ from MiniSearch's query-order sums by rounding only). Tools
 * no posting touched all score baseSum × baseTerms (no tool matches when baseTerms is 0). A tool
 * below the running k-th best (less the slack) when it is offered stays below the final one, so
 * only the few others are kept as contenders. The accumulators are cleared on the way.
 */
function candidatesToRescore(tools: number, { touchedCount, baseSum, baseTerms }: Accumulated, scratch: SearchScratch, limit: number): number[] {
  const { accumulators: acc, touched, contenders: contenderIds, approx } = scratch;
  const bestApprox = new TopScores(limit);
  let contenders = 0;
  let floor = -Infinity; // the running k-th best less the slack
  for (let i = 0; i < touchedCount; i += 1) {
    const at = touched[i] ?? 0;
    const matched = (acc[at + 1] ?? 0) - TOUCHED + baseTerms;
    const score = ((acc[at] ?? 0) + baseSum) * matched;
    acc[at] = 0;
    acc[at + 1] = 0;
    if (matched > 0 && score >= floor) {
      contenderIds[contenders] = at >> 1;
      approx[contenders] = score;
      contenders += 1;
      bestApprox.offer(score);
      if (bestApprox.full) floor = withSlack(bestApprox.worst);
    }
  }
  const untouched = baseTerms > 0 ? tools - touchedCount : 0;
  const untouchedScore = baseSum * baseTerms;
  for (let i = 0; i < Math.min(untouched, limit); i += 1) bestApprox.offer(untouchedScore);
  const cutoff = withSlack(bestApprox.full ? bestApprox.worst : -Infinity);
  const candidates: number[] = [];
  for (let i = 0; i < contenders; i += 1) if ((approx[i] ?? 0) >= cutoff) candidates.push(contenderIds[i] ?? 0);
  if (untouched > 0 && untouchedScore >= cutoff) {
    // Rare: a task whose terms nearly every tool has; every untouched tool is a candidate too.
    const wasTouched = new Uint8Array(tools);
    for (let i = 0; i < touchedCount; i += 1) wasTouched[(touched[i] ?? 0) >> 1] = 1;
    for (let doc = 0; doc < tools; doc += 1) if (wasTouched[doc] === 0) candidates.push(doc);
  }
  // In id order, so one forward walk per posting list finds them all (see candidateImpacts).
  candidates.sort((a, b) => a - b);
  return candidates;
}

/**
 * Each candidate's impact per query term, by candidate × slot: candidates in id order, so one
 * forward walk per posting list (galloping from where the previous candidate was found) finds
 * them all. A repeated term's impact is weighted as MiniSearch weighs each of its occurrences.
 */
export function candidateImpacts(index: SearchedIndex, query: QueryTerms, candidates: readonly number[]): Float64Array {
  const { impactOffsets, impactDocs, impacts, defaultImpact } = index.arrays;
  const { unique } = query;
  const m = unique.length;
  const count = candidates.length;
  const values = new Float64Array(count * m); // impact by candidate × slot
  for (let slot = 0; slot < m; slot += 1) {
    const term = unique[slot] ?? 0;
    const common = defaultImpact[term] ?? 0;
    if (common > 0) for (let c = 0; c < count; c += 1) values[c * m + slot] = common;
    const to = impactOffsets[term + 1] ?? 0;
    let p = impactOffsets[term] ?? 0;
    for (let c = 0; c < count && p < to; c += 1) {
      const doc = candidates[c] ?? 0;
      p = seek(impactDocs, p, to, doc);
      if (p < to && impactDocs[p] === doc) values[c * m + slot] = impacts[p] ?? 0;
    }
  }
  weighRepeatedTerms(index, query, candidates, values);
  return values;
}

/**
 * Replaces, in `values`, a repeated term's impact by its weighted impact, as MiniSearch computes
 * each of its occurrences, for the candidates that have the term (the others keep 0). Slots
 * whose term the query repeats, weighted below 1 per occurrence, are none for most tasks.
 */
function weighRepeatedTerms(index: SearchedIndex, { unique, multiplicity }: QueryTerms, candidates: readonly number[], values: Float64Array): void {
  const saturation = index.tuning.queryTermSaturation;
  const m = unique.length;
  const count = candidates.length;
  for (let slot = 0; slot < m; slot += 1) {
    const termWeight = repeatedTermWeight(multiplicity[slot] ?? 1, saturation);
    if (termWeight === 1) continue;
    const having: number[] = [];
    for (let c = 0; c < count; c += 1) if ((values[c * m + slot] ?? 0) > 0) having.push(c);
    const weighted = weightedImpacts(
      index,
      unique[slot] ?? 0,
      having.map((c) => candidates[c] ?? 0),
      termWeight,
    );
    having.forEach((c, i) => (values[c * m + slot] = weighted[i] ?? 0));
  }
}

/**
 * The exact score, summed in query order as MiniSearch sums it, times the terms matched. The
 * candidates are few (the k best and their ties within the slack), so all are sorted.
 */
function rankExactly(
  names: SearchedIndex["names"],
  { order, unique }: QueryTerms,
  candidates: readonly number[],
  values: Float64Array,
  limit: number,
): Ranked[] {
  const m = unique.length;
  const ranked: Ranked[] = [];
  for (let c = 0; c < candidates.length; c += 1) {
    let score = 0;
    for (const slot of order) score += values[c * m + slot] ?? 0;
    let matched = 0;
    for (let slot = 0; slot < m; slot += 1) if ((values[c * m + slot] ?? 0) > 0) matched += 1;
    const name = names.at(candidates[c] ?? 0);
    if (matched > 0 && name !== undefined) ranked.push({ name, score: score * matched });
  }
  return sortRanked(ranked).slice(0, limit);
}

/**
 * The impact of `term` in each of `docs` (tool ids, ascending) with the term weighted by
 * `termWeight`, computed as MiniSearch computes a boosted term (termBoost × field boost × BM25,
 * per field, summed in field order), so a repeated query term scores bit for bit as in
 * MiniSearch (impact × weight would differ by rounding).
 */
function weightedImpacts({ arrays, tuning, count, countsOf }: SearchedIndex, term: number, docs: readonly number[], termWeight: number): Float64Array {
  const { fieldLengths, avgFieldLength } = arrays;
  const {
    offsets,
    docs: rawDocs,
    tfs: rawTfs,
  } = countsOf?.(term) ?? {
    offsets: arrays.rawOffsets.subarray(term * FIELDS, term * FIELDS + FIELDS + 1),
    docs: arrays.rawDocs,
    tfs: arrays.rawTfs,
  };
  const { boosts, bm25 } = tuning;
  const impacts = new Float64Array(docs.length);
  TOOL_DOC_FIELDS.forEach((field, f) => {
    const fieldBoost = boosts[field];
    const to = offsets[f + 1] ?? 0;
    let p = offsets[f] ?? 0;
    if (fieldBoost <= 0 || p >= to || docs.length === 0) return;
    const invDocFreq = inverseDocumentFrequency(count, to - p);
    const avg = avgFieldLength[f] ?? 0;
    for (let i = 0; i < docs.length && p < to; i += 1) {
      const doc = docs[i] ?? 0;
      p = seek(rawDocs, p, to, doc);
      if (p >= to || rawDocs[p] !== doc) continue;
      const rawScore = bm25Score(invDocFreq, rawTfs[p] ?? 0, fieldLengths[doc * FIELDS + f] ?? 0, avg, bm25);
      impacts[i] = (impacts[i] ?? 0) + termWeight * fieldBoost * rawScore;
    }
  });
  return impacts;
}

/** `reuse` when it has one slot per tool of `tools`, else new arrays (all zero). */
export function searchScratch(reuse: SearchScratch | undefined, tools: number): SearchScratch {
  if (reuse !== undefined && reuse.touched.length === tools) return reuse;
  return {
    accumulators: new Float64Array(tools * 2),
    touched: new Int32Array(tools),
    contenders: new Int32Array(tools),
    approx: new Float64Array(tools),
  };
}

/** `score` less CANDIDATE_SLACK of its size: the lowest approximate score rescored against it (monotone in `score`). */
function withSlack(score: number): number {
  return score - Math.abs(score) * CANDIDATE_SLACK;
}
