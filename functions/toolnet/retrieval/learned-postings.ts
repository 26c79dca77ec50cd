import { type TermPostings, termFrequencyPart } from "./scored-field";
import { SlotList } from "./slot-list";

/** A list gets its positions by slot (`PostingList.positions`) once it holds one in this many of the slots it spans, and at least DENSE_FROM_SIZE. */
const DENSE_SHARE = 32;
const DENSE_FROM_SIZE = 32;

/**
 * One term's postings in the learned field (learned-field.ts): the tools' slots and the term's
 * weight in each, in flat arrays a search walks without a map lookup per posting, and what
 * bounds the term's best contribution (max-score.ts): the largest weight, the smallest field
 * length per unit of weight, and the largest share a tool's score keeps. A tool's length and
 * share only change when its field is posted again, so adding a posting raises the bounds at
 * once; removing one leaves them above the truth (safe: a bound may be loose, never low) until
 * the next search of the term tightens them again from the postings left.
 */
export class PostingList extends SlotList implements TermPostings {
  readonly weights: number[] = [];
  maxWeight = 0;
  minLengthPerWeight = Number.POSITIVE_INFINITY;
  maxShare = 0;
  /** A posting was removed since the bounds were made: they may be looser than they need be. */
  #loose = false;
  /** Postings added or removed so far: the term-frequency parts below hold for one count (and one average length). */
  #changes = 0;
  #parts = new Float64Array(0);
  #partsAt = { changes: -1, averageLength: Number.NaN };

  /**
   * Each slot's position in `slots` plus 1 (0: not held), by slot, while the list holds a large
   * share of the slots (a common term's): a search then finds a few tools' postings in it by
   * index, where a map lookup in thousands of entries would miss the CPU's caches. Undefined
   * for the other lists (an array by slot would cost more than they hold).
   */
  positions: Int32Array | undefined;
  /** The largest slot ever posted: what an array by slot spans. */
  #largestSlot = -1;

  /** Posts `slot` with `weight` (its field's length and share as they are now); a slot already posted must be deleted first. */
  post(slot: number, weight: number, length: number, share: number): void {
    const at = this.add(slot);
    this.weights.push(weight);
    this.#widen(weight, length, share);
    this.#changes += 1;
    if (slot > this.#largestSlot) this.#largestSlot = slot;
    if (this.positions === undefined) {
      if (this.size >= DENSE_FROM_SIZE && this.size * DENSE_SHARE > this.#largestSlot) this.#indexPositions();
    } else if (slot < this.positions.length) this.positions[slot] = at + 1;
    else if (this.#sparse()) this.positions = undefined;
    else this.#indexPositions();
  }

  override delete(slot: number): boolean {
    const held = super.delete(slot);
    if (held && this.positions !== undefined) {
      this.positions[slot] = 0;
      if (this.#sparse()) this.positions = undefined;
    }
    return held;
  }

  /** Below half the share that made the positions (fewer postings, or slots spread wider): they go, and are made again if the list grows back. */
  #sparse(): boolean {
    return this.size * DENSE_SHARE * 2 <= this.#largestSlot;
  }

  protected override moved(from: number, to: number): void {
    this.weights[to] = this.weights[from] ?? 0;
    this.weights.pop();
    this.#loose = true;
    this.#changes += 1;
    if (this.positions !== undefined) this.positions[this.slots[to] ?? 0] = to + 1;
  }

  #indexPositions(): void {
    // A quarter of room: slots are numbered as tools arrive, so a growing list spans more of them.
    const positions = new Int32Array(this.#largestSlot + 1 + ((this.#largestSlot + 1) >> 2));
    this.slots.forEach((slot, at) => {
      positions[slot] = at + 1;
    });
    this.positions = positions;
  }

  /**
   * Each posting's term-frequency part (max-score.ts `termFrequencyPart`), kept until a posting
   * is added or removed or the average length moves: every route's search walks the same lists,
   * and between two changes of the field only the IDF factor differs. A tool's length changes
   * only when its field is posted again, which removes and adds its postings here.
   */
  parts(averageLength: number, lengths: ArrayLike<number>): Float64Array {
    const at = this.#partsAt;
    if (at.changes === this.#changes && at.averageLength === averageLength) return this.#parts;
    const size = this.slots.length;
    if (this.#parts.length < size || this.#parts.length > 4 * size + 16) this.#parts = new Float64Array(size + (size >> 2));
    for (let p = 0; p < size; p += 1) this.#parts[p] = termFrequencyPart(this.weights[p] ?? 0, lengths[this.slots[p] ?? 0] ?? 0, averageLength);
    at.changes = this.#changes;
    at.averageLength = averageLength;
    return this.#parts;
  }

  /** Makes the bounds exact again for the postings left, after removals (each tool's length and share by slot). */
  tighten(lengths: ArrayLike<number>, shares: ArrayLike<number>): this {
    if (!this.#loose) return this;
    this.#loose = false;
    this.maxWeight = 0;
    this.minLengthPerWeight = Number.POSITIVE_INFINITY;
    this.maxShare = 0;
    this.slots.forEach((slot, i) => this.#widen(this.weights[i] ?? 0, lengths[slot] ?? 0, shares[slot] ?? 0));
    return this;
  }

  #widen(weight: number, length: number, share: number): void {
    if (weight > this.maxWeight) this.maxWeight = weight;
    if (length / weight < this.minLengthPerWeight) this.minLengthPerWeight = length / weight;
    if (share > this.maxShare) this.maxShare = share;
  }
}

/** Postings made for one search (a view of the fields without one source): their bounds from the postings themselves. */
export function postingsOf(slots: number[], weights: number[], lengths: ArrayLike<number>, shares: ArrayLike<number>): TermPostings {
  let maxWeight = 0;
  let minLengthPerWeight = Number.POSITIVE_INFINITY;
  let maxShare = 0;
  slots.forEach((slot, i) => {
    const weight = weights[i] ?? 0;
    maxWeight = Math.max(maxWeight, weight);
    minLengthPerWeight = Math.min(minLengthPerWeight, (lengths[slot] ?? 0) / weight);
    maxShare = Math.max(maxShare, shares[slot] ?? 0);
  });
  // Made for one search (off the request path): its parts are computed when asked.
  const parts = (averageLength: number, lengthsNow: ArrayLike<number>) =>
    Float64Array.from(slots, (slot, i) => termFrequencyPart(weights[i] ?? 0, lengthsNow[slot] ?? 0, averageLength));
  return { slots, weights, size: slots.length, maxWeight, minLengthPerWeight, maxShare, parts, positions: undefined };
}
