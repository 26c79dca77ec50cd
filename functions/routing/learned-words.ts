import { EVIDENCE_WEIGHT } from "../toolnet/learned-attribution";
import { exampleSource } from "../toolnet/learned-examples";
import { unmatchedChoices } from "../toolnet/first-step-prior";
import { LearnedField, type LearnedTerm, type TermWeights } from "../toolnet/retrieval/learned-field";
import type { Ranked } from "../toolnet/retrieval";
import { allRows, oneRow, run } from "../storage/sql";

interface TermRow {
  source: string;
  tool: string;
  term: string;
  weight: number;
}

/** How many sources of one kind taught a tool, and how many words of its field they taught. */
export interface LearnedOrigin {
  sources: number;
  words: number;
}

/** A tool's learned words as the API shows them: its strongest terms, from how many sources, and how many words came from use and from example requests. */
export interface LearnedWordsView {
  tool: string;
  sources: number;
  terms: LearnedTerm[];
  /** Observed conversations, trajectories and scores. */
  fromUse: LearnedOrigin;
  /** Example requests (Play2Prompt demonstrations, or written by the tenant's model at import). */
  fromExamples: LearnedOrigin;
}

/**
 * The tenant's learned fields (toolnet/retrieval/learned-field.ts), part of the routing store:
 * owns `learned_terms`, one row per source, tool and term. Updated in place as evidence arrives
 * (no index rebuild), loaded into memory from the rows on first use after an eviction.
 */
export class LearnedWords {
  readonly #sql: SqlStorage;
  /** Called after every change: rankings remembered for tasks no longer hold. */
  readonly #changed: () => void;
  #field: LearnedField | undefined;
  /** The unmatched choices as last ranked (every route's first step reads them), by field version and catalog size. */
  #unmatched: { version: number; catalogSize: number; tools: string[] } | undefined;

  constructor(sql: SqlStorage, changed: () => void) {
    this.#sql = sql;
    this.#changed = changed;
  }

  #loaded(): LearnedField {
    if (this.#field !== undefined) return this.#field;
    const field = new LearnedField();
    const rows = allRows<TermRow & { learned_at: number }>(
      this.#sql,
      "SELECT source, tool, term, weight, learned_at FROM learned_terms ORDER BY learned_at, source, tool",
    );
    const grouped = new Map<string, { source: string; tool: string; weights: Map<string, number> }>();
    for (const row of rows) {
      const key = `${row.source}\u0000${row.tool}`;
      let group = grouped.get(key);
      if (group === undefined) grouped.set(key, (group = { source: row.source, tool: row.tool, weights: new Map() }));
      group.weights.set(row.term, row.weight);
    }
    for (const { source, tool, weights } of grouped.values()) field.set(source, tool, weights);
    this.#field = field;
    return field;
  }

  /**
   * `source` teaches each tool its words: merged with what the same source taught before, each
   * word at the stronger of the two weights, so one conversation counts once however often it
   * repeats (the cap per conversation).
   */
  learn(source: string, words: ReadonlyMap<string, TermWeights>): void {
    const field = this.#loaded();
    for (const [tool, weights] of words) {
      const merged = new Map(field.contribution(source, tool) ?? []);
      for (const [term, weight] of weights) merged.set(term, Math.max(merged.get(term) ?? Number.NEGATIVE_INFINITY, weight));
      this.#write(field, source, tool, merged);
    }
    if (words.size > 0) this.#changed();
  }

  /**
   * An explicit score for `tool` in `source`: a positive one raises the words the source taught
   * it to explicit weight, a negative one turns them into words taken away.
   */
  score(source: string, tool: string, score: number): void {
    const field = this.#loaded();
    const taught = field.contribution(source, tool);
    if (taught === undefined || score === 0) return;
    const weight = score > 0 ? EVIDENCE_WEIGHT.explicit : -EVIDENCE_WEIGHT.explicit;
    this.#write(field, source, tool, new Map([...taught.keys()].map((term) => [term, weight])));
    this.#changed();
  }

