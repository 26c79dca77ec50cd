import type { Arrays } from "./impact-layout";
import type { QueryTerms, SearchedIndex, TermCounts } from "./impact-search";
import { nameTables, type NameTables, StoredNames, wellFormedNames } from "./stored-names";
import type { PartReader } from "./stored-counts";

/**
 * What a search reads of a stored impact index (impact-index.ts `toParts`), laid out so a load
 * reads the small part whole and each query term's postings alone, by byte ranges: at 10,000
 * tools the postings are ≈ 3.6 MB of the ≈ 4 MB a load used to read and copy, and a first step
 * needs those of its few terms. The names and terms are stored as bytes with a hash table
 * (stored-names.ts): a load decodes none of them.
 *
 * Layout: a 4-byte header length, the JSON header, then 8-byte aligned sections: the average
 * field lengths, where each term's postings start (impactOffsets), each term's common impact
 * (defaultImpact), the names' and the terms' tables (offsets, hash slots, bytes) — the head, read
 * whole — then every tool's field lengths (read when a query first repeats a term: its weight is
 * computed from them), then the postings, term by term: a term's impacts (Float64) followed by
 * their tool ids (Int32), so one range holds a term's postings.
 */

const NAME_SECTIONS = ["Offsets", "Slots", "Bytes"] as const;
/** In stored order: the head, then the field lengths (read only to weigh a repeated query term), then the postings. */
const SECTIONS = [
  ["avgFieldLength", 8],
  ["impactOffsets", 4],
  ["defaultImpact", 8],
  ...NAME_SECTIONS.map((part) => [`names${part}`, part === "Bytes" ? 1 : 4] as const),
  ...NAME_SECTIONS.map((part) => [`terms${part}`, part === "Bytes" ? 1 : 4] as const),
  ["fieldLengths", 4],
] as const;
type Section = (typeof SECTIONS)[number][0];

export interface SearchPartHeader {
  format: string;
  /** Scoring the impacts were computed with (impact-index.ts). */
  scoring: string;
  /** Tools indexed. */
  count: number;
  /** Elements of each section, and the number of postings. */
  lengths: Record<Section, number>;
  postings: number;
}

/** The search part as bytes (`arrays` merged, impacts current; `names` dense). */
export function encodeSearchPart(
  meta: Omit<SearchPartHeader, "lengths" | "postings">,
  arrays: Arrays,
  names: readonly string[],
  terms: readonly string[],
): Uint8Array {
  const [nameParts, termParts] = [nameTables(names), nameTables(terms)];
  const values: Record<Section, ArrayBufferView> = {
    fieldLengths: arrays.fieldLengths,
    avgFieldLength: arrays.avgFieldLength,
    impactOffsets: arrays.impactOffsets,
    defaultImpact: arrays.defaultImpact,
    namesOffsets: nameParts.offsets,
    namesSlots: nameParts.slots,
    namesBytes: nameParts.bytes,
    termsOffsets: termParts.offsets,
    termsSlots: termParts.slots,
    termsBytes: termParts.bytes,
  };
  const postings = arrays.impactDocs.length;
  const lengths = Object.fromEntries(SECTIONS.map(([name, size]) => [name, values[name].byteLength / size])) as Record<Section, number>;
  const headerBytes = new TextEncoder().encode(JSON.stringify({ ...meta, lengths, postings } satisfies SearchPartHeader));
  const at = sectionOffsets(lengths, headerBytes.length);
  const bytes = new Uint8Array(at.postings + postings * 12);
  new DataView(bytes.buffer).setUint32(0, headerBytes.length, true);
  bytes.set(headerBytes, 4);
  for (const [name] of SECTIONS) bytes.set(new Uint8Array(values[name].buffer, values[name].byteOffset, values[name].byteLength), at[name]);
  const { impactOffsets, impactDocs, impacts } = arrays;
  for (let term = 0; term + 1 < impactOffsets.length; term += 1) {
    const from = impactOffsets[term] ?? 0;
    const to = impactOffsets[term + 1] ?? 0;
    bytes.set(new Uint8Array(impacts.buffer, impacts.byteOffset + from * 8, (to - from) * 8), at.postings + from * 12);
    bytes.set(new Uint8Array(impactDocs.buffer, impactDocs.byteOffset + from * 4, (to - from) * 4), at.postings + from * 12 + (to - from) * 8);
  }
  return bytes;
}

