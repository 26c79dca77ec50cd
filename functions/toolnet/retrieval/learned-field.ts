import { PostingList, postingsOf } from "./learned-postings";
import { LearnedQueryTerms } from "./learned-query";
import { rankBest, rankEveryMatch } from "./max-score";
import { NO_POSTINGS, type ScoredField, type SearchWork, type TermPostings } from "./scored-field";
import type { Ranked } from "./ranked";

// The merge into the own-text ranking lives apart (learned-merge.ts); routing imports it from here.
export { withLearnedField } from "./learned-merge";

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
  /** How many of them teach it a word: a source that only takes words away (a negative score, a rival's choice) is no evidence for it. */
  teaching: number;
  /** Σ of the sources' weights per term. */
  readonly totals: Map<string, number>;
  /** The budgeted field (positive totals, strongest TERMS_PER_TOOL), made when first read. */
  field: Map<string, number> | undefined;
  length: number;
}

export class LearnedField {
  readonly #tools = new Map<string, ToolField>();
  /** Term → the tools (by slot) whose budgeted field holds it, with its weight there; made again for a tool when its field changes. */
  readonly #postings = new Map<string, PostingList>();
  /** Each tool's number, kept for good (a search sums into arrays by slot), and each slot's tool. */
  readonly #slots = new Map<string, number>();
  readonly #names: string[] = [];
  /** By slot: the budgeted field, its length (Σ of its weights), its sources and the share of a sum its score keeps. */
  readonly #fields: (ReadonlyMap<string, number> | undefined)[] = [];
  readonly #lengths: number[] = [];
  readonly #sources: number[] = [];
  readonly #shares: number[] = [];
  /** Source → the tools it taught (a source's view without it, and its removal, touch only those). */
  readonly #taughtBy = new Map<string, Set<string>>();
  #totalLength = 0;
  #fieldCount = 0;
  #version = 0;
  /** The view of the fields as they are and its scored field, for the version they were made at. */
  #current: { version: number; view: FieldView; scored: { catalogSize: number; field: ScoredField } | undefined } | undefined;
  readonly #prune: boolean;
  readonly #queryTerms = new LearnedQueryTerms();
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
    return this.#fieldCount === 0;
  }

  /** Set (replace) what `source` says of `tool`; empty weights remove it. Returns the sources that faded out to keep the tool's bound. */
  set(source: string, tool: string, weights: TermWeights): string[] {
    const entry = this.#entry(tool);
    this.#unpost(tool, entry);
    const old = entry.sources.get(source);
    if (old !== undefined) {
      this.#add(entry.totals, old, -1);
      if (teaches(old)) entry.teaching -= 1;
    }
    entry.sources.delete(source);
    this.#untaught(source, tool);
    if (weights.size > 0) {
      entry.sources.set(source, weights);
      this.#add(entry.totals, weights, 1);
      if (teaches(weights)) entry.teaching += 1;
      let tools = this.#taughtBy.get(source);
      if (tools === undefined) this.#taughtBy.set(source, (tools = new Set()));
      tools.add(tool);
    }
    const faded: string[] = [];
    for (const [oldest, words] of entry.sources) {
      if (entry.sources.size <= SOURCES_PER_TOOL) break;
      this.#add(entry.totals, words, -1);
      if (teaches(words)) entry.teaching -= 1;
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
    // Repeated terms count once: rankBest keeps each term's first place.
    const terms = this.#queryTerms.of(text, UNMATCHED_TERM);
    const field = excluding === undefined ? this.#scored(view, catalogSize) : scoredField(view, catalogSize);
    return this.#prune ? rankBest(field, terms, limit, this.work) : rankEveryMatch(field, terms, limit, this.work);
  }

  /** The fields as they are, made again after a change (a route's search makes no view of its own). */
  #view(): FieldView {
    if (this.#current?.version !== this.#version) this.#current = { version: this.#version, view: this.#viewNow(), scored: undefined };
    return this.#current.view;
  }

  /** `view` (the fields as they are) as a BM25 field over a catalog of `catalogSize`, kept with the view. */
  #scored(view: FieldView, catalogSize: number): ScoredField {
    const current = this.#current;
    if (current === undefined || current.view !== view) return scoredField(view, catalogSize);
    if (current.scored?.catalogSize !== catalogSize) current.scored = { catalogSize, field: scoredField(view, catalogSize) };
    return current.scored.field;
  }

  #viewNow(): FieldView {
    return {
      fields: this.#fieldCount,
      totalLength: this.#totalLength,
      postings: (term) => this.#postings.get(term)?.tighten(this.#lengths, this.#shares) ?? NO_POSTINGS,
      weightIn: (slot, term) => this.#fields[slot]?.get(term),
      lengths: this.#lengths,
      shares: this.#shares,
      sources: this.#sources,
      slotCount: this.#names.length,
      nameOf: (slot) => this.#names[slot] ?? "",
    };
  }

  /** The fields as if `source` had taught nothing: only the tools it taught differ, each made again from its totals less the source's words. */
  #viewWithout(source: string): FieldView {
    const taught = this.#taughtBy.get(source);
    if (taught === undefined || taught.size === 0) return this.#view();
    const base = this.#view();
    const view = { ...base, lengths: [...this.#lengths], shares: [...this.#shares], sources: [...this.#sources] };
    // Slot → the tool's field without the source.
    const without = new Map<number, Map<string, number>>();
    for (const tool of taught) {
      const entry = this.#tools.get(tool);
      const slot = this.#slots.get(tool);
      const words = entry?.sources.get(source);
      if (entry === undefined || slot === undefined || words === undefined) continue;
      const totals = new Map(entry.totals);
      this.#add(totals, words, -1);
      const field = budgeted(totals);
      const length = sumOf(field);
      view.fields += (field.size > 0 ? 1 : 0) - (entry.field === undefined ? 0 : 1);
      view.totalLength += length - entry.length;
      without.set(slot, field);
      view.lengths[slot] = field.size > 0 ? length : 0;
      const teaching = entry.teaching - (teaches(words) ? 1 : 0);
      view.sources[slot] = teaching;
      view.shares[slot] = shareOf(teaching);
    }
    return {
      ...view,
      postings: (term) => postingsWithout(base, term, without, view),
      weightIn: (slot, term) => (without.has(slot) ? without.get(slot)?.get(term) : base.weightIn(slot, term)),
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
    return { terms: terms.slice(0, count), sources: entry.teaching };
  }

  #entry(tool: string): ToolField {
    let entry = this.#tools.get(tool);
    if (entry === undefined) this.#tools.set(tool, (entry = { sources: new Map(), teaching: 0, totals: new Map(), field: undefined, length: 0 }));
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
    const slot = this.#slotOf(tool);
    for (const term of entry.field.keys()) {
      const tools = this.#postings.get(term);
      tools?.delete(slot);
      if (tools?.size === 0) this.#postings.delete(term);
    }
    this.#fields[slot] = undefined;
    this.#lengths[slot] = 0;
    this.#totalLength -= entry.length;
    this.#fieldCount -= 1;
    entry.field = undefined;
    entry.length = 0;
  }

  /** The tool's slot, numbered when first seen. */
  #slotOf(tool: string): number {
    let slot = this.#slots.get(tool);
    if (slot === undefined) {
      slot = this.#names.length;
      this.#slots.set(tool, slot);
      this.#names.push(tool);
      this.#fields.push(undefined);
      this.#lengths.push(0);
      this.#sources.push(0);
      this.#shares.push(0);
    }
    return slot;
  }

  /** The tool's budgeted field from its totals (see `budgeted`), posted. */
  #post(tool: string, entry: ToolField): void {
    this.#version += 1;
    const slot = this.#slotOf(tool);
    // A tool's sources, length and share change only here: the postings' bounds hold until it is posted again.
    this.#sources[slot] = entry.teaching;
    this.#shares[slot] = shareOf(entry.teaching);
    const field = budgeted(entry.totals);
    if (field.size === 0) {
      if (entry.sources.size === 0) this.#tools.delete(tool);
      return;
    }
    entry.field = field;
    entry.length = sumOf(field);
    this.#fields[slot] = field;
    this.#lengths[slot] = entry.length;
    for (const [term, weight] of entry.field) {
      let tools = this.#postings.get(term);
      if (tools === undefined) this.#postings.set(term, (tools = new PostingList()));
      tools.post(slot, weight, entry.length, this.#shares[slot] ?? 0);
    }
    this.#totalLength += entry.length;
    this.#fieldCount += 1;
  }
}

