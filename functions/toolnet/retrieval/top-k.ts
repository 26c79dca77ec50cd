import { BinaryHeap } from "../graph/binary-heap";
import { sortRanked, type Ranked } from "./ranked";

/** True when `a` ranks below `b`: lower score, or the same score and a later name. */
function worse(a: Ranked, b: Ranked): boolean {
  return a.score < b.score || (a.score === b.score && a.name > b.name);
}

/** The best `k` of the tools offered, in the order sortRanked gives (score, then name). */
export class TopK {
  readonly #k: number;
  // The worst kept tool on top, so a better one replaces it in O(log k).
  readonly #heap = new BinaryHeap<Ranked>(worse);

  constructor(k: number) {
    this.#k = k;
  }

  get full(): boolean {
    return this.#heap.size >= this.#k;
  }

  /** Score of the worst kept tool (−∞ while fewer than k are kept). */
  get worstScore(): number {
    return this.full ? (this.#heap.peek()?.score ?? -Infinity) : -Infinity;
  }

  /** Keeps the tool when it is among the best k so far; true when kept. */
  offer(score: number, name: string): boolean {
    const candidate = { name, score };
    if (!this.full) {
      this.#heap.push(candidate);
      return true;
    }
    const worst = this.#heap.peek();
    if (worst === undefined || !worse(worst, candidate)) return false;
    this.#heap.pop();
    this.#heap.push(candidate);
    return true;
  }

  sorted(): Ranked[] {
    const out: Ranked[] = [];
    for (let item = this.#heap.pop(); item !== undefined; item = this.#heap.pop()) out.push(item);
    return sortRanked(out);
  }
}