const align = (bytes: number) => Math.ceil(bytes / 8) * 8;

/** Where each section starts, and the postings (the head's end). */
function sectionOffsets(lengths: Record<Section, number>, headerLength: number): Record<Section | "postings", number> {
  let offset = align(4 + headerLength);
  const offsets = {} as Record<Section | "postings", number>;
  for (const [name, size] of SECTIONS) {
    offsets[name] = offset;
    offset += align((lengths[name] ?? 0) * size);
  }
  offsets.postings = offset;
  return offsets;
}

/** One term's postings: tool ids ascending and their impacts. */
interface Postings {
  docs: Int32Array;
  impacts: Float64Array;
}

/**
 * A stored search part, its head read: the arrays a search reads whole, the names and terms
 * (decoded as asked), and each term's postings read from storage when a query first has it.
 */
export class SearchPart {
  readonly header: SearchPartHeader;
  readonly arrays: Pick<Arrays, "avgFieldLength" | "impactOffsets" | "defaultImpact">;
  readonly names: StoredNames;
  readonly terms: StoredNames;
  readonly #read: PartReader;
  readonly #fieldLengthsAt: number;
  readonly #postingsAt: number;
  readonly #postings = new Map<number, Postings>();
  #fieldLengths: Int32Array | undefined;

  private constructor(header: SearchPartHeader, head: Uint8Array, at: Record<Section | "postings", number>, read: PartReader) {
    this.header = header;
    const view = <T>(Kind: new (buffer: ArrayBuffer, offset: number, length: number) => T, name: Section) =>
      new Kind(head.buffer as ArrayBuffer, head.byteOffset + at[name], header.lengths[name]);
    this.arrays = {
      avgFieldLength: view(Float64Array, "avgFieldLength"),
      impactOffsets: view(Int32Array, "impactOffsets"),
      defaultImpact: view(Float64Array, "defaultImpact"),
    };
    const tables = (prefix: "names" | "terms"): NameTables => ({
      offsets: view(Int32Array, `${prefix}Offsets`),
      slots: view(Int32Array, `${prefix}Slots`),
      bytes: view(Uint8Array, `${prefix}Bytes`),
    });
    const [names, terms] = [tables("names"), tables("terms")];
    if (!wellFormedNames(names) || !wellFormedNames(terms)) throw new Error("damaged names or terms");
    this.names = new StoredNames(names);
    this.terms = new StoredNames(terms);
    this.#read = read;
    this.#fieldLengthsAt = at.fieldLengths;
    this.#postingsAt = at.postings;
  }

  /** The part's head, read from storage (three byte ranges); throws, asking for a rebuild, on another `format` or damaged bytes. */
  static read(read: PartReader, format: string): SearchPart {
    const refuse = (why: string): Error => new Error(`not a stored tool index of format ${format} (${why}); rebuild it from the tools`);
    try {
      const headerLength = new DataView(read.range(0, 4).slice().buffer).getUint32(0, true);
      const header = JSON.parse(new TextDecoder().decode(read.range(4, headerLength))) as SearchPartHeader;
      if (header?.format !== format) throw refuse("another format");
      const at = sectionOffsets(header.lengths, headerLength);
      const head = read.range(0, at.fieldLengths).slice();
      const part = new SearchPart(header, head, at, read);
      if (part.arrays.impactOffsets[part.arrays.impactOffsets.length - 1] !== header.postings) throw refuse("damaged offsets");
      return part;
    } catch (error) {
      throw error instanceof Error && error.message.includes("rebuild") ? error : refuse(String(error));
    }
  }

