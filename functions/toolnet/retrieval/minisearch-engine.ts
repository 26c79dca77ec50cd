import MiniSearch, { type AsPlainObject, type Options, type SearchOptions } from "minisearch";
import { queryWords, splitWords, termOf } from "./analyze";
import { repeatedTermWeight } from "./query-term-weight";
import { sortRanked, type Ranked } from "./ranked";
import { TOOL_DOC_FIELDS, type ToolDoc, type ToolDocField } from "./tool-document";

/**
 * MiniSearch, configured as the tool index's scoring reference: the impact index (impact-index.ts)
 * computes MiniSearch's BM25 exactly, and MiniSearch itself answers the prefix/fuzzy searches
 * (the rare partial-match fallback), loaded from the impact index's term counts.
 */

/** Search-time knobs; defaults measured in bench/retrieval-quality.ts. */
export interface RankingTuning {
  /** Weight of each field; 0 leaves the field out of ranking. */
  boosts: Readonly<Record<ToolDocField, number>>;
  /** BM25+ parameters: k term saturation, b length normalisation, d floor per matched term. */
  bm25: { k: number; b: number; d: number };
  /**
   * Okapi BM25's k3: a term the task writes q times counts (k3 + 1)·q / (k3 + q) times
   * (query-term-weight.ts); Infinity counts every repeat in full, as MiniSearch does by default.
   */
  queryTermSaturation: number;
  /** Query terms at least this long also match index terms they prefix; 0 turns prefix matching off. */
  prefixMinLength: number;
  /** Query terms at least this long match index terms within 20% edits; 0 turns fuzzy matching off. */
  fuzzyMinLength: number;
}

/** Weight of parameters' enum, default and example values (tool-document.ts `values`); chosen on half a of bench/routing-generalisation.ts. */
const VALUES_BOOST = 0.5;

export const DEFAULT_TUNING: RankingTuning = {
  // Words that name the tool (name, path, summary, tags) count double; parameter descriptions are
  // mostly boilerplate ("Specify which page to query"). Classic BM25 (d = 0) measured best.
  // The weights of sibling operations' summaries and of title phrases were chosen on half a of
  // bench/routing-generalisation.ts.
  boosts: {
    name: 2,
    operation: 2,
    summary: 2,
    description: 1,
    parameters: 1,
    parameterDocs: 0.2,
    tags: 2,
    action: 1,
    examples: 1,
    outputs: 0.5,
    siblings: 1,
    phrases: 2,
    values: VALUES_BOOST,
    // Like `siblings`, text shared by an API's operations; no dev set carries API descriptions, so
    // this weight is the siblings' one, not a measured choice (docs/routing.md).
    api: 1,
  },
  bm25: { k: 1.2, b: 0.75, d: 0 },
  // Chosen on half a of bench/routing-generalisation.ts (0, 0.5, 1, 2, 4, Infinity).
  queryTermSaturation: 1,
  prefixMinLength: 0,
  fuzzyMinLength: 0,
};

export const ENGINE_OPTIONS: Options<ToolDoc> = {
  idField: "name",
  fields: [...TOOL_DOC_FIELDS],
  storeFields: [],
  tokenize: splitWords,
  processTerm: termOf,
};

export function toSearchOptions(tuning: RankingTuning): SearchOptions {
  // MiniSearch reads a boost of 0 as 1, so zero-weight fields are left out of `fields` instead.
  const fields = TOOL_DOC_FIELDS.filter((field) => tuning.boosts[field] > 0);
  const { prefixMinLength, fuzzyMinLength, queryTermSaturation } = tuning;
  return {
    fields,
    // Queries also carry compounds of adjacent words (analyze.ts, queryWords); documents do not.
    tokenize: queryWords,
    boost: { ...tuning.boosts },
    bm25: { ...tuning.bm25 },
    combineWith: "OR",
    // MiniSearch weighs each occurrence of a term; a repeated one by its share of the saturated count.
    ...(queryTermSaturation === Infinity
      ? {}
      : { boostTerm: (term: string, _i: number, terms: string[]) => repeatedTermWeight(countOf(term, terms), queryTermSaturation) }),
    prefix: prefixMinLength > 0 ? (term: string) => term.length >= prefixMinLength : false,
    fuzzy: fuzzyMinLength > 0 ? (term: string) => (term.length >= fuzzyMinLength ? 0.2 : false) : false,
  };
}

function countOf(term: string, terms: readonly string[]): number {
  let count = 0;
  for (const other of terms) if (other === term) count += 1;
  return count;
}

/** A MiniSearch engine over the given documents (the scoring reference; tests and benchmarks compare against it). */
export function buildEngine(docs: Iterable<ToolDoc>): MiniSearch<ToolDoc> {
  const engine = new MiniSearch<ToolDoc>(ENGINE_OPTIONS);
  for (const doc of docs) {
    if (engine.has(doc.name)) engine.replace(doc);
    else engine.add(doc);
  }
  return engine;
}

/** A MiniSearch engine restored from its plain form (see ImpactIndex.#looseEngine). */
export function loadEngine(plain: AsPlainObject): MiniSearch<ToolDoc> {
  return MiniSearch.loadJS<ToolDoc>(plain, ENGINE_OPTIONS);
}

/** The `k` best of a MiniSearch search, best first; name breaks ties so results are reproducible. */
export function engineSearch(engine: MiniSearch<ToolDoc>, text: string, k: number, options: SearchOptions): Ranked[] {
  const limit = Math.floor(k);
  if (limit <= 0 || engine.documentCount === 0) return [];
  // MiniSearch returns every matching tool, best first; only the top k (and tools tied with the
  // k-th) are copied.
  const ranked: Ranked[] = [];
  for (const result of engine.search(text, options)) {
    const last = ranked[ranked.length - 1];
    if (ranked.length >= limit && last !== undefined && result.score < last.score) break;
    if (typeof result.id === "string") ranked.push({ name: result.id, score: result.score });
  }
  return sortRanked(ranked).slice(0, limit);
}
