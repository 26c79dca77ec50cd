import { slotIdIn, termSlots } from "./term-slots";

/**
 * A list of names (tool names, index terms) stored as bytes a load reads without decoding them:
 * their UTF-8 bytes one after another, where each starts (and where the last ends), and a hash
 * table from a name to its position (term-slots.ts). A load makes one view per table; a name is
 * decoded when it is first asked for, by position or by a lookup that meets it. A cold route reads
 * a few of a big tenant's 10,000 tool names and tens of thousands of terms.
 */

/** The stored tables of a name list. */
export interface NameTables {
  /** Byte offset of each name in `bytes`, and the end of the last (names + 1 entries). */
  readonly offsets: Int32Array;
  /** The names' hash table: a position + 1 per slot, 0 when empty (a power of two slots). */
  readonly slots: Int32Array;
  readonly bytes: Uint8Array;
}

const utf8 = new TextDecoder();

/** The tables of `names` (each name once, none empty). */
export function nameTables(names: readonly string[]): NameTables {
  return { ...encodedNames(names), slots: termSlots(names) };
}

/**
 * The names' UTF-8 bytes one after another and where each starts: one encoder call for them all,
 * each name's length counted here (a call per name was most of a big index's save: Graph's
 * import stores 11,000 names and tens of thousands of terms at each of its ≈ 180 saves). A list
 * holding a UTF-16 surrogate is encoded name by name: a lone one becomes U+FFFD, and two names
 * side by side could join into one pair.
 */
function encodedNames(names: readonly string[]): { offsets: Int32Array; bytes: Uint8Array } {
  const encoder = new TextEncoder();
  const offsets = new Int32Array(names.length + 1);
  for (const [i, name] of names.entries()) {
    const length = utf8Length(name);
    if (length < 0) return encodedOneByOne(encoder, names);
    offsets[i + 1] = (offsets[i] ?? 0) + length;
  }
  return { offsets, bytes: encoder.encode(names.join("")) };
}

/** UTF-8 bytes of `text` without a surrogate; -1 when it holds one. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdfff) return -1;
    else bytes += 3;
  }
  return bytes;
}

function encodedOneByOne(encoder: TextEncoder, names: readonly string[]): { offsets: Int32Array; bytes: Uint8Array } {
  const encoded = names.map((name) => encoder.encode(name));
  const offsets = new Int32Array(names.length + 1);
  encoded.forEach((name, i) => (offsets[i + 1] = (offsets[i] ?? 0) + name.length));
  const bytes = new Uint8Array(offsets[names.length] ?? 0);
  encoded.forEach((name, i) => bytes.set(name, offsets[i] ?? 0));
  return { offsets, bytes };
}

/** Whether tables read back from storage hold together (a damaged value is refused, not read). */
export function wellFormedNames({ offsets, slots, bytes }: NameTables): boolean {
  const powerOfTwo = slots.length >= 2 && (slots.length & (slots.length - 1)) === 0;
  return offsets.length >= 1 && offsets[0] === 0 && offsets[offsets.length - 1] === bytes.length && powerOfTwo;
}

/** The names of stored tables, each decoded on first use. */
export class StoredNames {
  readonly count: number;
  readonly #tables: NameTables;
  readonly #decoded: (string | undefined)[] = [];

  constructor(tables: NameTables) {
    this.#tables = tables;
    this.count = tables.offsets.length - 1;
  }

  /** The name at `position` (0 ≤ position < count). */
  at(position: number): string {
    let name = this.#decoded[position];
    if (name === undefined) {
      const { offsets, bytes } = this.#tables;
      name = utf8.decode(bytes.subarray(offsets[position] ?? 0, offsets[position + 1] ?? 0));
      this.#decoded[position] = name;
    }
    return name;
  }

  /** A name's position; -1 when the list does not have it. */
  positionOf(name: string): number {
    return slotIdIn(this.#tables.slots, name, (position) => this.at(position));
  }

  /** Every name, in order (decodes those not decoded yet). */
  all(): string[] {
    return Array.from({ length: this.count }, (_, position) => this.at(position));
  }
}
