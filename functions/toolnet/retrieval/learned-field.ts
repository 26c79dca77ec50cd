import { queryTerms } from "./analyze";
import { rankBest, rankEveryMatch, type ScoredField, type SearchWork } from "./max-score";
import { sortRanked, type Ranked } from "./ranked";

/**
 * A tool's learned field: the words of the requests that chose it (query-log document
 * expansion), kept as term weights per source of evidence (a conversation, a trajectory), so a
 * source's words can be taken away again exactly. Searched as a BM25 field of its own, with the
 * catalog's size as its number of documents (a tool that learned nothing is an empty document),
 * and added to the tool's own-text score at `LEARNED_FIELD_WEIGHT`. Pure and in memory; the
 * tenant object keeps the contributions in SQLite (storage/learned-words.ts).
 */

/**
 * Weight of the learned field against the tool's own text (1) in the summed BM25 score. Chosen
 * on half a of the dev streams (docs/routing.md, "The learned field"); a tenant's setting
 * `learning.fieldWeight` overrides it (0: the field is off).
 */
export const LEARNED_FIELD_WEIGHT = 1;

/** Each tool's field keeps its strongest this many terms: a bounded field, whatever the traffic. */
export const TERMS_PER_TOOL = 64;

/**
 * A tool's learned score counts sources / (sources + LEARNED_CONFIDENCE) of itself: a field one
 * conversation taught is weak evidence, a field many taught is strong (chosen on half a, docs/routing.md).
 */
export const LEARNED_CONFIDENCE = 2;

/** Whether a learned term's IDF counts the learned fields (true) or the whole catalog (false); chosen on half a. */
export const LEARNED_IDF_OVER_FIELDS = true;

/** Each tool keeps the words of its newest this many sources; older evidence fades out. */
export const SOURCES_PER_TOOL = 200;

/**
 * A pseudo-word a tool learns from a request whose words alone did not find it (it was not
 * among the words' best few, learned-attribution.ts), and that every search asks for. A tool
 * chosen again and again where the words found nothing (an answer engine for open questions:
 * "how many moons has Jupiter", "the capital of Australia") shares no word with its next such
 * request, yet it is what the tenant's users pick then: this word lifts it a little for any
 * request, as much as the field's BM25 gives a word that rare among the fields. No analysed word
 * holds "#", so no request's own words can meet it.
 */
export const UNMATCHED_TERM = "#unmatched";

/** One source's words for one tool: term → weight (negative: the source takes the word away). */
export type TermWeights = ReadonlyMap<string, number>;

/** A learned term as the API shows it. */
export interface LearnedTerm {
  term: string;
  weight: number;
}

interface ToolField {
  /** Contributions by source, oldest first (Map keeps insertion order). */
  readonly sources: Map<string, TermWeights>;
  /** Σ of the sources' weights per term. */
  readonly totals: Map<string, number>;
  /** The budgeted field (positive totals, strongest TERMS_PER_TOOL), made when first read. */
  field: Map<string, number> | undefined;
  length: number;
}

export class LearnedField {
  readonly #tools = new Map<string, ToolField>();
  /** Term → the tools whose budgeted field holds it, with its weight there; made again for a tool when its field changes. */
  readonly #postings = new Map<string, Map<string, number>>();
  /** Each budgeted field's length (Σ of its weights), by tool. */
  readonly #lengths = new Map<string, number>();
  /** Source → the tools it taught (a source's view without it, and its removal, touch only those). */
  readonly #taughtBy = new Map<string, Set<string>>();
  #totalLength = 0;
  #fields = 0;
  #version = 0;
  readonly #prune: boolean;
  /** What the searches read so far (postings, tools scored exactly): what pruning saves shows here. */
  readonly work: SearchWork = { postings: 0, rescored: 0 };

  /** `prune: false` scores every tool a query's terms reach (max-score.ts's reference; same answers, more work). */
  constructor({ prune = true }: { prune?: boolean } = {}) {
    this.#prune = prune;
  }

  /** Changes since the field was made: a ranking made for one version holds until the next. */
  get version(): number {
    return this.#version;
  }

  /** Whether any tool has a learned field. */
  get empty(): boolean {
    return this.#fields === 0;
  }