  /** Take away everything `sources` taught (a deleted conversation, a forgotten trajectory). */
  forget(sources: readonly string[]): void {
    const field = this.#loaded();
    let changed = false;
    for (const source of sources) {
      if (field.remove(source).length > 0) changed = true;
      run(this.#sql, "DELETE FROM learned_terms WHERE source = ?", source);
    }
    if (changed) this.#changed();
  }

  /** `tool`'s example requests teach it `weights`, replacing what its examples taught before (empty: they teach nothing). */
  replaceExamples(tool: string, weights: TermWeights): void {
    const field = this.#loaded();
    const source = exampleSource(tool);
    if (weights.size === 0 && field.contribution(source, tool) === undefined) return;
    this.#write(field, source, tool, new Map(weights));
    this.#changed();
  }

  /** Of `tools`, those whose example requests teach them words (a key lookup each: a catalog change asks without loading the field). */
  withExamples(tools: readonly string[]): Set<string> {
    const taught = (tool: string) => oneRow(this.#sql, "SELECT 1 AS found FROM learned_terms WHERE source = ? AND tool = ? LIMIT 1", exampleSource(tool), tool);
    return new Set(tools.filter((tool) => taught(tool) !== undefined));
  }

  /** `tools` (deleted, or their definitions changed) lose what their example requests taught them; what use taught stays. */
  forgetExamples(tools: readonly string[]): void {
    const taught = this.withExamples(tools);
    for (const tool of taught) this.replaceExamples(tool, new Map());
  }

  /** Every learned word of every tool is forgotten (the graph replaced by an import). */
  clear(): void {
    run(this.#sql, "DELETE FROM learned_terms");
    this.#field = undefined;
    this.#changed();
  }

  /** Tools whose learned field matches `text`, best first (BM25 over a catalog of `catalogSize`); with `excluding`, as if that source had taught nothing. */
  search(text: string, catalogSize: number, limit?: number, excluding?: string): Ranked[] {
    return this.#loaded().search(text, catalogSize, limit, excluding);
  }

  /**
   * The tools chosen where the words found nothing, most chosen first (first-step-prior.ts
   * unmatchedChoices); with `excluding`, as if that source had taught nothing.
   */
  unmatchedChoices(catalogSize: number, excluding?: string): string[] {
    const field = this.#loaded();
    if (field.empty) return [];
    const search = (text: string, size: number, limit: number, without?: string) => field.search(text, size, limit, without);
    if (excluding !== undefined) return unmatchedChoices(search, catalogSize, excluding);
    const cached = this.#unmatched;
    if (cached?.version === field.version && cached.catalogSize === catalogSize) return cached.tools;
    const tools = unmatchedChoices(search, catalogSize);
    this.#unmatched = { version: field.version, catalogSize, tools };
    return tools;
  }

  /**
   * The terms use taught `tool` (conversations, trajectories, marks, scores: every source but its
   * example requests), each with the weight use gave it; the pseudo-word left out.
   */
  termsFromUse(tool: string): Map<string, number> {
    const field = this.#loaded();
    const examples = field.contribution(exampleSource(tool), tool);
    const fromUse = new Map<string, number>();
    for (const { term, weight } of field.strongest(tool, Number.POSITIVE_INFINITY).terms) {
      // The field's weight is the sum over its sources (rounded to 0.001): what is left beyond the examples' share came from use.
      const used = weight - Math.max(0, examples?.get(term) ?? 0);
      if (used > 5e-4) fromUse.set(term, used);
    }
    return fromUse;
  }

  /** Whether no tool has learned a word. */
  get empty(): boolean {
    return this.#loaded().empty;
  }

  /** A tool's strongest learned words, and how many of its field's words use and example requests taught. */
  view(tool: string, count = 20): LearnedWordsView {
    const field = this.#loaded();
    const shown = field.strongest(tool, count);
    const all = field.strongest(tool, Number.POSITIVE_INFINITY);
    const examples = field.contribution(exampleSource(tool), tool);
    const fromExamples = { sources: examples === undefined ? 0 : 1, words: 0 };
    const fromUse = { sources: all.sources - fromExamples.sources, words: this.termsFromUse(tool).size };
    for (const { term } of all.terms) if ((examples?.get(term) ?? 0) > 0) fromExamples.words += 1;
    return { tool, ...shown, fromUse, fromExamples };
  }

  #write(field: LearnedField, source: string, tool: string, weights: Map<string, number>): void {
    run(this.#sql, "DELETE FROM learned_terms WHERE source = ? AND tool = ?", source, tool);
    const now = Date.now();
    for (const [term, weight] of weights) {
      run(this.#sql, "INSERT INTO learned_terms (source, tool, term, weight, learned_at) VALUES (?, ?, ?, ?, ?)", source, tool, term, weight, now);
    }
    // Old evidence fades: a tool past its bound of sources loses its oldest ones' rows.
    for (const faded of field.set(source, tool, weights)) run(this.#sql, "DELETE FROM learned_terms WHERE source = ? AND tool = ?", faded, tool);
  }
}