/** What a search reads of the fields: their count and total length, each term's tools (by slot) with its weight there, each slot's length, sources and share. */
interface FieldView {
  fields: number;
  totalLength: number;
  postings: (term: string) => TermPostings;
  weightIn: (slot: number, term: string) => number | undefined;
  lengths: ArrayLike<number>;
  shares: ArrayLike<number>;
  sources: ArrayLike<number>;
  slotCount: number;
  nameOf: (slot: number) => string;
}

/** Whether a source's words for a tool teach it anything (some positive weight). */
const teaches = (weights: TermWeights): boolean => [...weights.values()].some((weight) => weight > 0);

/** The share of its summed BM25 a tool's learned score keeps: sources / (sources + LEARNED_CONFIDENCE). */
const shareOf = (sources: number): number => sources / (sources + LEARNED_CONFIDENCE);

/** `term`'s postings with the tools in `without` (slot → field without a source) as they are there. */
function postingsWithout(base: FieldView, term: string, without: ReadonlyMap<number, ReadonlyMap<string, number>>, view: FieldView): TermPostings {
  const postings = base.postings(term);
  let touched = false;
  for (const [slot, field] of without) if (field.has(term) || base.weightIn(slot, term) !== undefined) touched = true;
  if (!touched) return postings;
  const slots: number[] = [];
  const weights: number[] = [];
  for (let p = 0; p < postings.size; p += 1) {
    const slot = postings.slots[p] ?? 0;
    if (without.has(slot)) continue;
    slots.push(slot);
    weights.push(postings.weights[p] ?? 0);
  }
  for (const [slot, field] of without) {
    const weight = field.get(term);
    if (weight === undefined) continue;
    slots.push(slot);
    weights.push(weight);
  }
  return postingsOf(slots, weights, view.lengths, view.shares);
}

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
    weightIn: view.weightIn,
    lengths: view.lengths,
    shares: view.shares,
    slotCount: view.slotCount,
    nameOf: view.nameOf,
    finish: (slot, sum) => {
      const sources = view.sources[slot] ?? 0;
      return (sum * sources) / (sources + LEARNED_CONFIDENCE);
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