  /** Set (replace) what `source` says of `tool`; empty weights remove it. Returns the sources that faded out to keep the tool's bound. */
  set(source: string, tool: string, weights: TermWeights): string[] {
    const entry = this.#entry(tool);
    this.#unpost(tool, entry);
    const old = entry.sources.get(source);
    if (old !== undefined) this.#add(entry.totals, old, -1);
    entry.sources.delete(source);
    this.#untaught(source, tool);
    if (weights.size > 0) {
      entry.sources.set(source, weights);
      this.#add(entry.totals, weights, 1);
      let tools = this.#taughtBy.get(source);
      if (tools === undefined) this.#taughtBy.set(source, (tools = new Set()));
      tools.add(tool);
    }
    const faded: string[] = [];
    for (const [oldest, words] of entry.sources) {
      if (entry.sources.size <= SOURCES_PER_TOOL) break;
      this.#add(entry.totals, words, -1);
      entry.sources.delete(oldest);
      this.#untaught(oldest, tool);
      faded.push(oldest);
    }
    this.#post(tool, entry);
    return faded;
  }

  /** Take everything `source` taught away; returns the tools it had taught. */
  remove(source: string): string[] {
    const touched = [...(this.#taughtBy.get(source) ?? [])];
    for (const tool of touched) this.set(source, tool, new Map());
    return touched;
  }

  #untaught(source: string, tool: string): void {
    const tools = this.#taughtBy.get(source);
    tools?.delete(tool);
    if (tools?.size === 0) this.#taughtBy.delete(source);
  }

  /** What `source` says of `tool` (undefined: nothing). */
  contribution(source: string, tool: string): TermWeights | undefined {
    return this.#tools.get(tool)?.sources.get(source);
  }

  /**
   * Tools with a learned word for `text`, best first, scored as a BM25 field over a catalog of
   * `catalogSize` tools. With `excluding`, as if that source had never taught anything (the
   * calibration's replay of a task with its own words left out): the tools it taught are scored
   * from their fields without it, and the counts BM25 reads (fields, lengths, each term's fields)
   * are those of that view. Only the `limit` best are scored in full (max-score.ts): words in most
   * fields ("can", "help") are read only for tools that can still make the cut.
   */
  search(text: string, catalogSize: number, limit = 50, excluding?: string): Ranked[] {
    const view = excluding === undefined ? this.#view() : this.#viewWithout(excluding);
    if (view.fields === 0) return [];
    const terms = [...new Set(queryTerms(text)), UNMATCHED_TERM];
    const field = scoredField(view, catalogSize);
    return this.#prune ? rankBest(field, terms, limit, this.work) : rankEveryMatch(field, terms, limit, this.work);
  }

  /** The fields as they are. */
  #view(): FieldView {
    return {
      fields: this.#fields,
      totalLength: this.#totalLength,
      postings: (term) => this.#postings.get(term) ?? NO_POSTINGS,
      lengthOf: (tool) => this.#lengths.get(tool) ?? 0,
      sourcesOf: (tool) => this.#tools.get(tool)?.sources.size ?? 0,
    };
  }

