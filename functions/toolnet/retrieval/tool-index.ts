import type { SearchOptions } from "minisearch";
import { ImpactIndex, INDEX_FORMAT } from "./impact-index";
import { DEFAULT_TUNING, engineSearch, toSearchOptions, type RankingTuning } from "./minisearch-engine";
import type { Ranked } from "./ranked";
import type { CountsReader, PartReader } from "./stored-counts";
import type { SavedState } from "./impact-save";
import type { ToolDoc } from "./tool-document";

export { DEFAULT_TUNING, type RankingTuning } from "./minisearch-engine";

/**
 * Lexical (BM25) ranking of a tenant's tools for a task text: no model call, MiniSearch's scoring
 * computed from precomputed impacts accumulated term at a time, with exact rescoring of the best (impact-index.ts, impact-search.ts), well under
 * a millisecond at 10,000 tools (figures in bench/retrieval-quality.ts). Tools are added,
 * replaced and removed by name as the registry changes, and the index serialises to bytes so a
 * Durable Object can store it and load it instead of rebuilding (storage/routing-snapshots.ts).
 */

/** JSON-safe form of the index (its bytes in base64); the Durable Object stores the bytes themselves. */
export interface SerializedToolIndex {
  format: typeof INDEX_FORMAT;
  bytes: string;
}

/** Tuning of the fallback search for a task whose words match no tool exactly. */
const LOOSE_TUNING: Pick<RankingTuning, "prefixMinLength" | "fuzzyMinLength"> = { prefixMinLength: 4, fuzzyMinLength: 5 };

export class ToolIndex {
  readonly #index: ImpactIndex;
  /** Set when the tuning asks for prefix or fuzzy matching, which only MiniSearch does. */
  readonly #partialOptions: SearchOptions | undefined;
  readonly #looseOptions: SearchOptions;

  private constructor(index: ImpactIndex, tuning: RankingTuning) {
    this.#index = index;
    this.#partialOptions = tuning.prefixMinLength > 0 || tuning.fuzzyMinLength > 0 ? toSearchOptions(tuning) : undefined;
    this.#looseOptions = toSearchOptions({ ...tuning, ...LOOSE_TUNING });
  }

  /** Index of `docs`; a later doc with an already-seen name replaces the earlier one. */
  static build(docs: Iterable<ToolDoc>, tuning: Partial<RankingTuning> = {}): ToolIndex {
    const resolved = { ...DEFAULT_TUNING, ...tuning };
    const index = ImpactIndex.empty(resolved);
    for (const doc of docs) index.add(doc);
    return new ToolIndex(index, resolved);
  }

  /** Index restored from `toBytes()`; throws (asking for a rebuild) on another format. */
  static fromBytes(bytes: Uint8Array, tuning: Partial<RankingTuning> = {}): ToolIndex {
    const resolved = { ...DEFAULT_TUNING, ...tuning };
    return new ToolIndex(ImpactIndex.fromBytes(bytes, resolved), resolved);
  }

  /**
   * Index restored from `toParts()`: `search`'s small head now and a query term's postings when a
   * search first has it (byte ranges), `counts` (whole, or a term's byte ranges) only when first
   * needed; each must give the part stored with the other.
   */
  static fromParts(search: PartReader, counts: CountsReader, tuning: Partial<RankingTuning> = {}): ToolIndex {
    const resolved = { ...DEFAULT_TUNING, ...tuning };
    return new ToolIndex(ImpactIndex.fromParts(search, counts, resolved), resolved);
  }

  /** Index restored from `toJSON()` output (object or its JSON text); throws on another format. */
  static fromJSON(json: SerializedToolIndex | string, tuning: Partial<RankingTuning> = {}): ToolIndex {
    let data: unknown;
    try {
      data = typeof json === "string" ? JSON.parse(json) : json;
    } catch {
      data = undefined;
    }
    if (!isSerialized(data)) throw new Error(`not a serialised tool index of format ${INDEX_FORMAT}; rebuild it from the tools`);
    return ToolIndex.fromBytes(fromBase64(data.bytes), tuning);
  }

  /** Number of tools in the index. */
  get size(): number {
    return this.#index.size;
  }

  /** Changes since this index was made or loaded (tools added, replaced or removed): equal versions of one index search alike. */
  get version(): number {
    return this.#index.version;
  }

  /** True when a tool of this name is indexed. */
  has(name: string): boolean {
    return this.#index.has(name);
  }

  /** Names of the indexed tools. */
  names(): string[] {
    return this.#index.names();
  }

  /** Adds a tool, or replaces the indexed tool of the same name. */
  add(doc: ToolDoc): void {
    this.#index.add(doc);
  }

  /** Removes a tool by name; false when it was not indexed. */
  remove(name: string): boolean {
    return this.#index.remove(name);
  }

  /** The `k` tools most relevant to `text`, best first; empty when no word of `text` is indexed. */
  search(text: string, k = 10): Ranked[] {
    if (this.#partialOptions !== undefined) return engineSearch(this.#index.looseEngine(), text, k, this.#partialOptions);
    return this.#index.search(text, k);
  }

  /** `search`, with each ranked tool's impact per distinct word of `text` (which of the task's words it matches). */
  searchMatching(text: string, k = 10): { ranked: Ranked[]; impacts: Float64Array[] } {
    if (this.#partialOptions === undefined) return this.#index.searchMatching(text, k);
    const ranked = this.search(text, k);
    return {
      ranked,
      impacts: this.#index.termImpacts(
        text,
        ranked.map((r) => r.name),
      ),
    };
  }

  /** Each tool's impact per distinct word of `text` (ImpactIndex.termImpacts): which of the task's words each tool answers. */
  termImpacts(text: string, names: readonly string[]): Float64Array[] {
    return this.#index.termImpacts(text, names);
  }

  /**
   * Partial matching for a task none of whose words is indexed as such: words also match the
   * index terms they begin ("direct" → "director") or nearly spell (20% edits).
   */
  looseSearch(text: string, k = 10): Ranked[] {
    return engineSearch(this.#index.looseEngine(), text, k, this.#looseOptions);
  }

  /** The index as bytes, for storage; restore with `ToolIndex.fromBytes`. */
  toBytes(): Uint8Array {
    return this.#index.toBytes();
  }

  /** The index as two parts for storage: what a search reads, and the raw term counts it rarely needs; restore with `ToolIndex.fromParts`. */
  toParts(): { search: Uint8Array; counts: Uint8Array } {
    return this.#index.toParts();
  }

  /** What `toParts` encodes, as of now, for a save in pieces (impact-save.ts `partsInPieces`). */
  savedState(): SavedState {
    return this.#index.savedState();
  }

  /** JSON-safe snapshot of the index; restore with `ToolIndex.fromJSON`. */
  toJSON(): SerializedToolIndex {
    return { format: INDEX_FORMAT, bytes: toBase64(this.toBytes()) };
  }
}

function isSerialized(data: unknown): data is SerializedToolIndex {
  if (typeof data !== "object" || data === null) return false;
  const record = data as Record<string, unknown>;
  return record.format === INDEX_FORMAT && typeof record.bytes === "string";
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
