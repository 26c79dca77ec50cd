import type MiniSearch from "minisearch";
import type { AsPlainObject } from "minisearch";
import { QueryTermIds, splitWords, termOf } from "./analyze";
import { loadEngine, type RankingTuning } from "./minisearch-engine";
import { repeatedTermWeight } from "./query-term-weight";
import { TopScores } from "./top-k";
import { sortRanked, type Ranked } from "./ranked";
import { bm25Score, commonImpact, inverseDocumentFrequency, seek } from "./impact-math";
import { ARRAY_NAMES, decodeLayout, emptyArrays, encodeLayout, type ArrayName, type Arrays, type Header } from "./impact-layout";
import { TOOL_DOC_FIELDS, type ToolDoc } from "./tool-document";

/**
 * An inverted index built for top-k queries. Every (term, tool) pair holds its precomputed
 * BM25 impact — the sum over fields of boost × BM25, computed exactly as MiniSearch computes it
 * (same formula, same order of additions, same incremental field-length averages), so rankings
 * are identical to MiniSearch's. A query adds each posting's impact to its tool's accumulator,
 * term at a time over flat typed arrays, then rescores exactly (in MiniSearch's order of
 * additions) only the tools whose sum reaches the k-th best: far cheaper than walking the lists
 * document at a time for the long task texts routing sees. A term that most tools have with one
 * impact (the everyday verbs of the action field) is stored as that impact and the tools that
 * differ, so a search adds it to every tool at once instead of walking a posting per tool.
 *
 * Changes (add, remove) are recorded and merged into the flat arrays on the next query or
 * serialisation; impacts depend on corpus-wide statistics, so they are recomputed then (a few
 * milliseconds per 10,000 tools, against ~1 s to tokenise every tool again). The whole index is
 * a handful of typed arrays plus two string lists, serialised as bytes (see toBytes).
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/**
 * Names the analysis, the documents and this layout: a stored index of another format holds terms
 * new queries never produce, so it is refused and rebuilt. Bump it when analyze.ts,
 * tool-document.ts, this file or impact-layout.ts changes what is stored.
 */
export const INDEX_FORMAT = "atc-impact-index/6";

/** Tools whose approximate score is within this share of the k-th best are rescored exactly: rounding differs by far less. */
const CANDIDATE_SLACK = 1e-9;

/** A search's count of a tool's matched terms starts here once a posting touches it (0 = not touched; a tool without a common term counts down). */
const TOUCHED = 1 << 20;

/** A search's working arrays, one slot per tool. */
interface SearchScratch {
  /** Per tool, side by side: the sum of its weighted impacts, then TOUCHED + its matched terms (0 until a posting touches it). */
  accumulators: Float64Array;
  /** Accumulator offsets (2 × tool id) of the tools touched, in the order first touched. */
  touched: Int32Array;
  /** Tool ids of the contenders for the k best (see search), and their approximate scores. */
  contenders: Int32Array;
  approx: Float64Array;
}

/** A search's query terms: the distinct known terms by slot, how often the query has each, and the slot of each occurrence in query order. */
interface QueryTerms {
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

interface Pending {
  id: number;
  /** (term id, field id, term frequency) triples. */
  entries: Int32Array;
}

/** Fingerprint of what impacts depend on (field boosts and BM25 parameters). */
function scoringKey(tuning: RankingTuning): string {
  return JSON.stringify([TOOL_DOC_FIELDS.map((field) => tuning.boosts[field]), tuning.bm25.k, tuning.bm25.b, tuning.bm25.d]);
}

export class ImpactIndex {
  readonly #tuning: RankingTuning;
  readonly #scoring: string;
  /** Tool name by id; undefined for a tool removed since the last merge. */
  #names: (string | undefined)[];
  #ids: Map<string, number>;
  #terms: string[];
  #termIds: Map<string, number>;
  #count: number;
  #arrays: Arrays;
  /** Field lengths of tools added since the last merge (the merged ones are in #arrays). */
  #pendingLengths: Map<number, Int32Array> = new Map();
  #pending: Pending[] = [];
  /** Number of terms the merged raw arrays cover. */
  #mergedTerms: number;
  #dirty: boolean;
  #version = 0;
  #impactsStale: boolean;
  #loose: MiniSearch<ToolDoc> | undefined;
  /** Per-tool arrays reused by every search (the accumulators all zero between searches). */
  #scratchArrays: SearchScratch | undefined;
  /** Term ids of the words tasks use (cleared when a term is added). */
  readonly #queryTermIds = new QueryTermIds((term) => this.#termIds.get(term) ?? -1);

