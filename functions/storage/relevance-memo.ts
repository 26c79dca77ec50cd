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
  readonly #entries = new Map<string, { version: number; ranking: Ranking }>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  constructor(maxEntries = RELEVANCE_MEMO_ENTRIES, maxChars = RELEVANCE_MEMO_CHARS) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  /** The ranking remembered for `asked` at index `version`, else `compute()`'s, remembered. */
  ranking(asked: RelevanceAsked, version: number, compute: () => Ranking): Ranking {
    const key = `${asked.depth}\u0000${asked.model ?? ""}\u0000${asked.task}`;
    const kept = this.#entries.get(key);
    if (kept !== undefined) {
      this.#drop(key);
      if (kept.version === version) {
        // Most recently used last: the map's order is the eviction order.
        this.#keep(key, kept);
        return kept.ranking;
      }
    }
    const ranking = compute();
    if (key.length <= this.#maxChars) this.#keep(key, { version, ranking });
    return ranking;
  }

  /** How many rankings are kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Forgets every ranking (the tool vectors, or what decides which tools may lead, changed). */
  clear(): void {
    this.#entries.clear();
    this.#chars = 0;
  }

  #keep(key: string, entry: { version: number; ranking: Ranking }): void {
    while (this.#entries.size > 0 && (this.#entries.size >= this.#maxEntries || this.#chars + key.length > this.#maxChars)) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#drop(oldest);
    }
    this.#entries.set(key, entry);
    this.#chars += key.length;
  }

  #drop(key: string): void {
    if (this.#entries.delete(key)) this.#chars -= key.length;
  }
}
