import type MiniSearch from "minisearch";
import type { AsPlainObject } from "minisearch";
import { QueryTermIds, splitWords, termOf } from "./analyze";
import { loadEngine, type RankingTuning } from "./minisearch-engine";
import type { Ranked } from "./ranked";
import { ARRAY_NAMES, decodeLayout, emptyArrays, encodeLayout, type ArrayName, type Arrays, type Header } from "./impact-layout";
import { mergePending, withImpacts, type Pending } from "./impact-rebuild";
import {
  candidateImpacts,
  queryTermsOf,
  rankBest,
  searchScratch,
  type QueryTerms,
  type SearchedIndex,
  type SearchScratch,
  type TermCounts,
} from "./impact-search";
import { type CountsReader, termCountsReader } from "./stored-counts";
import { termIdIn, termSlots } from "./term-slots";
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
 * a handful of typed arrays plus two string lists, serialised as bytes (see toBytes). The search
 * itself is impact-search.ts; the merge and the impacts' recomputation, impact-rebuild.ts.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/**
 * Names the analysis, the documents and this layout: a stored index of another format holds terms
 * new queries never produce, so it is refused and rebuilt. Bump it when analyze.ts,
 * tool-document.ts, this file, impact-rebuild.ts or impact-layout.ts changes what is stored.
 */
export const INDEX_FORMAT = "atc-impact-index/7";

/** The raw term counts stored apart from what a search reads (toParts). */
const COUNTS_FORMAT = `${INDEX_FORMAT}:counts`;

/** The arrays of the raw term counts: a search reads them only to weigh a repeated query term. */
type Counts = Pick<Arrays, "rawOffsets" | "rawDocs" | "rawTfs">;

/** Fingerprint of what impacts depend on (field boosts and BM25 parameters). */
function scoringKey(tuning: RankingTuning): string {
  return JSON.stringify([TOOL_DOC_FIELDS.map((field) => tuning.boosts[field]), tuning.bm25.k, tuning.bm25.b, tuning.bm25.d]);
}

export class ImpactIndex {
  readonly #tuning: RankingTuning;
  readonly #scoring: string;
  /** Tool name by id; undefined for a tool removed since the last merge. */
  #names: (string | undefined)[];
  /** Tool id by name: made on first use (a loaded index's search needs names by id only). */
  #idMap: Map<string, number> | undefined;
  #terms: string[];
  /** Term id by term: made on first change (a loaded index looks terms up in its stored table until then). */
  #termMap: Map<string, number> | undefined;
  /** The stored term table (term-slots.ts) of a loaded index, while no term was added. */
  #storedSlots: Int32Array | undefined;
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
  /** Reads the raw term counts stored apart (fromParts), until they are needed; undefined once read or when held. */
  #unreadCounts: (() => Counts) | undefined;
  /** Reads one term's raw counts from storage while they are unread (a repeated query word needs its own only). */
  #termCounts: ((term: number) => TermCounts) | undefined;
  /** Per-tool arrays reused by every search (the accumulators all zero between searches). */
  #scratchArrays: SearchScratch | undefined;
  /** Term ids of the words tasks use (cleared when a term is added). */
  readonly #queryTermIds = new QueryTermIds((term) => this.#termIdOf(term));

  private constructor(tuning: RankingTuning, header?: Header, arrays?: Arrays, termSlots?: Int32Array) {
    this.#tuning = tuning;
    this.#scoring = scoringKey(tuning);
    this.#names = header?.names.map((name) => name ?? undefined) ?? [];
    this.#idMap = undefined;
    this.#terms = header?.terms ?? [];
    this.#storedSlots = termSlots;
    this.#termMap = undefined;
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

  get #ids(): Map<string, number> {
    if (this.#idMap === undefined) {
      const ids = new Map<string, number>();
      this.#names.forEach((name, id) => name !== undefined && ids.set(name, id));
      this.#idMap = ids;
    }
    return this.#idMap;
  }

