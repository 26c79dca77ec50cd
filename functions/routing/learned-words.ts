import { EVIDENCE_WEIGHT } from "../toolnet/learned-attribution";
import { LearnedField, type LearnedTerm, type TermWeights } from "../toolnet/retrieval/learned-field";
import type { Ranked } from "../toolnet/retrieval";
import { allRows, run } from "../storage/sql";

interface TermRow {
  source: string;
  tool: string;
  term: string;
  weight: number;
}

/** A tool's learned words as the API shows them: its strongest terms, and from how many conversations and trajectories. */
export interface LearnedWordsView {
  tool: string;
  sources: number;
  terms: LearnedTerm[];
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

  /** Whether no tool has learned a word. */
  get empty(): boolean {
    return this.#loaded().empty;
  }

  /** A tool's strongest learned words. */
  view(tool: string, count = 20): LearnedWordsView {
    return { tool, ...this.#loaded().strongest(tool, count) };
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
