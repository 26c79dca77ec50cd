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

/**
 * The slots a search has met, in the order met (the first `count` of `slots`): kept from search
 * to search like the sums, so a search that meets thousands of tools or tasks allocates nothing
 * for them; pruning drops slots by compacting it in place (`keepMet`).
 */
export interface MetSlots {
  slots: Int32Array;
  count: number;
}

const metScratch: MetSlots = { slots: new Int32Array(0), count: 0 };

/** The shared list of met slots, empty, for up to `slotCount` slots. */
export function freshMet(slotCount: number): MetSlots {
  if (metScratch.slots.length < slotCount) metScratch.slots = new Int32Array(Math.max(slotCount, 2 * metScratch.slots.length));
  metScratch.count = 0;
  return metScratch;
}

/** Keeps, in order and in place, the met slots `keep` accepts; the others are stamped `DROPPED` in `acc`. */
export function keepMet(met: MetSlots, acc: SlotSums, keep: (slot: number) => boolean): void {
  const { slots } = met;
  let kept = 0;
  for (let m = 0; m < met.count; m += 1) {
    const slot = slots[m] ?? 0;
    if (keep(slot)) {
      slots[kept] = slot;
      kept += 1;
    } else acc.stamps[slot] = DROPPED;
  }
  met.count = kept;
}