  private constructor(tuning: RankingTuning, header?: Header, arrays?: Arrays) {
    this.#tuning = tuning;
    this.#scoring = scoringKey(tuning);
    this.#names = header?.names.map((name) => name ?? undefined) ?? [];
    this.#ids = new Map();
    this.#names.forEach((name, id) => name !== undefined && this.#ids.set(name, id));
    this.#terms = header?.terms ?? [];
    this.#termIds = new Map(this.#terms.map((term, id) => [term, id]));
    this.#count = header?.count ?? 0;
    // The averages change in place with every add and remove: never write into the loaded buffer.
    this.#arrays = arrays === undefined ? emptyArrays() : { ...arrays, avgFieldLength: arrays.avgFieldLength.slice() };
    this.#mergedTerms = this.#terms.length;
    this.#dirty = false;
    this.#impactsStale = header !== undefined && header.scoring !== this.#scoring;
  }

  static empty(tuning: RankingTuning): ImpactIndex {
    return new ImpactIndex(tuning);
  }

  /** Number of tools indexed. */
  get size(): number {
    return this.#count;
  }

  /** Changes (tools added, replaced or removed) since this index was made or loaded: a search's answer depends on nothing else. */
  get version(): number {
    return this.#version;
  }

  has(name: string): boolean {
    return this.#ids.has(name);
  }

  /** Tool names, in id order. */
  names(): string[] {
    return this.#names.filter((name): name is string => name !== undefined);
  }

  /** Adds a tool, or replaces the indexed tool of the same name (as MiniSearch's replace: remove, then add). */
  add(doc: ToolDoc): void {
    this.remove(doc.name);
    const id = this.#names.length;
    this.#names.push(doc.name);
    this.#ids.set(doc.name, id);
    this.#count += 1;
    const avg = this.#arrays.avgFieldLength;
    const lengths = new Int32Array(FIELDS);
    const frequencies = new Map<number, number>();
    TOOL_DOC_FIELDS.forEach((field, f) => {
      const words = splitWords(doc[field]);
      // MiniSearch: a field's length is its distinct words before stemming and stop words;
      // the average is updated incrementally, in the same order of operations.
      const length = new Set(words).size;
      const before = this.#count - 1;
      avg[f] = ((avg[f] ?? 0) * before + length) / (before + 1);
      lengths[f] = length;
      for (const word of words) {
        const term = termOf(word);
        if (!term) continue;
        const key = this.#termId(term) * FIELDS + f;
        frequencies.set(key, (frequencies.get(key) ?? 0) + 1);
      }
    });
    const entries = new Int32Array(frequencies.size * 3);
    let i = 0;
    for (const [key, tf] of frequencies) {
      entries[i] = Math.floor(key / FIELDS);
      entries[i + 1] = key % FIELDS;
      entries[i + 2] = tf;
      i += 3;
    }
    this.#pending.push({ id, entries });
    this.#pendingLengths.set(id, lengths);
    this.#changed();
  }

  /** Removes a tool by name; false when it was not indexed. */
  remove(name: string): boolean {
    const id = this.#ids.get(name);
    if (id === undefined) return false;
    const avg = this.#arrays.avgFieldLength;
    const lengths = this.#lengthsOf(id);
    for (let f = 0; f < FIELDS; f += 1) {
      // MiniSearch's removeFieldLength, same operations.
      if (this.#count === 1) avg[f] = 0;
      else avg[f] = ((avg[f] ?? 0) * this.#count - (lengths[f] ?? 0)) / (this.#count - 1);
    }
    this.#count -= 1;
    this.#ids.delete(name);
    this.#names[id] = undefined;
    this.#pendingLengths.delete(id);
    this.#changed();
    return true;
  }

  #lengthsOf(id: number): ArrayLike<number> {
    const pending = this.#pendingLengths.get(id);
    if (pending !== undefined) return pending;
    return this.#arrays.fieldLengths.subarray(id * FIELDS, id * FIELDS + FIELDS);
  }

  #termId(term: string): number {
    let id = this.#termIds.get(term);
    if (id === undefined) {
      id = this.#terms.length;
      this.#terms.push(term);
      this.#termIds.set(term, id);
      this.#queryTermIds.clear();
    }
    return id;
  }

