import { LRUCache } from "lru-cache";
import type { StoredToolViews } from "./tenant-tool-views";

/**
 * Characters of view text (compact and required-only JSON, one-line description, shown
 * description) a tenant object keeps in memory: a catalog of 10,000 ordinary tools fits (about
 * 800 characters a tool, ≈ 7.4 MB of heap), and a bigger one, or one of long views, keeps its most
 * recently shown ones. Bounded so that a tenant's routing state stays well within the isolate's
 * 128 MB beside the index, graph and kept definitions (docs/operations.md, capacity).
 */
export const VIEWS_MEMORY_CHARS = 16_000_000;

/** What one remembered tool costs besides its text (the entry, its object and getters), counted as characters. */
const ENTRY_OVERHEAD_CHARS = 200;

/** A tool's views as shown with `description` (null: the registered one). */
export interface RememberedViews {
  description: string | null;
  views: StoredToolViews;
}

/** The characters an entry holds: its views' text and its shown description. */
function entryChars({ description, views }: RememberedViews, tool: string): number {
  const compact = views.compactJson?.length ?? JSON.stringify(views.compact).length;
  const requiredOnly = views.requiredOnlyJson?.length ?? JSON.stringify(views.requiredOnly).length;
  return ENTRY_OVERHEAD_CHARS + tool.length + (description?.length ?? 0) + compact + requiredOnly + views.line.length;
}

/**
 * The tool views a tenant object has read, by tool, within VIEWS_MEMORY_CHARS (least recently
 * used dropped first): an answer's tools are read from SQLite once, not at every step that shows
 * them. lru-cache does the bookkeeping.
 */
export class ViewsMemory {
  readonly #entries: LRUCache<string, RememberedViews>;

  constructor(maxChars = VIEWS_MEMORY_CHARS) {
    this.#entries = new LRUCache({ maxSize: maxChars, sizeCalculation: (entry, tool) => entryChars(entry, tool) });
  }

  /** The views of `tool` as shown with `description` (null: the registered one), if remembered. */
  get(tool: string, description: string | null): StoredToolViews | undefined {
    const remembered = this.#entries.get(tool);
    return remembered !== undefined && remembered.description === description ? remembered.views : undefined;
  }

  /** Whether `tool` is remembered, with any description; its place in the order is not touched. */
  has(tool: string): boolean {
    return this.#entries.has(tool);
  }

  set(tool: string, remembered: RememberedViews): void {
    this.#entries.set(tool, remembered);
  }

  delete(tool: string): void {
    this.#entries.delete(tool);
  }

  /** The characters `remembered` would hold as `tool`'s entry. */
  charsOf(tool: string, remembered: RememberedViews): number {
    return entryChars(remembered, tool);
  }

  /** Whether an entry of `chars` more characters would still fit without dropping any. */
  hasRoomFor(chars: number): boolean {
    return this.#entries.calculatedSize + chars <= this.#entries.maxSize;
  }

  /** Characters held now. */
  get chars(): number {
    return this.#entries.calculatedSize;
  }

  get size(): number {
    return this.#entries.size;
  }
}
