import { QueryTermIds } from "./analyze";

/**
 * A request's terms as the learned field's search reads them (`queryTerms`: its words' terms,
 * then their adjacent compounds'), each word's term remembered. Every first step analyses its
 * request for the own-text index too, which remembers its words as term ids of that index
 * (analyze.ts QueryTermIds); this is the same memo over a dictionary of the terms requests used,
 * so a route's second analysis is map lookups in a small map of words, not the stemmer's memo of
 * every word ever stemmed, and makes no object per word.
 */

/** Terms remembered before the dictionary (and the words' memo with it) starts again: a bound on memory in a long-lived object. */
const TERM_LIMIT = 50_000;

export class LearnedQueryTerms {
  #ids = new Map<string, number>();
  #terms: string[] = [];
  #words = this.#memo();
  /** The last answer's terms: reused by the next call (a search reads them before the next one starts). */
  readonly #scratch: string[] = [];

  /** `queryTerms(text)` followed by `extra`, in a list reused by the next call. */
  of(text: string, extra: string): readonly string[] {
    if (this.#terms.length >= TERM_LIMIT) {
      this.#ids = new Map();
      this.#terms = [];
      this.#words = this.#memo();
    }
    const ids = this.#words.of(text);
    const terms = this.#scratch;
    terms.length = ids.length + 1;
    for (let i = 0; i < ids.length; i += 1) terms[i] = this.#terms[ids[i] ?? 0] ?? "";
    terms[ids.length] = extra;
    return terms;
  }

  /** A words' memo whose ids number this dictionary's terms (a term is numbered when first met). */
  #memo(): QueryTermIds {
    return new QueryTermIds((term) => {
      let id = this.#ids.get(term);
      if (id === undefined) {
        id = this.#terms.length;
        this.#ids.set(term, id);
        this.#terms.push(term);
      }
      return id;
    });
  }
}
