/**
 * Single feedback updates that reach the tenant object together share their writes, and a lone
 * update waits for nothing. An update that finds no burst under way is applied at once, in its
 * own turn, and opens a window that lasts until the object's current turn ends (a zero-delay
 * timer). Updates that arrive while the window is open wait in a queue; when it closes, the whole
 * queue is applied in arrival order in one transaction, and each re-scored tool is written once
 * (`applyEach`), however many of the updates scored it. A window that carried updates opens the
 * next one, so a sustained burst keeps sharing writes; the first window that carries none closes
 * the burst, and the next update is applied at once again.
 *
 * Every update keeps its own outcome (one refused update does not refuse the others), and is
 * answered only after its scores are written, so an acknowledged update is never lost; an
 * eviction before the flush answers none of the waiting ones.
 */
export class FeedbackCoalescer<Item, Result> {
  readonly #applyEach: (items: readonly Item[]) => readonly Result[];
  readonly #schedule: (flush: () => void) => void;
  #queue: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  /** A window is open: updates arriving now join the next flush instead of writing on their own. */
  #burst = false;

  /**
   * `applyEach` applies items in order and writes once (one transaction; one result per item);
   * `schedule` runs the flush after the updates already delivered to the object (a zero-delay timer).
   */
  constructor(applyEach: (items: readonly Item[]) => readonly Result[], schedule: (flush: () => void) => void) {
    this.#applyEach = applyEach;
    this.#schedule = schedule;
  }

  /** Applies one update at once, or queues it while a burst is under way; resolves with its own result once written. */
  submit(item: Item): Promise<Result> {
    if (!this.#burst) {
      this.#openWindow();
      try {
        return Promise.resolve(this.#resultOf(this.#applyEach([item]), 0));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<Result>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
    });
  }

  #openWindow(): void {
    this.#burst = true;
    this.#schedule(() => this.#flush());
  }

  #flush(): void {
    const waiting = this.#queue;
    this.#queue = [];
    if (waiting.length === 0) {
      this.#burst = false;
      return;
    }
    // Updates came while the window was open: keep one open for the ones still on their way.
    this.#openWindow();
    try {
      const results = this.#applyEach(waiting.map((entry) => entry.item));
      waiting.forEach((entry, i) => {
        try {
          entry.resolve(this.#resultOf(results, i));
        } catch (error) {
          entry.reject(error);
        }
      });
    } catch (error) {
      for (const entry of waiting) entry.reject(error);
    }
  }

  #resultOf(results: readonly Result[], index: number): Result {
    const result = results[index];
    if (result === undefined) throw new Error("feedback flush gave no result for an update");
    return result;
  }
}
