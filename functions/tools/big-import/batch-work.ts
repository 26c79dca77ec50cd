import { refUnitPointer } from "./batch-document";

/** A `$ref` in JSON text, its value still escaped as JSON. */
const REF_IN_JSON = /"\$ref"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

/**
 * A big import's batch work, measured before the batch runs: each path item's JSON as the
 * importer dereferences it, every reference counted as the component's own dereferenced JSON, as
 * often as it occurs (a cycle is kept as a reference). So one batch of Microsoft Graph (every
 * schema reaching the base entity's ≈ 1,000 subtypes) is not seconds of work while one of small
 * operations is not tiny.
 */
export class BatchWork {
  readonly #component: (pointer: string) => string | undefined;
  /** Each component's dereferenced size, once measured. */
  readonly #expandedChars = new Map<string, number>();

  /** `component`: a component unit's JSON text by its pointer, undefined when there is none. */
  constructor(component: (pointer: string) => string | undefined) {
    this.#component = component;
  }

  /** How many of `paths`, from the first, make a batch whose measured work stays within `maxChars` (at least one path). */
  fitting(paths: readonly { text: string }[], maxChars: number): number {
    let chars = 0;
    for (const [taken, path] of paths.entries()) {
      chars += this.#dereferencedChars(path.text, new Set());
      if (chars > maxChars && taken > 0) return taken;
    }
    return paths.length;
  }

  /** `text`'s characters with every reference to a component replaced by that component's dereferenced JSON (memoised per component). */
  #dereferencedChars(text: string, open: Set<string>): number {
    let chars = text.length;
    for (const match of text.matchAll(REF_IN_JSON)) {
      const pointer = refUnitPointer(JSON.parse(`"${match[1]}"`) as string);
      if (pointer !== undefined) chars += this.#componentChars(pointer, open);
    }
    return chars;
  }

  #componentChars(pointer: string, open: Set<string>): number {
    const known = this.#expandedChars.get(pointer);
    if (known !== undefined) return known;
    const text = this.#component(pointer);
    if (text === undefined || open.has(pointer)) return text?.length ?? 0;
    open.add(pointer);
    const chars = this.#dereferencedChars(text, open);
    open.delete(pointer);
    this.#expandedChars.set(pointer, chars);
    return chars;
  }
}
