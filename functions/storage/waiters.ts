/**
 * Callers of one object waiting, each up to its own time limit, for something keyed to happen
 * (a job reaching a final state). Held in memory only: what is stored stays the truth, so a
 * caller reads the stored state after its wait, and an eviction merely ends waits early.
 *
 * A wake never settles a waiter's promise (issue 42). The job that ends is the alarm's work, a
 * request context of its own; a long-poll's promise resolved from it made workerd log "A promise
 * was resolved or rejected from a different request context" (deployed, such a promise can hang
 * or throw). So a wake only marks the key, and each waiter looks at the mark from timers it armed
 * itself, every `WAKE_LOOK_MS`, as run turns do (services/run-turns.ts).
 */

/** How often a waiter looks whether it was woken (ms): the most a wake-up is late by. */
export const WAKE_LOOK_MS = 25;

export class Waiters {
  /** Per key with callers waiting: how many wait, and how many wakes there were while they did. */
  readonly #keys = new Map<string, { waiting: number; wakes: number }>();

  /** Resolves true when `wake(key)` is called within `ms` (seen from this caller's own timer), false when `ms` ran out first. */
  async wait(key: string, ms: number): Promise<boolean> {
    const entry = this.#keys.get(key) ?? { waiting: 0, wakes: 0 };
    this.#keys.set(key, entry);
    entry.waiting += 1;
    const wakesBefore = entry.wakes;
    const deadline = Date.now() + Math.max(0, ms);
    try {
      for (;;) {
        if (entry.wakes !== wakesBefore) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, WAKE_LOOK_MS)));
      }
    } finally {
      entry.waiting -= 1;
      if (entry.waiting === 0 && this.#keys.get(key) === entry) this.#keys.delete(key);
    }
  }

  /** Marks `key` woken: every caller waiting on it sees so at its next look. */
  wake(key: string): void {
    const entry = this.#keys.get(key);
    if (entry !== undefined) entry.wakes += 1;
  }

  /** How many callers are waiting on `key`. */
  waiting(key: string): number {
    return this.#keys.get(key)?.waiting ?? 0;
  }
}