  /** Every tool's field lengths, by tool × field, read on first use (one byte range). */
  fieldLengths(): Int32Array {
    if (this.#fieldLengths === undefined) {
      const length = this.header.lengths.fieldLengths;
      this.#fieldLengths = length === 0 ? new Int32Array(0) : new Int32Array(this.#read.range(this.#fieldLengthsAt, length * 4).slice().buffer);
    }
    return this.#fieldLengths;
  }

  /** A term's postings, read on first use (one byte range). */
  postingsOf(term: number): Postings {
    let postings = this.#postings.get(term);
    if (postings === undefined) {
      const from = this.arrays.impactOffsets[term] ?? 0;
      const n = (this.arrays.impactOffsets[term + 1] ?? 0) - from;
      const bytes = n === 0 ? new Uint8Array(0) : this.#read.range(this.#postingsAt + from * 12, n * 12).slice();
      postings = { impacts: new Float64Array(bytes.buffer, 0, n), docs: new Int32Array(bytes.buffer, n * 8, n) };
      this.#postings.set(term, postings);
    }
    return postings;
  }

  /** Every term's postings as the index keeps them in memory (one read of the whole postings). */
  allPostings(): Pick<Arrays, "impactDocs" | "impacts"> {
    const { impactOffsets } = this.arrays;
    const total = this.header.postings;
    const bytes = total === 0 ? new Uint8Array(0) : this.#read.range(this.#postingsAt, total * 12);
    const impactDocs = new Int32Array(total);
    const impacts = new Float64Array(total);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let term = 0; term + 1 < impactOffsets.length; term += 1) {
      const from = impactOffsets[term] ?? 0;
      const to = impactOffsets[term + 1] ?? 0;
      for (let p = from; p < to; p += 1) {
        impacts[p] = view.getFloat64(from * 12 + (p - from) * 8, true);
        impactDocs[p] = view.getInt32(from * 12 + (to - from) * 8 + (p - from) * 4, true);
      }
    }
    return { impactDocs, impacts };
  }

  /**
   * What a search for `query` reads, its terms' postings only: arrays over the query's terms
   * (local term i is `query.unique[i]`), the query renumbered to them, and a repeated term's raw
   * counts (`countsOf`, by the index's term id) asked for by the local term.
   */
  searchedFor(
    query: QueryTerms,
    base: Omit<SearchedIndex, "arrays" | "countsOf">,
    countsOf: ((term: number) => TermCounts) | undefined,
  ): { index: SearchedIndex; query: QueryTerms } {
    const m = query.unique.length;
    const impactOffsets = new Int32Array(m + 1);
    const defaultImpact = new Float64Array(m);
    const lists = query.unique.map((term) => this.postingsOf(term));
    lists.forEach((list, i) => {
      impactOffsets[i + 1] = (impactOffsets[i] ?? 0) + list.docs.length;
      defaultImpact[i] = this.arrays.defaultImpact[query.unique[i] ?? 0] ?? 0;
    });
    const impactDocs = new Int32Array(impactOffsets[m] ?? 0);
    const impacts = new Float64Array(impactOffsets[m] ?? 0);
    lists.forEach((list, i) => {
      impactDocs.set(list.docs, impactOffsets[i] ?? 0);
      impacts.set(list.impacts, impactOffsets[i] ?? 0);
    });
    const none = new Int32Array(0);
    // The field lengths weigh a repeated term only (with its counts, `countsOf`).
    const fieldLengths = countsOf === undefined ? none : this.fieldLengths();
    const arrays: Arrays = { ...this.arrays, fieldLengths, impactOffsets, defaultImpact, impactDocs, impacts, rawOffsets: none, rawDocs: none, rawTfs: none };
    const local = { ...query, unique: query.unique.map((_, i) => i) };
    const index: SearchedIndex = countsOf === undefined ? { ...base, arrays } : { ...base, arrays, countsOf: (term) => countsOf(query.unique[term] ?? 0) };
    return { index, query: local };
  }
}