  #changed(): void {
    this.#version += 1;
    this.#dirty = true;
    this.#impactsStale = true;
    this.#loose = undefined;
  }

  /**
   * The `k` tools with the highest MiniSearch score for `text` (BM25 per field × boost, summed
   * over the query's terms, times the number of distinct query terms matched), best first, name
   * breaking ties. A repeated term's occurrences are weighted as the tuning's query-term
   * saturation says (query-term-weight.ts), as MiniSearch weighs them through `boostTerm`.
   */
  search(text: string, k: number): Ranked[] {
    return this.#rank(text, k)?.ranked ?? [];
  }

  /**
   * `search`, with what each ranked tool matches of `text`: `impacts[i]` holds `ranked[i]`'s
   * impact per distinct known term of the text (in the order the text first uses them; a
   * repeated term weighted as `search` weighs it), read from the exact rescoring, not computed again.
   */
  searchMatching(text: string, k: number): { ranked: Ranked[]; impacts: Float64Array[] } {
    const found = this.#rank(text, k);
    if (found === undefined) return { ranked: [], impacts: [] };
    const { ranked, candidates, values, terms } = found;
    const rowOf = new Map(candidates.map((id, row) => [this.#names[id], row]));
    const impacts = ranked.map((r) => {
      const row = rowOf.get(r.name) ?? 0;
      return values.slice(row * terms, (row + 1) * terms);
    });
    return { ranked, impacts };
  }

  /** The k best for `text`, with the candidates rescored and their impacts by candidate × term; undefined when nothing can match. */
  #rank(text: string, k: number): { ranked: Ranked[]; candidates: number[]; values: Float64Array; terms: number } | undefined {
    const limit = Math.floor(k);
    if (limit <= 0 || this.#count === 0) return undefined;
    this.#prepare();
    const query = this.#queryTerms(text);
    if (query.unique.length === 0) return undefined;
    const scratch = this.#scratch(this.#names.length);
    const accumulated = this.#accumulate(query, scratch);
    const candidates = this.#candidates(accumulated, scratch, limit);
    const values = this.#candidateImpacts(query, candidates);
    return { ranked: this.#rankExactly(query, candidates, values, limit), candidates, values, terms: query.unique.length };
  }

  /**
   * What each of `names` matches of `text`: one row per name, in the order given, holding its
   * impact per distinct known term of the text (as in `searchMatching`). A name not indexed
   * matches nothing.
   */
  termImpacts(text: string, names: readonly string[]): Float64Array[] {
    this.#prepare();
    const query = this.#queryTerms(text);
    const m = query.unique.length;
    const ids = names.map((name) => this.#ids.get(name) ?? -1);
    const present = [...new Set(ids.filter((id) => id >= 0))].sort((a, b) => a - b);
    const values = this.#candidateImpacts(query, present);
    const rowOf = new Map(present.map((id, row) => [id, row]));
    return ids.map((id) => {
      const row = rowOf.get(id);
      return row === undefined ? new Float64Array(m) : values.slice(row * m, (row + 1) * m);
    });
  }

  /** The query's known terms: in order (repeats count again, as in MiniSearch); unknown terms match nothing. */
  #queryTerms(text: string): QueryTerms {
    const { impactOffsets, defaultImpact } = this.#arrays;
    const order: number[] = [];
    const unique: number[] = [];
    const multiplicity: number[] = [];
    for (const id of this.#queryTermIds.of(text)) {
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
  #accumulate({ unique, multiplicity }: QueryTerms, { accumulators: acc, touched }: SearchScratch): Accumulated {
    const { impactOffsets, impactDocs, impacts, defaultImpact } = this.#arrays;
    const saturation = this.#tuning.queryTermSaturation;
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
  #candidates({ touchedCount, baseSum, baseTerms }: Accumulated, scratch: SearchScratch, limit: number): number[] {
    const { accumulators: acc, touched, contenders: contenderIds, approx } = scratch;
    const tools = this.#names.length;
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
    // In id order, so one forward walk per posting list finds them all (see #candidateImpacts).
    candidates.sort((a, b) => a - b);
    return candidates;
  }

  /**
   * Each candidate's impact per query term, by candidate × slot: candidates in id order, so one
   * forward walk per posting list (galloping from where the previous candidate was found) finds
   * them all. A repeated term's impact is weighted as MiniSearch weighs each of its occurrences.
   */
  #candidateImpacts(query: QueryTerms, candidates: readonly number[]): Float64Array {
    const { impactOffsets, impactDocs, impacts, defaultImpact } = this.#arrays;
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
    this.#weighRepeatedTerms(query, candidates, values);
    return values;
  }

  /**
   * Replaces, in `values`, a repeated term's impact by its weighted impact, as MiniSearch computes
   * each of its occurrences, for the candidates that have the term (the others keep 0). Slots
   * whose term the query repeats, weighted below 1 per occurrence, are none for most tasks.
   */
  #weighRepeatedTerms({ unique, multiplicity }: QueryTerms, candidates: readonly number[], values: Float64Array): void {
    const saturation = this.#tuning.queryTermSaturation;
    const m = unique.length;
    const count = candidates.length;
    for (let slot = 0; slot < m; slot += 1) {
      const termWeight = repeatedTermWeight(multiplicity[slot] ?? 1, saturation);
      if (termWeight === 1) continue;
      const having: number[] = [];
      for (let c = 0; c < count; c += 1) if ((values[c * m + slot] ?? 0) > 0) having.push(c);
      const weighted = this.#weightedImpacts(
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
  #rankExactly({ order, unique }: QueryTerms, candidates: readonly number[], values: Float64Array, limit: number): Ranked[] {
    const m = unique.length;
    const ranked: Ranked[] = [];
    for (let c = 0; c < candidates.length; c += 1) {
      let score = 0;
      for (const slot of order) score += values[c * m + slot] ?? 0;
      let matched = 0;
      for (let slot = 0; slot < m; slot += 1) if ((values[c * m + slot] ?? 0) > 0) matched += 1;
      const name = this.#names[candidates[c] ?? 0];
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
  #weightedImpacts(term: number, docs: readonly number[], termWeight: number): Float64Array {
    const { rawOffsets, rawDocs, rawTfs, fieldLengths, avgFieldLength } = this.#arrays;
    const { boosts, bm25 } = this.#tuning;
    const impacts = new Float64Array(docs.length);
    TOOL_DOC_FIELDS.forEach((field, f) => {
      const fieldBoost = boosts[field];
      const to = rawOffsets[term * FIELDS + f + 1] ?? 0;
      let p = rawOffsets[term * FIELDS + f] ?? 0;
      if (fieldBoost <= 0 || p >= to || docs.length === 0) return;
      const invDocFreq = inverseDocumentFrequency(this.#count, to - p);
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

  #scratch(tools: number): SearchScratch {
    if (this.#scratchArrays === undefined || this.#scratchArrays.touched.length !== tools) {
      this.#scratchArrays = {
        accumulators: new Float64Array(tools * 2),
        touched: new Int32Array(tools),
        contenders: new Int32Array(tools),
        approx: new Float64Array(tools),
      };
    }
    return this.#scratchArrays;
  }

  /** Merge pending changes and recompute impacts when anything changed. */
  #prepare(): void {
    if (this.#dirty) this.#merge();
    if (this.#impactsStale) this.#computeImpacts();
  }

  /** Folds pending additions and removals into the raw arrays; tool ids become dense again. */
  #merge(): void {
    const old = this.#arrays;
    const termCount = this.#terms.length;
    const newId = new Int32Array(this.#names.length).fill(-1);
    const names: string[] = [];
    this.#names.forEach((name, id) => {
      if (name === undefined) return;
      newId[id] = names.length;
      names.push(name);
    });
    const counts = new Int32Array(termCount * FIELDS + 1);
    const mergedSlots = this.#mergedTerms * FIELDS;
    for (let slot = 0; slot < mergedSlots; slot += 1) {
      for (let p = old.rawOffsets[slot] ?? 0; p < (old.rawOffsets[slot + 1] ?? 0); p += 1)
        if ((newId[old.rawDocs[p] ?? 0] ?? -1) >= 0) counts[slot] = (counts[slot] ?? 0) + 1;
    }
    const livePending = this.#pending.filter((pending) => (newId[pending.id] ?? -1) >= 0);
    for (const { entries } of livePending) {
      for (let i = 0; i < entries.length; i += 3) {
        const slot = (entries[i] ?? 0) * FIELDS + (entries[i + 1] ?? 0);
        counts[slot] = (counts[slot] ?? 0) + 1;
      }
    }
    const rawOffsets = new Int32Array(termCount * FIELDS + 1);
    for (let slot = 0; slot < termCount * FIELDS; slot += 1) rawOffsets[slot + 1] = (rawOffsets[slot] ?? 0) + (counts[slot] ?? 0);
    const total = rawOffsets[termCount * FIELDS] ?? 0;
    const rawDocs = new Int32Array(total);
    const rawTfs = new Int32Array(total);
    const cursor = rawOffsets.slice(0, termCount * FIELDS);
    // Merged postings first, then pending ones: ids only grow, so each list stays sorted by id.
    for (let slot = 0; slot < mergedSlots; slot += 1) {
      for (let p = old.rawOffsets[slot] ?? 0; p < (old.rawOffsets[slot + 1] ?? 0); p += 1) {
        const id = newId[old.rawDocs[p] ?? 0] ?? -1;
        if (id < 0) continue;
        const at = cursor[slot] ?? 0;
        rawDocs[at] = id;
        rawTfs[at] = old.rawTfs[p] ?? 0;
        cursor[slot] = at + 1;
      }
    }
    for (const { id, entries } of livePending) {
      for (let i = 0; i < entries.length; i += 3) {
        const slot = (entries[i] ?? 0) * FIELDS + (entries[i + 1] ?? 0);
        const at = cursor[slot] ?? 0;
        rawDocs[at] = newId[id] ?? 0;
        rawTfs[at] = entries[i + 2] ?? 0;
        cursor[slot] = at + 1;
      }
    }
    const fieldLengths = new Int32Array(names.length * FIELDS);
    this.#names.forEach((name, id) => {
      const to = newId[id] ?? -1;
      if (name !== undefined && to >= 0) fieldLengths.set(this.#lengthsOf(id), to * FIELDS);
    });
    this.#names = names;
    this.#ids = new Map(names.map((name, id) => [name, id]));
    this.#arrays = { ...old, fieldLengths, rawOffsets, rawDocs, rawTfs };
    this.#pending = [];
    this.#pendingLengths = new Map();
    this.#mergedTerms = termCount;
    this.#dirty = false;
  }

  /** Impact of each (term, tool): Σ over boosted fields, in field order, of boost × BM25 (MiniSearch's termResults). */
  #computeImpacts(): void {
    const arrays = this.#arrays;
    const { rawOffsets, rawDocs, rawTfs, fieldLengths, avgFieldLength } = arrays;
    const { boosts, bm25 } = this.#tuning;
    const n = this.#count;
    const termCount = this.#mergedTerms;
    const boosted = TOOL_DOC_FIELDS.flatMap((field, f) => (boosts[field] > 0 ? [[f, boosts[field]] as const] : []));
    const impactOffsets = new Int32Array(termCount + 1);
    const impactDocs = new Int32Array(rawDocs.length);
    const impacts = new Float64Array(rawDocs.length);
    const defaultImpact = new Float64Array(termCount);
    const tools = this.#names.length;
    const sum = new Float64Array(this.#names.length);
    const seen = new Uint8Array(this.#names.length);
    const touched = new Int32Array(this.#names.length);
    let out = 0;
    for (let t = 0; t < termCount; t += 1) {
      let touchedCount = 0;
      for (const [f, fieldBoost] of boosted) {
        const from = rawOffsets[t * FIELDS + f] ?? 0;
        const to = rawOffsets[t * FIELDS + f + 1] ?? 0;
        const matching = to - from;
        if (matching === 0) continue;
        const avg = avgFieldLength[f] ?? 0;
        const invDocFreq = inverseDocumentFrequency(n, matching);
        for (let p = from; p < to; p += 1) {
          const doc = rawDocs[p] ?? 0;
          const rawScore = bm25Score(invDocFreq, rawTfs[p] ?? 0, fieldLengths[doc * FIELDS + f] ?? 0, avg, bm25);
          const weighted = fieldBoost * rawScore;
          if (seen[doc] === 0) {
            seen[doc] = 1;
            sum[doc] = weighted;
            touched[touchedCount] = doc;
            touchedCount += 1;
          } else {
            sum[doc] = (sum[doc] ?? 0) + weighted;
          }
        }
      }
      const docs = touched.subarray(0, touchedCount).sort();
      const common = touchedCount * 2 > tools ? commonImpact(docs, sum, tools) : 0;
      defaultImpact[t] = common;
      if (common > 0) {
        // Only the exceptions: tools with another impact, and tools without the term (impact 0).
        for (let doc = 0; doc < tools; doc += 1) {
          const impact = seen[doc] === 1 ? (sum[doc] ?? 0) : 0;
          seen[doc] = 0;
          if (impact === common) continue;
          impactDocs[out] = doc;
          impacts[out] = impact;
          out += 1;
        }
      } else {
        for (const doc of docs) {
          impactDocs[out] = doc;
          impacts[out] = sum[doc] ?? 0;
          out += 1;
          seen[doc] = 0;
        }
      }
      impactOffsets[t + 1] = out;
    }
    this.#arrays = { ...arrays, impactOffsets, impactDocs: impactDocs.slice(0, out), impacts: impacts.slice(0, out), defaultImpact };
    this.#impactsStale = false;
  }

  /**
   * A MiniSearch engine over the same term counts, for prefix and fuzzy matching (the rare
   * fallback when no word of a task is indexed). Built on first use after a change.
   */
  looseEngine(): MiniSearch<ToolDoc> {
    if (this.#loose !== undefined) return this.#loose;
    this.#prepare();
    const { rawOffsets, rawDocs, rawTfs, fieldLengths, avgFieldLength } = this.#arrays;
    const documentIds: Record<string, string> = {};
    const fieldLength: Record<string, number[]> = {};
    const storedFields: Record<string, Record<string, never>> = {};
    this.#names.forEach((name, id) => {
      if (name === undefined) return;
      documentIds[id] = name;
      fieldLength[id] = Array.from(fieldLengths.subarray(id * FIELDS, id * FIELDS + FIELDS));
      storedFields[id] = {};
    });
    const index: [string, Record<string, Record<string, number>>][] = [];
    for (let t = 0; t < this.#mergedTerms; t += 1) {
      const data: Record<string, Record<string, number>> = {};
      let any = false;
      for (let f = 0; f < FIELDS; f += 1) {
        const from = rawOffsets[t * FIELDS + f] ?? 0;
        const to = rawOffsets[t * FIELDS + f + 1] ?? 0;
        if (from === to) continue;
        const freqs: Record<string, number> = {};
        for (let p = from; p < to; p += 1) freqs[rawDocs[p] ?? 0] = rawTfs[p] ?? 0;
        data[f] = freqs;
        any = true;
      }
      if (any) index.push([this.#terms[t] ?? "", data]);
    }
    const plain: AsPlainObject = {
      documentCount: this.#count,
      nextId: this.#names.length,
      documentIds,
      fieldIds: Object.fromEntries(TOOL_DOC_FIELDS.map((field, f) => [field, f])),
      fieldLength,
      averageFieldLength: Array.from(avgFieldLength),
      storedFields,
      dirtCount: 0,
      index,
      serializationVersion: 2,
    };
    this.#loose = loadEngine(plain);
    return this.#loose;
  }

  /** The index as bytes: a JSON header (format, names, terms, array lengths), then the typed arrays, each 8-byte aligned. */
  toBytes(): Uint8Array {
    this.#prepare();
    const arrays = this.#arrays;
    const header: Header = {
      format: INDEX_FORMAT,
      scoring: this.#scoring,
      names: this.#names.map((name) => name ?? null),
      terms: this.#terms.slice(0, this.#mergedTerms),
      count: this.#count,
      lengths: Object.fromEntries(ARRAY_NAMES.map((name) => [name, arrays[name].length])) as Record<ArrayName, number>,
    };
    return encodeLayout(header, arrays);
  }

  /** Index restored from `toBytes()`; throws (asking for a rebuild) on another format or damaged bytes. */
  static fromBytes(input: Uint8Array, tuning: RankingTuning): ImpactIndex {
    const { header, arrays } = decodeLayout(input, INDEX_FORMAT);
    return new ImpactIndex(tuning, header, arrays);
  }
}

/** `score` less CANDIDATE_SLACK of its size: the lowest approximate score rescored against it (monotone in `score`). */
function withSlack(score: number): number {
  return score - Math.abs(score) * CANDIDATE_SLACK;
}
