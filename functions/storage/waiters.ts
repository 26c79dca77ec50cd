/**
 * Callers of one object waiting, each up to its own time limit, for something keyed to happen
 * (a job reaching a final state). Held in memory only: what is stored stays the truth, so a
 * caller reads the stored state after its wait, and an eviction merely ends waits early.
 */
export class Waiters {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Resolves true when `wake(key)` is called within `ms`, false when `ms` ran out first. */
  wait(key: string, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(key) ?? new Set<() => void>();
      this.#waiting.set(key, waiters);
      const end = (woken: boolean): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.#waiting.get(key) === waiters) this.#waiting.delete(key);
        resolve(woken);
      };
      const wake = (): void => end(true);
      const timer = setTimeout(() => end(false), Math.max(0, ms));
      waiters.add(wake);
    });
  }

  /** Wake every caller waiting on `key`. */
  wake(key: string): void {
    const waiters = this.#waiting.get(key);
    if (waiters === undefined) return;
    this.#waiting.delete(key);
    for (const wake of [...waiters]) wake();
  }

  /** How many callers are waiting on `key` (their timers are pending until woken or run out). */
  waiting(key: string): number {
    return this.#waiting.get(key)?.size ?? 0;
  }
}