  #lengthsOf(id: number): ArrayLike<number> {
    const pending = this.#pendingLengths.get(id);
    if (pending !== undefined) return pending;
    return this.#arrays.fieldLengths.subarray(id * FIELDS, id * FIELDS + FIELDS);
  }

  #termId(term: string): number {
    const ids = this.#termIds;
    let id = ids.get(term);
    if (id === undefined) {
      id = this.#terms.length;
      this.#terms.push(term);
      ids.set(term, id);
      this.#queryTermIds.clear();
    }
    return id;
  }

  /** Term ids by term, made on first use; the stored table is dropped then (terms added later are not in it). */
  get #termIds(): Map<string, number> {
    if (this.#termMap === undefined) {
      this.#termMap = new Map(this.#terms.map((term, id) => [term, id]));
      this.#storedSlots = undefined;
    }
    return this.#termMap;
  }

  /** A term's id, -1 when the index does not have it. */
  #termIdOf(term: string): number {
    if (this.#termMap === undefined && this.#storedSlots !== undefined) return termIdIn(this.#storedSlots, this.#terms, term);
    return this.#termIds.get(term) ?? -1;
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
    this.#scratchArrays = searchScratch(this.#scratchArrays, this.#names.length);
    return rankBest(this.#searchedFor(query), query, this.#scratchArrays, limit);
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
    const values = candidateImpacts(this.#searchedFor(query), query, present);
    const rowOf = new Map(present.map((id, row) => [id, row]));
    return ids.map((id) => {
      const row = rowOf.get(id);
      return row === undefined ? new Float64Array(m) : values.slice(row * m, (row + 1) * m);
    });
  }

  /** The query's known terms (impact-search.ts `queryTermsOf`). */
  #queryTerms(text: string): QueryTerms {
    return queryTermsOf(this.#queryTermIds.of(text), this.#arrays);
  }

  /**
   * What a search for `query` reads: the merged arrays and impacts (after #prepare), and when the
   * query repeats a term (its weight is computed from its raw counts, as MiniSearch does) while the
   * counts are not read, a reader of a term's counts alone from storage.
   */
  #searchedFor(query: QueryTerms): SearchedIndex {
    const searched: SearchedIndex = { arrays: this.#arrays, tuning: this.#tuning, names: this.#names, count: this.#count };
    const termCounts = this.#termCounts;
    if (this.#unreadCounts === undefined || termCounts === undefined || !query.multiplicity.some((occurrences) => occurrences > 1)) return searched;
    return { ...searched, countsOf: termCounts };
  }

  /** The raw term counts stored apart, read now (a merge, a recomputation, partial matching or a repeated query term needs them). */
  #readCounts(): void {
    const read = this.#unreadCounts;
    if (read === undefined) return;
    this.#unreadCounts = undefined;
    this.#termCounts = undefined;
    this.#arrays = { ...this.#arrays, ...read() };
  }

  /** Merge pending changes and recompute impacts when anything changed. */
  #prepare(): void {
    if (this.#dirty || this.#impactsStale) this.#readCounts();
    if (this.#dirty) this.#merge();
    if (this.#impactsStale) this.#computeImpacts();
  }

  /** Folds pending additions and removals into the raw arrays; tool ids become dense again. */
  #merge(): void {
    const termCount = this.#terms.length;
    const { names, arrays } = mergePending({
      arrays: this.#arrays,
      names: this.#names,
      pending: this.#pending,
      lengthsOf: (id) => this.#lengthsOf(id),
      mergedTerms: this.#mergedTerms,
      termCount,
    });
    this.#names = names;
    this.#idMap = undefined;
    this.#arrays = arrays;
    this.#pending = [];
    this.#pendingLengths = new Map();
    this.#mergedTerms = termCount;
    this.#dirty = false;
  }

  /** Impact of each (term, tool), from the merged raw arrays (impact-rebuild.ts `withImpacts`). */
  #computeImpacts(): void {
    this.#arrays = withImpacts(this.#arrays, this.#tuning, this.#count, this.#names.length, this.#mergedTerms);
    this.#impactsStale = false;
  }

  /**
   * A MiniSearch engine over the same term counts, for prefix and fuzzy matching (the rare
   * fallback when no word of a task is indexed). Built on first use after a change.
   */
  looseEngine(): MiniSearch<ToolDoc> {
    if (this.#loose !== undefined) return this.#loose;
    this.#prepare();
    this.#readCounts();
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
    this.#readCounts();
    return encodeLayout(this.#header(this.#arrays), this.#arrays);
  }

  /**
   * The index as two parts, stored apart (fromParts): what a search reads (names, terms, impacts,
   * field lengths) and the raw term counts, about half the bytes, which a first search after a
   * load rarely needs (see #readCounts).
   */
  toParts(): { search: Uint8Array; counts: Uint8Array } {
    this.#prepare();
    this.#readCounts();
    const arrays = this.#arrays;
    const none = new Int32Array(0);
    const searched = { ...arrays, rawOffsets: none, rawDocs: none, rawTfs: none };
    const counts: Arrays = {
      ...searched,
      fieldLengths: none,
      avgFieldLength: new Float64Array(0),
      impactOffsets: none,
      impactDocs: none,
      impacts: new Float64Array(0),
      defaultImpact: new Float64Array(0),
      rawOffsets: arrays.rawOffsets,
      rawDocs: arrays.rawDocs,
      rawTfs: arrays.rawTfs,
    };
    const countsHeader = { ...this.#header(counts), format: COUNTS_FORMAT, names: [], terms: [] };
    const slots = termSlots(this.#terms.slice(0, this.#mergedTerms));
    return { search: encodeLayout(this.#header(searched), searched, slots), counts: encodeLayout(countsHeader, counts) };
  }

  #header(arrays: Arrays): Header {
    return {
      format: INDEX_FORMAT,
      scoring: this.#scoring,
      names: this.#names.map((name) => name ?? null),
      terms: this.#terms.slice(0, this.#mergedTerms),
      count: this.#count,
      lengths: Object.fromEntries(ARRAY_NAMES.map((name) => [name, arrays[name].length])) as Record<ArrayName, number>,
    };
  }

  /**
   * Index restored from `toParts()`: `search` now, `counts` read when first needed (it must give
   * the counts stored with `search`); throws (asking for a rebuild) on another format or damaged bytes.
   */
  static fromParts(search: Uint8Array, counts: CountsReader, tuning: RankingTuning): ImpactIndex {
    const { header, arrays, termSlots: slots } = decodeLayout(search, INDEX_FORMAT);
    const index = new ImpactIndex(tuning, header, arrays, slots);
    index.#unreadCounts = () => {
      const { header: countsHeader, arrays: stored } = decodeLayout(counts.all(), COUNTS_FORMAT);
      if (countsHeader.count !== header.count || countsHeader.scoring !== header.scoring)
        throw new Error("the stored term counts are not those of this index; rebuild it");
      return { rawOffsets: stored.rawOffsets, rawDocs: stored.rawDocs, rawTfs: stored.rawTfs };
    };
    const read = termCountsReader(counts, COUNTS_FORMAT);
    const known = new Map<number, TermCounts>();
    index.#termCounts = (term) => {
      let found = known.get(term);
      if (found === undefined) known.set(term, (found = read(term)));
      return found;
    };
    return index;
  }

  /** Index restored from `toBytes()`; throws (asking for a rebuild) on another format or damaged bytes. */
  static fromBytes(input: Uint8Array, tuning: RankingTuning): ImpactIndex {
    const { header, arrays } = decodeLayout(input, INDEX_FORMAT);
    return new ImpactIndex(tuning, header, arrays);
  }
}