  /** The fields as if `source` had taught nothing: only the tools it taught differ, each made again from its totals less the source's words. */
  #viewWithout(source: string): FieldView {
    const taught = this.#taughtBy.get(source);
    if (taught === undefined || taught.size === 0) return this.#view();
    const without = new Map<string, { field: Map<string, number>; length: number; sources: number }>();
    let fields = this.#fields;
    let totalLength = this.#totalLength;
    for (const tool of taught) {
      const entry = this.#tools.get(tool);
      const words = entry?.sources.get(source);
      if (entry === undefined || words === undefined) continue;
      const totals = new Map(entry.totals);
      this.#add(totals, words, -1);
      const field = budgeted(totals);
      const length = sumOf(field);
      fields += (field.size > 0 ? 1 : 0) - (entry.field === undefined ? 0 : 1);
      totalLength += length - entry.length;
      without.set(tool, { field, length, sources: entry.sources.size - 1 });
    }
    const base = this.#view();
    return {
      fields,
      totalLength,
      postings: (term) => {
        const tools = new Map(base.postings(term));
        for (const [tool, changed] of without) {
          const weight = changed.field.get(term);
          if (weight === undefined) tools.delete(tool);
          else tools.set(tool, weight);
        }
        return tools;
      },
      lengthOf: (tool) => without.get(tool)?.length ?? base.lengthOf(tool),
      sourcesOf: (tool) => without.get(tool)?.sources ?? base.sourcesOf(tool),
    };
  }

  /** A tool's strongest learned terms, and from how many sources they came. */
  strongest(tool: string, count: number): { terms: LearnedTerm[]; sources: number } {
    const entry = this.#tools.get(tool);
    if (entry === undefined) return { terms: [], sources: 0 };
    // The pseudo-word is no word the tool learned: shown terms are the requests' own.
    const terms = [...(entry.field ?? new Map<string, number>())]
      .filter(([term]) => term !== UNMATCHED_TERM)
      .map(([term, weight]) => ({ term, weight: round(weight) }));
    return { terms: terms.slice(0, count), sources: entry.sources.size };
  }

  #entry(tool: string): ToolField {
    let entry = this.#tools.get(tool);
    if (entry === undefined) this.#tools.set(tool, (entry = { sources: new Map(), totals: new Map(), field: undefined, length: 0 }));
    return entry;
  }

  #add(totals: Map<string, number>, weights: TermWeights, sign: 1 | -1): void {
    for (const [term, weight] of weights) {
      const total = (totals.get(term) ?? 0) + sign * weight;
      // Sums of fractions drift: a total this close to nothing is nothing.
      if (Math.abs(total) < 1e-9) totals.delete(term);
      else totals.set(term, total);
    }
  }

  #unpost(tool: string, entry: ToolField): void {
    if (entry.field === undefined) return;
    for (const term of entry.field.keys()) {
      const tools = this.#postings.get(term);
      tools?.delete(tool);
      if (tools?.size === 0) this.#postings.delete(term);
    }
    this.#lengths.delete(tool);
    this.#totalLength -= entry.length;
    this.#fields -= 1;
    entry.field = undefined;
    entry.length = 0;
  }

  /** The tool's budgeted field from its totals (see `budgeted`), posted. */
  #post(tool: string, entry: ToolField): void {
    this.#version += 1;
    const field = budgeted(entry.totals);
    if (field.size === 0) {
      if (entry.sources.size === 0) this.#tools.delete(tool);
      return;
    }
    entry.field = field;
    for (const [term, weight] of entry.field) {
      let tools = this.#postings.get(term);
      if (tools === undefined) this.#postings.set(term, (tools = new Map()));
      tools.set(tool, weight);
    }
    entry.length = sumOf(field);
    this.#lengths.set(tool, entry.length);
    this.#totalLength += entry.length;
    this.#fields += 1;
  }
}

/** What a search reads of the fields: their count and total length, each term's tools with its weight there, each tool's length and sources. */
interface FieldView {
  fields: number;
  totalLength: number;
  postings: (term: string) => ReadonlyMap<string, number>;
  lengthOf: (tool: string) => number;
  sourcesOf: (tool: string) => number;
}

const NO_POSTINGS: ReadonlyMap<string, number> = new Map();

/**
 * A view as a BM25 field over a catalog of `catalogSize`: a tool's score counts
 * sources / (sources + LEARNED_CONFIDENCE) of its sum.
 */
function scoredField(view: FieldView, catalogSize: number): ScoredField {
  return {
    // A term's rarity among the learned fields, not the catalog: words of how people ask ("tell",
    // "help") are learned by many tools and say little, though no tool's own text has them.
    documents: LEARNED_IDF_OVER_FIELDS ? view.fields : Math.max(catalogSize, view.fields),
    averageLength: view.totalLength / view.fields,
    postings: view.postings,
    lengthOf: view.lengthOf,
    finish: (tool, sum) => {
      const sources = view.sourcesOf(tool);
      return (sum * sources) / (sources + LEARNED_CONFIDENCE);
    },
    share: (tool) => {
      const sources = view.sourcesOf(tool);
      return sources / (sources + LEARNED_CONFIDENCE);
    },
  };
}

/** A tool's budgeted field from its totals: positive terms only, the strongest TERMS_PER_TOOL. */
function budgeted(totals: ReadonlyMap<string, number>): Map<string, number> {
  const kept = [...totals].filter(([, weight]) => weight > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(kept.slice(0, TERMS_PER_TOOL));
}

function sumOf(field: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const weight of field.values()) sum += weight;
  return sum;
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * `ranked` (own-text BM25, best first) with each tool's learned-field score added at `weight`;
 * a tool only the learned field knows joins with its learned score alone. Both are BM25 sums
 * over the same catalog, so the sum is a two-field BM25 (the fields scored apart, as BM25F's
 * simpler cousin).
 */
export function withLearnedField(ranked: readonly Ranked[], learned: readonly Ranked[], weight: number): Ranked[] {
  if (learned.length === 0 || weight <= 0) return [...ranked];
  const scores = new Map(ranked.map((r) => [r.name, r.score]));
  for (const r of learned) scores.set(r.name, (scores.get(r.name) ?? 0) + weight * r.score);
  return sortRanked([...scores].map(([name, score]) => ({ name, score })));
}
