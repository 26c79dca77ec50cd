import { TOOL_DOC_FIELDS } from "./tool-document";

/**
 * The impact index's stored layout: its typed arrays, the JSON header beside them, and their
 * bytes (a header length, the header, then each array 8-byte aligned, so a load is views into one
 * buffer). What the arrays mean is the business of impact-index.ts and its
 * search and rebuild (impact-search.ts, impact-rebuild.ts); this module only keeps them.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** The arrays that make the index; views into one buffer when loaded from bytes. */
export interface Arrays {
  /** Field lengths (distinct words) by tool id × field. */
  fieldLengths: Int32Array;
  avgFieldLength: Float64Array;
  /** Term frequencies grouped by term × field: rawOffsets[t × FIELDS + f] … rawOffsets[t × FIELDS + f + 1]. */
  rawOffsets: Int32Array;
  rawDocs: Int32Array;
  rawTfs: Int32Array;
  /**
   * Impacts grouped by term, tool ids ascending: impactOffsets[t] … impactOffsets[t + 1]. For a
   * term stored as its exceptions (defaultImpact[t] > 0), the list holds only the tools whose
   * impact is not the default, with 0 for a tool the term does not match.
   */
  impactOffsets: Int32Array;
  impactDocs: Int32Array;
  impacts: Float64Array;
  /**
   * The impact most tools have for a term found in more than half of them with one impact (an
   * action verb of most tools, say), else 0. Impacts are positive, so 0 marks a term stored as its
   * postings.
   */
  defaultImpact: Float64Array;
}

const ARRAY_KINDS = {
  fieldLengths: Int32Array,
  avgFieldLength: Float64Array,
  rawOffsets: Int32Array,
  rawDocs: Int32Array,
  rawTfs: Int32Array,
  impactOffsets: Int32Array,
  impactDocs: Int32Array,
  impacts: Float64Array,
  defaultImpact: Float64Array,
} as const;
export type ArrayName = keyof typeof ARRAY_KINDS;
export const ARRAY_NAMES = Object.keys(ARRAY_KINDS) as ArrayName[];

export interface Header {
  format: string;
  /** Scoring the impacts were computed with; another tuning recomputes them from the term counts. */
  scoring: string;
  names: (string | null)[];
  terms: string[];
  count: number;
  lengths: Record<ArrayName, number>;
  /** Slots of the term table stored after the arrays (term-slots.ts), when there is one. */
  termSlots?: number;
}

/** The arrays of an index without tools. */
export function emptyArrays(): Arrays {
  return {
    fieldLengths: new Int32Array(0),
    avgFieldLength: new Float64Array(FIELDS),
    rawOffsets: new Int32Array(1),
    rawDocs: new Int32Array(0),
    rawTfs: new Int32Array(0),
    impactOffsets: new Int32Array(1),
    impactDocs: new Int32Array(0),
    impacts: new Float64Array(0),
    defaultImpact: new Float64Array(0),
  };
}

function align(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

/** `header` and `arrays` as bytes: a 4-byte header length, the JSON header, then the typed arrays, each 8-byte aligned, and the term table if given. */
export function encodeLayout(header: Header, arrays: Arrays, termSlots?: Int32Array): Uint8Array {
  const headerBytes = new TextEncoder().encode(JSON.stringify(termSlots === undefined ? header : { ...header, termSlots: termSlots.length }));
  let size = align(4 + headerBytes.length);
  for (const name of ARRAY_NAMES) size += align(arrays[name].byteLength);
  if (termSlots !== undefined) size += termSlots.byteLength;
  const bytes = new Uint8Array(size);
  new DataView(bytes.buffer).setUint32(0, headerBytes.length, true);
  bytes.set(headerBytes, 4);
  let offset = align(4 + headerBytes.length);
  for (const name of ARRAY_NAMES) {
    const array = arrays[name];
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offset);
    offset += align(array.byteLength);
  }
  if (termSlots !== undefined) bytes.set(new Uint8Array(termSlots.buffer, termSlots.byteOffset, termSlots.byteLength), offset);
  return bytes;
}

/** The header and arrays (views into the bytes) of `encodeLayout`'s output; throws, asking for a rebuild, on another `format` or damaged bytes. */
export function decodeLayout(input: Uint8Array, format: string): { header: Header; arrays: Arrays; termSlots?: Int32Array } {
  const refuse = (why: string): Error => new Error(`not a stored tool index of format ${format} (${why}); rebuild it from the tools`);
  // Typed-array views need aligned offsets: copy when the bytes do not start on an 8-byte boundary.
  const bytes = input.byteOffset % 8 === 0 ? input : input.slice();
  if (bytes.byteLength < 4) throw refuse("too short");
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (4 + headerLength > bytes.byteLength) throw refuse("truncated header");
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as Header;
  } catch {
    throw refuse("unreadable header");
  }
  if (typeof header !== "object" || header === null || header.format !== format) throw refuse("another format");
  const offsets = arrayOffsets(header, headerLength);
  const arrays = {} as Record<ArrayName, Int32Array | Float64Array>;
  for (const name of ARRAY_NAMES) {
    const Kind = ARRAY_KINDS[name];
    const length = header.lengths[name];
    if (!Number.isInteger(length) || offsets[name] + length * Kind.BYTES_PER_ELEMENT > bytes.byteLength) throw refuse("truncated arrays");
    arrays[name] = new Kind(bytes.buffer as ArrayBuffer, bytes.byteOffset + offsets[name], length);
  }
  const offset = offsets.end;
  const slots = header.termSlots;
  if (slots === undefined) return { header, arrays: arrays as unknown as Arrays };
  if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0 || offset + slots * 4 > bytes.byteLength) throw refuse("truncated term table");
  return { header, arrays: arrays as unknown as Arrays, termSlots: new Int32Array(bytes.buffer as ArrayBuffer, bytes.byteOffset + offset, slots) };
}

/** Where each array starts in bytes laid out by encodeLayout with `header` (its JSON `headerLength` bytes long), and where the arrays end. */
export function arrayOffsets(header: Header, headerLength: number): Record<ArrayName | "end", number> {
  let offset = align(4 + headerLength);
  const offsets = {} as Record<ArrayName | "end", number>;
  for (const name of ARRAY_NAMES) {
    offsets[name] = offset;
    offset += align((header.lengths[name] ?? 0) * ARRAY_KINDS[name].BYTES_PER_ELEMENT);
  }
  offsets.end = offset;
  return offsets;
}
