import type { TermPostings } from "./max-score";
import { SlotList } from "./slot-list";

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

  /** Posts `slot` with `weight` (its field's length and share as they are now); a slot already posted must be deleted first. */
  post(slot: number, weight: number, length: number, share: number): void {
    this.add(slot);
    this.weights.push(weight);
    this.#widen(weight, length, share);
  }

  protected override moved(from: number, to: number): void {
    this.weights[to] = this.weights[from] ?? 0;
    this.weights.pop();
    this.#loose = true;
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
  return { slots, weights, size: slots.length, maxWeight, minLengthPerWeight, maxShare };
}
