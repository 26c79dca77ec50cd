import type { NameAnswer, NameResolver } from "./types";

/**
 * Remembers a resolver's answers for a while, so that a tool called again and again is looked up
 * once a minute, not once a call: positive and negative answers alike, for `ttlMs`; at most
 * `maxEntries` names (the oldest answer goes first). "Cannot tell" (undefined, or a resolver that
 * throws) is never remembered. Concurrent lookups of one name each ask: the service's isolate
 * serves many requests, and a request awaiting a promise another request's I/O settles is
 * cancelled when that other request ends first (workerd's cross-request promise rule).
 */

export interface NameCacheOptions {
  ttlMs: number;
  maxEntries: number;
  /** Milliseconds; injectable so expiry can be tested without waiting. */
  now?: () => number;
}

export class NameCache {
  readonly #answers = new Map<string, { resolves: NameAnswer; until: number }>();
  readonly #options: NameCacheOptions;

  constructor(options: NameCacheOptions) {
    this.#options = options;
  }

  /** How many answers are held (expired ones included until they are next asked for or pushed out). */
  get size(): number {
    return this.#answers.size;
  }

  /** `resolve`'s answer for `name`, from memory while it is fresh. */
  lookup(name: string, resolve: NameResolver): Promise<NameAnswer | undefined> {
    const now = (this.#options.now ?? Date.now)();
    const known = this.#answers.get(name);
    if (known !== undefined && known.until > now) return Promise.resolve(known.resolves);
    if (known !== undefined) this.#answers.delete(name);
    return resolve(name)
      .catch(() => undefined)
      .then((resolves) => {
        if (resolves !== undefined) this.#remember(name, resolves);
        return resolves;
      });
  }

  #remember(name: string, resolves: NameAnswer): void {
    this.#answers.delete(name); // re-inserted last: Map order is the age order
    while (this.#answers.size >= this.#options.maxEntries) {
      const oldest = this.#answers.keys().next().value;
      if (oldest === undefined) break;
      this.#answers.delete(oldest);
    }
    this.#answers.set(name, { resolves, until: (this.#options.now ?? Date.now)() + this.#options.ttlMs });
  }
}
