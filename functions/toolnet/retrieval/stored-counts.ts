import { arrayOffsets, type Header } from "./impact-layout";
import type { TermCounts } from "./impact-search";
import { TOOL_DOC_FIELDS } from "./tool-document";

/**
 * The raw term counts of a stored index (impact-index.ts `toParts`), read a term at a time by
 * byte ranges of the stored part: weighing a word a task repeats needs that word's counts only,
 * not the ≈ 4 MB of every term's at 10,000 tools.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** The stored counts part: whole, or a byte range of it. */
export interface CountsReader {
  all(): Uint8Array;
  range(start: number, length: number): Uint8Array;
}

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
