import { LRUCache } from "lru-cache";

/** How many task rankings a tenant object keeps: a chat's later steps route the task of its first step. */
export const RELEVANCE_MEMO_ENTRIES = 256;

/** The memo's keys together stay within this many characters (tasks are up to 10,000): ≈ 2 MB of heap at most. */
export const RELEVANCE_MEMO_CHARS = 1_000_000;

/** What a ranking was asked for: the task text, the ranking's depth and the embeddings model that embedded the task (if any). */
export interface RelevanceAsked {
  task: string;
  depth: number;
  model: string | undefined;
}

/**
 * Task rankings by what was asked, least recently used dropped first, each valid only for the
 * index version it was computed against: a chat routes the same task at every step, so its
 * later steps reuse the ranking its first step computed instead of searching the index again.
 * Answers are the same as computing afresh: a ranking depends only on the task, depth, model
 * and the index (and the model's tool vectors, whose owner clears the memo when they change).
 */
export class RelevanceMemo<Ranking> {
  // lru-cache: least recently used dropped first, bounded by entries and by the keys' characters.
  readonly #entries: LRUCache<string, { version: number; ranking: Ranking }>;

  constructor(maxEntries = RELEVANCE_MEMO_ENTRIES, maxChars = RELEVANCE_MEMO_CHARS) {
    this.#entries = new LRUCache({ max: maxEntries, maxSize: maxChars, sizeCalculation: (_entry, key) => Math.max(1, key.length) });
  }

  /** The ranking remembered for `asked` at index `version`, else `compute()`'s, remembered. */
  ranking(asked: RelevanceAsked, version: number, compute: () => Ranking): Ranking {
    const key = `${asked.depth}\u0000${asked.model ?? ""}\u0000${asked.task}`;
    const kept = this.#entries.get(key);
    if (kept !== undefined && kept.version === version) return kept.ranking;
    const ranking = compute();
    // A key longer than the whole bound is not kept (and one of another version is replaced).
    if (key.length <= this.#entries.maxSize) this.#entries.set(key, { version, ranking });
    else this.#entries.delete(key);
    return ranking;
  }

  /** How many rankings are kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Forgets every ranking (the tool vectors, or what decides which tools may lead, changed). */
  clear(): void {
    this.#entries.clear();
  }
}
