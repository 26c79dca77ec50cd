/** The best `k` numbers offered (a min-heap of size k): the k-th best is `worst` once `full`. */
export class TopScores {
  readonly #k: number;
  readonly #heap: Float64Array;
  #size = 0;

  constructor(k: number) {
    this.#k = k;
    this.#heap = new Float64Array(Math.max(1, k));
  }

  /** How many numbers it keeps. */
  get k(): number {
    return this.#k;
  }

  /** Empty again (a search reuses one instead of making a new one each time); returns itself. */
  cleared(): this {
    this.#size = 0;
    return this;
  }

  get full(): boolean {
    return this.#size >= this.#k;
  }

  /** The smallest kept number (−∞ when none is kept). */
  get worst(): number {
    return this.#size === 0 ? -Infinity : (this.#heap[0] ?? -Infinity);
  }

  offer(value: number): void {
    const heap = this.#heap;
    if (this.#size < this.#k) {
      let i = this.#size;
      this.#size += 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((heap[parent] ?? 0) <= value) break;
        heap[i] = heap[parent] ?? 0;
        i = parent;
      }
      heap[i] = value;
      return;
    }
    if (value <= (heap[0] ?? 0)) return;
    // Replace the smallest and sift down.
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.#size) break;
      const right = left + 1;
      const child = right < this.#size && (heap[right] ?? 0) < (heap[left] ?? 0) ? right : left;
      if ((heap[child] ?? 0) >= value) break;
      heap[i] = heap[child] ?? 0;
      i = child;
    }
    heap[i] = value;
  }
}
