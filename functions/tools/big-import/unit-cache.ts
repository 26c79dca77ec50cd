import { collectRefUnits } from "./batch-document";

/**
 * Component units read for earlier batches, as text with the units they reference, least recently
 * used dropped first once their text passes `maxChars`. Text, not parsed values: the importer
 * rewrites what it is given, so each batch parses its own copy, and text is the compact form.
 */
export class UnitCache {
  readonly #maxChars: number;
  readonly #entries = new Map<string, { text: string; refs: string[] }>();
  #chars = 0;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** The unit at `pointer`, read with `load` when not cached; undefined when there is none. */
  get(pointer: string, load: () => string | undefined): { text: string; refs: string[] } | undefined {
    const cached = this.#entries.get(pointer);
    if (cached !== undefined) {
      this.#entries.delete(pointer);
      this.#entries.set(pointer, cached);
      return cached;
    }
    const text = load();
    if (text === undefined) return undefined;
    const refs = new Set<string>();
    collectRefUnits(JSON.parse(text) as unknown, refs);
    const entry = { text, refs: [...refs] };
    this.#entries.set(pointer, entry);
    this.#chars += text.length;
    for (const [key, old] of this.#entries) {
      if (this.#chars <= this.#maxChars) break;
      this.#entries.delete(key);
      this.#chars -= old.text.length;
    }
    return entry;
  }
}
