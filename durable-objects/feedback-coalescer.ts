/**
 * Single feedback updates that reach the tenant object together share their writes: each waits
 * in a queue until the object's current turn ends, then the whole queue is applied in arrival
 * order in one transaction, and each re-scored tool is written once (`applyEach`), however many
 * of the updates scored it. Every update keeps its own outcome (one refused update does not
 * refuse the others), and is answered only after its scores are written, so an acknowledged
 * update is never lost; an eviction before the flush answers none of the waiting ones.
 */
export class FeedbackCoalescer<Item, Result> {
  readonly #applyEach: (items: readonly Item[]) => readonly Result[];
  readonly #schedule: (flush: () => void) => void;
  #queue: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];

  /**
   * `applyEach` applies items in order and writes once (one transaction; one result per item);
   * `schedule` runs the flush after the updates already delivered to the object (a zero-delay timer).
   */
  constructor(applyEach: (items: readonly Item[]) => readonly Result[], schedule: (flush: () => void) => void) {
    this.#applyEach = applyEach;
    this.#schedule = schedule;
  }

  /** Queues one update; resolves with its own result once the flush that carries it is written. */
  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#queue.length === 1) this.#schedule(() => this.#flush());
    });
  }

  #flush(): void {
    const waiting = this.#queue;
    this.#queue = [];
    try {
      const results = this.#applyEach(waiting.map((entry) => entry.item));
      waiting.forEach((entry, i) => {
        const result = results[i];
        if (result === undefined) entry.reject(new Error("feedback flush gave no result for an update"));
        else entry.resolve(result);
      });
    } catch (error) {
      for (const entry of waiting) entry.reject(error);
    }
  }
}
