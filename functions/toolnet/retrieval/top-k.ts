import type { Ranked } from "./ranked";

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

/** Positions kept by `bestRanked`, best first; grown as needed and reused by every call (calls are synchronous). */
let keptScratch = new Int32Array(64);

/** Whether entry `i` ranks above entry `j`: the higher score, then the name first in order (sortRanked's order). */
function ranksAbove(names: ArrayLike<string>, scores: ArrayLike<number>, i: number, j: number): boolean {
  const a = scores[i] ?? 0;
  const b = scores[j] ?? 0;
  if (a !== b) return a > b;
  return (names[i] ?? "") < (names[j] ?? "");
}

/**
 * The best `limit` of `count` entries (`names[i]` scored `scores[i]`, names distinct), best first
 * in sortRanked's order (higher score, then name), as the only objects made: the same answer as
 * sorting every entry and keeping the first `limit`, without sorting (and comparing with a closure)
 * entries that cannot make it. Insertion into the kept few: the entries are tens.
 */
export function bestRanked(names: ArrayLike<string>, scores: ArrayLike<number>, count: number, limit: number): Ranked[] {
  const room = Math.max(0, Math.min(count, limit));
  if (keptScratch.length < room) keptScratch = new Int32Array(Math.max(room, 2 * keptScratch.length));
  const kept = keptScratch;
  let size = 0;
  for (let i = 0; i < count; i += 1) {
    if (size === room && (room === 0 || !ranksAbove(names, scores, i, kept[size - 1] ?? 0))) continue;
    let at = size < room ? size : size - 1;
    while (at > 0 && ranksAbove(names, scores, i, kept[at - 1] ?? 0)) {
      kept[at] = kept[at - 1] ?? 0;
      at -= 1;
    }
    kept[at] = i;
    if (size < room) size += 1;
  }
  const best = new Array<Ranked>(size);
  for (let r = 0; r < size; r += 1) {
    const i = kept[r] ?? 0;
    best[r] = { name: names[i] ?? "", score: scores[i] ?? 0 };
  }
  return best;
}
