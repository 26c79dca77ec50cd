import type MiniSearch from "minisearch";
import { QueryTermIds } from "./analyze";
import type { RankingTuning } from "./minisearch-engine";
import type { Ranked } from "./ranked";
import { ARRAY_NAMES, decodeLayout, emptyArrays, encodeLayout, type ArrayName, type Arrays, type Header } from "./impact-layout";
import { looseEngineOf } from "./loose-engine";
import { SearchPart } from "./search-part";
import { partsOf, type SavedState } from "./impact-save";
import { mergePending, pendingTerms, unmergedCopy, withImpacts, type Pending } from "./impact-rebuild";
import { searchedWithTermImpacts } from "./search-after-change";
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
import { type Counts, type CountsReader, type PartReader, storedCounts } from "./stored-counts";
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
 * a handful of typed arrays plus two string lists, serialised as bytes (see toBytes), or stored
 * in two parts (toParts): what a search reads, whose postings a loaded index reads a query term
 * at a time until it changes (search-part.ts), and the raw term counts (stored-counts.ts). The
 * search itself is impact-search.ts; the merge and the impacts' recomputation, impact-rebuild.ts.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/**
 * Searches after a change that compute their own terms' impacts alone (a few posting lists)
 * before one search computes every impact again (all postings: ≈ 100 ms at 10,000 tools on a
 * quiet machine). While tools keep changing (a big import's batches, routes every few seconds),
 * no search pays for the whole index; once they stop, the searches after are as fast as before.
 */
export const SEARCHES_BEFORE_ALL_IMPACTS = 32;

/**
 * Names the analysis, the documents and this layout: a stored index of another format holds terms
 * new queries never produce, so it is refused and rebuilt. Bump it when analyze.ts,
 * tool-document.ts, this file, impact-rebuild.ts or impact-layout.ts changes what is stored.
 */
export const INDEX_FORMAT = "atc-impact-index/8";

/** The raw term counts stored apart from what a search reads (toParts). */
const COUNTS_FORMAT = `${INDEX_FORMAT}:counts`;

/** What an index is made from when loaded: from bytes (toBytes), or from a stored search part (toParts) whose names, terms and postings stay in it. */
interface Loaded {
  names: (string | undefined)[];
  terms: string[];
  count: number;
  scoring: string;
  arrays: Arrays;
  part?: SearchPart;
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
  /** Tool id by name: made on first use (a loaded index's search needs names by id only). */
  #idMap: Map<string, number> | undefined;
  #terms: string[];
  /** Term id by term: made on first use (an index loaded from parts looks terms up in its stored table). */
  #termMap: Map<string, number> | undefined;
  /**
   * The stored search part of an index loaded from parts, until it changes (or is stored, or
   * matched partially): its names, terms and postings are read from it as searches need them,
   * and `#names`, `#terms` and the postings in `#arrays` are empty meanwhile (#settle).
   */
  #part: SearchPart | undefined;
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
  /** Searches since the last change that computed their terms' impacts alone. */
  #termOnlySearches = 0;
  #loose: MiniSearch<ToolDoc> | undefined;
  /** Reads the raw term counts stored apart (fromParts), until they are needed; undefined once read or when held. */
  #unreadCounts: (() => Counts) | undefined;
  /** Reads one term's raw counts from storage while they are unread (a repeated query word needs its own only). */
  #termCounts: ((term: number) => TermCounts) | undefined;
  /** Per-tool arrays reused by every search (the accumulators all zero between searches). */
  #scratchArrays: SearchScratch | undefined;
  /** Term ids of the words tasks use (cleared when a term is added). */
  readonly #queryTermIds = new QueryTermIds((term) => this.#termIdOf(term));

  private constructor(tuning: RankingTuning, loaded?: Loaded) {
    this.#tuning = tuning;
    this.#scoring = scoringKey(tuning);
    this.#names = loaded?.names ?? [];
    this.#idMap = undefined;
    this.#terms = loaded?.terms ?? [];
    this.#termMap = undefined;
    this.#part = loaded?.part;
    this.#count = loaded?.count ?? 0;
    const arrays = loaded?.arrays;
    // The averages change in place with every add and remove: never write into the loaded buffer.
    this.#arrays = arrays === undefined ? emptyArrays() : { ...arrays, avgFieldLength: arrays.avgFieldLength.slice() };
    this.#mergedTerms = loaded?.part?.terms.count ?? this.#terms.length;
    this.#dirty = false;
    this.#impactsStale = loaded !== undefined && loaded.scoring !== this.#scoring;
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
    return this.#idOf(name) >= 0;
  }

  /** Tool names, in id order. */
  names(): string[] {
    return this.#part?.names.all() ?? this.#names.filter((name): name is string => name !== undefined);
  }

  /** A tool's id, -1 when it is not indexed. */
  #idOf(name: string): number {
    return this.#part?.names.positionOf(name) ?? this.#ids.get(name) ?? -1;
  }

  /** The stored part's names, terms and postings into memory, as an index built here holds them: before a change, a store or a loose engine. */
  #settle(): void {
    const part = this.#part;
    if (part === undefined) return;
    this.#part = undefined;
    this.#names = part.names.all();
    this.#terms = part.terms.all();
    this.#arrays = { ...this.#arrays, ...part.allPostings(), fieldLengths: part.fieldLengths() };
  }

  /** Adds a tool, or replaces the indexed tool of the same name (as MiniSearch's replace: remove, then add). */
  add(doc: ToolDoc): void {
    this.#settle();
    this.remove(doc.name);
    const id = this.#names.length;
    this.#names.push(doc.name);
    this.#ids.set(doc.name, id);
    this.#count += 1;
    const { entries, lengths } = pendingTerms(doc, (term) => this.#termId(term), this.#arrays.avgFieldLength, this.#count - 1);
    this.#pending.push({ id, entries });
    this.#pendingLengths.set(id, lengths);
    this.#changed();
  }

  /** Removes a tool by name; false when it was not indexed. */
  remove(name: string): boolean {
    this.#settle();
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

  /** Term ids by term, made on first use (after the stored part is settled: terms added later are not in it). */
  get #termIds(): Map<string, number> {
    this.#termMap ??= new Map(this.#terms.map((term, id) => [term, id]));
    return this.#termMap;
  }

  /** A term's id, -1 when the index does not have it. */
  #termIdOf(term: string): number {
    return this.#part?.terms.positionOf(term) ?? this.#termIds.get(term) ?? -1;
  }

  #changed(): void {
    this.#version += 1;
    this.#dirty = true;
    this.#impactsStale = true;
    this.#termOnlySearches = 0;
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
    const names = this.#toolNames();
    const rowOf = new Map(candidates.map((id, row) => [names.at(id), row]));
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
    const searched = this.#searchFor(text);
    if (searched.query.unique.length === 0) return undefined;
    this.#scratchArrays = searchScratch(this.#scratchArrays, this.#toolNames().length);
    return rankBest(searched.index, searched.query, this.#scratchArrays, limit);
  }

  /**
   * What each of `names` matches of `text`: one row per name, in the order given, holding its
   * impact per distinct known term of the text (as in `searchMatching`). A name not indexed
   * matches nothing.
   */
  termImpacts(text: string, names: readonly string[]): Float64Array[] {
    const searched = this.#searchFor(text);
    const m = searched.query.unique.length;
    const ids = names.map((name) => this.#idOf(name));
    const present = [...new Set(ids.filter((id) => id >= 0))].sort((a, b) => a - b);
    const values = candidateImpacts(searched.index, searched.query, present);
    const rowOf = new Map(present.map((id, row) => [id, row]));
    return ids.map((id) => {
      const row = rowOf.get(id);
      return row === undefined ? new Float64Array(m) : values.slice(row * m, (row + 1) * m);
    });
  }

  /** What a search for `text` reads: after a change, its own terms' impacts alone (up to SEARCHES_BEFORE_ALL_IMPACTS searches), else every impact current. */
  #searchFor(text: string): { index: SearchedIndex; query: QueryTerms } {
    if (this.#impactsStale && this.#termOnlySearches < SEARCHES_BEFORE_ALL_IMPACTS) {
      this.#termOnlySearches += 1;
      this.#prepareMerged();
      const searched = { tuning: this.#tuning, count: this.#count, names: this.#toolNames() };
      return searchedWithTermImpacts(this.#arrays, searched, this.#queryTermIds.of(text));
    }
    this.#prepare();
    return this.#searchedFor(this.#queryTerms(text));
  }

  /** The query's known terms (impact-search.ts `queryTermsOf`). */
  #queryTerms(text: string): QueryTerms {
    return queryTermsOf(this.#queryTermIds.of(text), this.#arrays);
  }

  /** Tool names by id: the stored part's (decoded as asked) while it is not settled. */
  #toolNames(): SearchedIndex["names"] {
    const part = this.#part;
    return part === undefined ? this.#names : { length: part.names.count, at: (id) => part.names.at(id) };
  }

  /**
   * What a search for `query` reads: the merged arrays and impacts (after #prepare), or the stored
   * part's postings of the query's terms alone (search-part.ts, the query renumbered to them); and
   * when the query repeats a term (its weight is computed from its raw counts, as MiniSearch does)
   * while the counts are not read, a reader of a term's counts alone from storage.
   */
  #searchedFor(query: QueryTerms): { index: SearchedIndex; query: QueryTerms } {
    const base = { tuning: this.#tuning, names: this.#toolNames(), count: this.#count };
    const termCounts = this.#termCounts;
    const repeats = this.#unreadCounts !== undefined && termCounts !== undefined && query.multiplicity.some((occurrences) => occurrences > 1);
    const countsOf = repeats ? termCounts : undefined;
    if (this.#part !== undefined) return this.#part.searchedFor(query, base, countsOf);
    const index: SearchedIndex = countsOf === undefined ? { ...base, arrays: this.#arrays } : { ...base, arrays: this.#arrays, countsOf };
    return { index, query };
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
    this.#prepareMerged();
    if (this.#impactsStale) this.#computeImpacts();
  }

  /** Merge pending changes (the raw counts in memory, ids dense); the impacts may stay stale. */
  #prepareMerged(): void {
    if (this.#dirty || this.#impactsStale) this.#settle();
    if (this.#dirty || this.#impactsStale) this.#readCounts();
    if (this.#dirty) this.#merge();
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
    this.#settle();
    this.#prepare();
    this.#readCounts();
    this.#loose = looseEngineOf({ arrays: this.#arrays, names: this.#names, terms: this.#terms, count: this.#count, mergedTerms: this.#mergedTerms });
    return this.#loose;
  }

  /** The index as bytes: a JSON header (format, names, terms, array lengths), then the typed arrays, each 8-byte aligned. */
  toBytes(): Uint8Array {
    this.#settle();
    this.#prepare();
    this.#readCounts();
    return encodeLayout(this.#header(this.#arrays), this.#arrays);
  }

  /**
   * The index as two parts, stored apart (fromParts): what a search reads (names, terms, impacts,
   * field lengths) and the raw term counts, about half the bytes, which a first search after a
   * load rarely needs (see #readCounts). Its impacts are made current here; a save in pieces
   * (impact-save.ts) makes the same bytes from `savedState` without holding the index that long.
   */
  toParts(): { search: Uint8Array; counts: Uint8Array } {
    this.#settle();
    this.#prepare();
    return partsOf(this.savedState());
  }

  /**
   * What `toParts` encodes, as of now (impact-save.ts), its changes not merged yet: copied where
   * later changes would write (names, pending lists, the averages), the arrays themselves never
   * written in place (a merge or a recomputation makes new ones).
   */
  savedState(): SavedState {
    this.#settle();
    this.#readCounts();
    const unmerged = { arrays: this.#arrays, names: this.#names, pending: this.#pending, mergedTerms: this.#mergedTerms, termCount: this.#terms.length };
    return {
      meta: { format: INDEX_FORMAT, scoring: this.#scoring, count: this.#count },
      countsFormat: COUNTS_FORMAT,
      tuning: this.#tuning,
      unmerged: unmergedCopy(unmerged, this.#pendingLengths),
      merged: !this.#dirty,
      terms: this.#terms.slice(),
      impactsCurrent: !this.#dirty && !this.#impactsStale,
    };
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
  static fromParts(search: PartReader, counts: CountsReader, tuning: RankingTuning): ImpactIndex {
    const part = SearchPart.read(search, INDEX_FORMAT);
    const header = part.header;
    const index = new ImpactIndex(tuning, {
      names: [],
      terms: [],
      count: header.count,
      scoring: header.scoring,
      arrays: { ...emptyArrays(), ...part.arrays },
      part,
    });
    const stored = storedCounts(counts, { ...header, format: COUNTS_FORMAT });
    index.#unreadCounts = stored.all;
    index.#termCounts = stored.termCounts;
    return index;
  }

  /** Index restored from `toBytes()`; throws (asking for a rebuild) on another format or damaged bytes. */
  static fromBytes(input: Uint8Array, tuning: RankingTuning): ImpactIndex {
    const { header, arrays } = decodeLayout(input, INDEX_FORMAT);
    return new ImpactIndex(tuning, {
      names: header.names.map((name) => name ?? undefined),
      terms: header.terms,
      count: header.count,
      scoring: header.scoring,
      arrays,
    });
  }
}
