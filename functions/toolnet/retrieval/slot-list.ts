/**
 * A set of slots (numbered tools or tasks) in a flat array a search walks without a lookup per
 * element, with removal in constant time: the last slot moves into the hole, and subclasses
 * keeping arrays in parallel move their element with it (`moved`).
 */
export class SlotList {
  readonly slots: number[] = [];
  /** Slot → its position in `slots`. */
  readonly #at = new Map<number, number>();

  get size(): number {
    return this.slots.length;
  }

  has(slot: number): boolean {
    return this.#at.has(slot);
  }

  /** Adds `slot` (not held yet) at the end; returns its position. */
  add(slot: number): number {
    this.#at.set(slot, this.slots.length);
    this.slots.push(slot);
    return this.slots.length - 1;
  }

  /** Removes `slot`; false when it was not held. */
  delete(slot: number): boolean {
    const at = this.#at.get(slot);
    if (at === undefined) return false;
    const last = this.slots.length - 1;
    const lastSlot = this.slots[last] ?? slot;
    this.slots[at] = lastSlot;
    this.#at.set(lastSlot, at);
    this.moved(last, at);
    this.slots.pop();
    this.#at.delete(slot);
    return true;
  }

  /** The element at position `from` (the last) now sits at `to`, and `from` is gone: parallel arrays follow. */
  protected moved(_from: number, _to: number): void {}
}
