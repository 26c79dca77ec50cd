import { splitWords } from "../../functions/toolnet/retrieval/analyze";
import { termOf } from "../../functions/toolnet/retrieval/analyze";
import { TOOL_DOC_FIELDS, type ToolDoc, type ToolDocField } from "../../functions/toolnet/retrieval/tool-document";

/** Each tool's index terms with a field-weighted count, and how many tools have each term (the forward view feedback reads). */
export class DocumentTerms {
  readonly #terms = new Map<string, Map<string, { word: string; count: number }>>();
  readonly #having = new Map<string, number>();

  constructor(docs: readonly ToolDoc[], boosts: Readonly<Partial<Record<ToolDocField, number>>>) {
    for (const doc of docs) {
      const terms = new Map<string, { word: string; count: number }>();
      for (const field of TOOL_DOC_FIELDS) {
        const boost = boosts[field] ?? 0;
        if (boost <= 0) continue;
        for (const word of splitWords(doc[field])) {
          const term = termOf(word);
          if (term === null) continue;
          const known = terms.get(term);
          if (known === undefined) terms.set(term, { word, count: boost });
          else known.count += boost;
        }
      }
      this.#terms.set(doc.name, terms);
      for (const term of terms.keys()) this.#having.set(term, (this.#having.get(term) ?? 0) + 1);
    }
  }

  of(name: string): ReadonlyMap<string, { word: string; count: number }> {
    return this.#terms.get(name) ?? new Map();
  }

  having(term: string): number {
    return this.#having.get(term) ?? 0;
  }
}
