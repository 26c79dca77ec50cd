/**
 * An open-addressing hash table from an index's terms to their ids, as one Int32Array: stored
 * beside the index (impact-index.ts `toParts`), a loaded index looks a query's terms up in it
 * instead of building a Map of every term first (tens of thousands at 10,000 tools, most of
 * what a load cost after the read). Each slot holds a term id + 1 (0: empty); collisions probe
 * the next slot. The terms themselves stay in the index's term list, which a lookup compares with.
 */

/** FNV-1a over the term's UTF-16 code units. */
function hashOf(term: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i += 1) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The table for `terms` (ids are positions): a power of two at least twice their number, so probes stay short. */
export function termSlots(terms: readonly string[]): Int32Array {
  let size = 2;
  while (size < terms.length * 2) size *= 2;
  const slots = new Int32Array(size);
  const mask = size - 1;
  terms.forEach((term, id) => {
    let slot = hashOf(term) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = id + 1;
  });
  return slots;
}

/** The id of `term` in `terms` by way of their `slots`; -1 when it is not one of them. */
export function termIdIn(slots: Int32Array, terms: readonly string[], term: string): number {
  return slotIdIn(slots, term, (id) => terms[id]);
}

/** `termIdIn` over keys read one at a time (`keyAt`: the key of an id, decoded when a probe meets it). */
export function slotIdIn(slots: Int32Array, key: string, keyAt: (id: number) => string | undefined): number {
  const mask = slots.length - 1;
  for (let slot = hashOf(key) & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot] ?? 0;
    if (entry === 0) return -1;
    if (keyAt(entry - 1) === key) return entry - 1;
  }
}
