/**
 * Partial sums by slot (a search's accumulator over numbered tools or tasks), reused by every
 * search: searches are synchronous, so one buffer serves them all. A slot's sum counts only when
 * its stamp is the current search's, so nothing is cleared between searches; a slot can be
 * dropped (stamped `DROPPED`) and is then no longer met.
 */
export interface SlotSums {
  sums: Float64Array;
  stamps: Uint32Array;
  /** The current search's stamp (never `DROPPED`). */
  stamp: number;
}

export const DROPPED = 0;

const scratch: SlotSums = { sums: new Float64Array(0), stamps: new Uint32Array(0), stamp: DROPPED };

/** The shared sums, ready for a search over `slotCount` slots: no slot is met yet. */
export function freshSums(slotCount: number): SlotSums {
  if (scratch.sums.length < slotCount) {
    scratch.sums = new Float64Array(Math.max(slotCount, 2 * scratch.sums.length));
    scratch.stamps = new Uint32Array(scratch.sums.length);
    scratch.stamp = DROPPED;
  }
  scratch.stamp += 1;
  if (scratch.stamp >= 0xffffffff) {
    scratch.stamps.fill(DROPPED);
    scratch.stamp = DROPPED + 1;
  }
  return scratch;
}
