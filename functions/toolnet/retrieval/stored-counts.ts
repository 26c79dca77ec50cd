import { type Arrays, arrayOffsets, ARRAY_NAMES, decodeLayout, emptyArrays, encodeLayout, type ArrayName, type Header } from "./impact-layout";
import type { TermCounts } from "./impact-search";
import { TOOL_DOC_FIELDS } from "./tool-document";

/**
 * The raw term counts of a stored index (impact-index.ts `toParts`), read a term at a time by
 * byte ranges of the stored part: weighing a word a task repeats needs that word's counts only,
 * not the ≈ 4 MB of every term's at 10,000 tools.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** A stored part of the index (the counts, the search part): whole, or a byte range of it. */
export interface PartReader {
  all(): Uint8Array;
  range(start: number, length: number): Uint8Array;
}

/** The stored counts part's reader. */
export type CountsReader = PartReader;

/** A copy of `bytes` as Int32 words (a fresh buffer, so aligned). */
function words(bytes: Uint8Array): Int32Array {
  return new Int32Array(bytes.slice().buffer);
}

/** A reader of one term's counts from the counts part laid out in `format`, its header read on first use. */
export function termCountsReader(read: CountsReader, format: string): (term: number) => TermCounts {
  let offsets: ReturnType<typeof arrayOffsets> | undefined;
  return (term) => {
    if (offsets === undefined) {
      const headerLength = new DataView(read.range(0, 4).slice().buffer).getUint32(0, true);
      const header = JSON.parse(new TextDecoder().decode(read.range(4, headerLength))) as Header;
      if (header.format !== format) throw new Error(`not stored term counts of format ${format}; rebuild the index`);
      offsets = arrayOffsets(header, headerLength);
    }
    const bounds = words(read.range(offsets.rawOffsets + term * FIELDS * 4, (FIELDS + 1) * 4));
    const from = bounds[0] ?? 0;
    const to = bounds[FIELDS] ?? 0;
    return {
      offsets: bounds.map((at) => at - from),
      docs: to > from ? words(read.range(offsets.rawDocs + from * 4, (to - from) * 4)) : new Int32Array(0),
      tfs: to > from ? words(read.range(offsets.rawTfs + from * 4, (to - from) * 4)) : new Int32Array(0),
    };
  };
}

/** The arrays of the raw term counts. */
export type Counts = Pick<Arrays, "rawOffsets" | "rawDocs" | "rawTfs">;

/** What the counts part is stored for: its format, and the index's tool count and scoring (a load checks them). */
interface CountsMeta {
  format: string;
  scoring: string;
  count: number;
}

/** The raw term counts of `arrays` as the counts part (the index's other arrays left empty). */
export function encodeCounts(meta: CountsMeta, arrays: Counts): Uint8Array {
  const none = new Int32Array(0);
  const counts: Arrays = {
    ...emptyArrays(),
    fieldLengths: none,
    avgFieldLength: new Float64Array(0),
    impactOffsets: none,
    rawOffsets: arrays.rawOffsets,
    rawDocs: arrays.rawDocs,
    rawTfs: arrays.rawTfs,
  };
  const lengths = Object.fromEntries(ARRAY_NAMES.map((name) => [name, counts[name].length])) as Record<ArrayName, number>;
  return encodeLayout({ ...meta, names: [], terms: [], lengths }, counts);
}

/**
 * The stored counts part of an index of `meta` (its tool count and scoring): every term's counts
 * read whole (`all`, refused when stored for another index), or one term's by byte ranges, each
 * read once.
 */
export function storedCounts(read: CountsReader, meta: CountsMeta): { all: () => Counts; termCounts: (term: number) => TermCounts } {
  const one = termCountsReader(read, meta.format);
  const known = new Map<number, TermCounts>();
  return {
    all: () => {
      const { header, arrays } = decodeLayout(read.all(), meta.format);
      if (header.count !== meta.count || header.scoring !== meta.scoring) throw new Error("the stored term counts are not those of this index; rebuild it");
      return { rawOffsets: arrays.rawOffsets, rawDocs: arrays.rawDocs, rawTfs: arrays.rawTfs };
    },
    termCounts: (term) => {
      let found = known.get(term);
      if (found === undefined) known.set(term, (found = one(term)));
      return found;
    },
  };
}
