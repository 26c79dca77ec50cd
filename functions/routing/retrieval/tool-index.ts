import MiniSearch, { type AsPlainObject, type Options, type SearchOptions } from "minisearch";
import { splitWords, termOf } from "./analyze";
import { sortRanked, type Ranked } from "./ranked";
import { TOOL_DOC_FIELDS, type ToolDoc, type ToolDocField } from "./tool-document";

/**
 * Lexical (BM25) ranking of a tenant's tools for a task text, on MiniSearch: no model call,
 * milliseconds at 10,000 tools (figures in bench/retrieval-quality.ts). Tools are added, replaced
 * and removed by name as the registry changes, and the index serialises to plain JSON so a
 * Durable Object can store it and reload it instead of rebuilding.
 */

/** Search-time knobs; defaults measured in bench/retrieval-quality.ts. */
export interface RankingTuning {
  /** Weight of each field; 0 leaves the field out of ranking. */
  boosts: Readonly<Record<ToolDocField, number>>;
  /** BM25+ parameters: k term saturation, b length normalisation, d floor per matched term. */
  bm25: { k: number; b: number; d: number };
  /** Query terms at least this long also match index terms they prefix; 0 turns prefix matching off. */
  prefixMinLength: number;
  /** Query terms at least this long match index terms within 20% edits; 0 turns fuzzy matching off. */
  fuzzyMinLength: number;
}

export const DEFAULT_TUNING: RankingTuning = {
  // Words that name the tool (name, path, summary, tags) count double; parameter descriptions are
  // mostly boilerplate ("Specify which page to query"). Classic BM25 (d = 0) measured best.
  boosts: { name: 2, operation: 2, summary: 2, description: 1, parameters: 1, parameterDocs: 0.2, tags: 2, action: 1, examples: 1, outputs: 0.5 },
  bm25: { k: 1.2, b: 0.75, d: 0 },
  prefixMinLength: 0,
  fuzzyMinLength: 0,
};

/**
 * Serialised index. `format` names the text analysis too: an index stored by an older analysis
 * would hold terms that new queries never produce, so it is refused and must be rebuilt.
 */
export interface SerializedToolIndex {
  format: typeof FORMAT;
  index: AsPlainObject;
}

const FORMAT = "atc-tool-index/3";

const ENGINE_OPTIONS: Options<ToolDoc> = {
  idField: "name",
  fields: [...TOOL_DOC_FIELDS],
  storeFields: [],
  tokenize: splitWords,
  processTerm: termOf,
};

/** Tuning of the fallback search for a task whose words match no tool exactly. */
const LOOSE_TUNING: Pick<RankingTuning, "prefixMinLength" | "fuzzyMinLength"> = { prefixMinLength: 4, fuzzyMinLength: 5 };

export class ToolIndex {
  private readonly searchOptions: SearchOptions;
  private readonly looseOptions: SearchOptions;

  private constructor(
    private readonly engine: MiniSearch<ToolDoc>,
    tuning: Partial<RankingTuning>,
  ) {
    this.searchOptions = toSearchOptions({ ...DEFAULT_TUNING, ...tuning });
    this.looseOptions = toSearchOptions({ ...DEFAULT_TUNING, ...tuning, ...LOOSE_TUNING });
  }

  /** Index of `docs`; a later doc with an already-seen name replaces the earlier one. */
  static build(docs: Iterable<ToolDoc>, tuning: Partial<RankingTuning> = {}): ToolIndex {
    const index = new ToolIndex(new MiniSearch<ToolDoc>(ENGINE_OPTIONS), tuning);
    for (const doc of docs) index.add(doc);
    return index;
  }

  /** Index restored from `toJSON()` output (object or its JSON text); throws on another format. */
  static fromJSON(json: SerializedToolIndex | string, tuning: Partial<RankingTuning> = {}): ToolIndex {
    const data: unknown = typeof json === "string" ? JSON.parse(json) : json;
    if (!isSerialized(data)) throw new Error(`not a serialised tool index of format ${FORMAT}; rebuild it from the tools`);
    return new ToolIndex(MiniSearch.loadJS<ToolDoc>(data.index, ENGINE_OPTIONS), tuning);
  }

  /** Number of tools in the index. */
  get size(): number {
    return this.engine.documentCount;
  }

  /** True when a tool of this name is indexed. */
  has(name: string): boolean {
    return this.engine.has(name);
  }

  /** Adds a tool, or replaces the indexed tool of the same name. */
  add(doc: ToolDoc): void {
    if (this.engine.has(doc.name)) this.engine.replace(doc);
    else this.engine.add(doc);
  }

  /** Removes a tool by name; false when it was not indexed. */
  remove(name: string): boolean {
    if (!this.engine.has(name)) return false;
    // discard needs only the id, so the index need not keep every tool's text. Its postings are
    // dropped lazily (on the next query that meets them, or by MiniSearch's background vacuum).
    this.engine.discard(name);
    return true;
  }

  /** The `k` tools most relevant to `text`, best first; empty when no word of `text` is indexed. */
  search(text: string, k = 10): Ranked[] {
    return this.#search(text, k, this.searchOptions);
  }

  /**
   * Partial matching for a task none of whose words is indexed as such: words also match the
   * index terms they begin ("direct" → "director") or nearly spell (20% edits).
   */
  looseSearch(text: string, k = 10): Ranked[] {
    return this.#search(text, k, this.looseOptions);
  }

  #search(text: string, k: number, options: SearchOptions): Ranked[] {
    const limit = Math.floor(k);
    if (limit <= 0 || this.engine.documentCount === 0) return [];
    // MiniSearch returns every matching tool, best first; only the top k (and tools tied with
    // the k-th) are copied, and name breaks ties so results survive a rebuild or reload unchanged.
    const results = this.engine.search(text, options);
    const ranked: Ranked[] = [];
    for (const result of results) {
      const last = ranked[ranked.length - 1];
      if (ranked.length >= limit && last !== undefined && result.score < last.score) break;
      if (typeof result.id === "string") ranked.push({ name: result.id, score: result.score });
    }
    return sortRanked(ranked).slice(0, limit);
  }

  /** Plain-data snapshot of the index, for storage; restore with `ToolIndex.fromJSON`. */
  toJSON(): SerializedToolIndex {
    return { format: FORMAT, index: this.engine.toJSON() };
  }
}

function toSearchOptions(tuning: RankingTuning): SearchOptions {
  // MiniSearch reads a boost of 0 as 1, so zero-weight fields are left out of `fields` instead.
  const fields = TOOL_DOC_FIELDS.filter((field) => tuning.boosts[field] > 0);
  const { prefixMinLength, fuzzyMinLength } = tuning;
  return {
    fields,
    boost: { ...tuning.boosts },
    bm25: { ...tuning.bm25 },
    combineWith: "OR",
    prefix: prefixMinLength > 0 ? (term: string) => term.length >= prefixMinLength : false,
    fuzzy: fuzzyMinLength > 0 ? (term: string) => (term.length >= fuzzyMinLength ? 0.2 : false) : false,
  };
}

function isSerialized(data: unknown): data is SerializedToolIndex {
  if (typeof data !== "object" || data === null) return false;
  const record = data as Record<string, unknown>;
  return record.format === FORMAT && typeof record.index === "object" && record.index !== null;
}
