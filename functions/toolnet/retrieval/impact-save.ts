import type { Arrays } from "./impact-layout";
import { mergeInPieces, termImpactsOf, type Unmerged } from "./impact-rebuild";
import type { RankingTuning } from "./minisearch-engine";
import { encodeSearchPart, type SearchPartHeader } from "./search-part";
import { encodeCounts } from "./stored-counts";
import { TOOL_DOC_FIELDS } from "./tool-document";

/**
 * An impact index's two stored parts (impact-index.ts `toParts`) made in pieces, so that a save
 * of a big index never holds the object for the whole recomputation of its impacts (Microsoft
 * Graph's 11,422 tools: ≈ 0.2 s of the ≈ 0.4 s a whole save took on a quiet machine, 1.4 s at load
 * 17). The impacts are computed a range of terms at a time, each range bounded by the postings it
 * reads (a counted budget, not a clock: deployed, the clock stands still while code computes),
 * from what the index held when the save began (`SavedState`); the index may change meanwhile,
 * and the parts made are those of that moment, byte for byte what `toParts` gave then.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** What a save reads of an index: taken at once (impact-index.ts `savedState`), never written in place afterwards. */
export interface SavedState {
  meta: Omit<SearchPartHeader, "lengths" | "postings">;
  countsFormat: string;
  tuning: RankingTuning;
  /** The raw arrays and names with the changes since the last merge (the raw counts read). */
  unmerged: Unmerged;
  /** Nothing to merge: the names dense, nothing pending. */
  merged: boolean;
  /** Every term, those of pending tools too. */
  terms: string[];
  /** The impacts in `unmerged.arrays` are current (merged, none stale). */
  impactsCurrent: boolean;
}

/** What one piece of a save did, counted: the postings it merged ("merge") or whose impacts it computed ("impacts"), or the bytes it encoded ("encode"). */
export interface SavePiece {
  piece: "merge" | "impacts" | "encode";
  work: number;
}

/**
 * Postings whose impacts one piece computes at most (a term read whole is never split, so a piece
 * may pass this by one term's postings): ≈ 10–20 ms of CPU on a quiet machine.
 */
export const SAVE_PIECE_POSTINGS = 200_000;

/** The parts of `state`, a piece at a time (see the file's comment); `maxPostings` bounds a piece's merge and impacts. */
export function* partsInPieces(state: SavedState, maxPostings = SAVE_PIECE_POSTINGS): Generator<SavePiece, { search: Uint8Array; counts: Uint8Array }> {
  let { arrays, names } = { arrays: state.unmerged.arrays, names: state.unmerged.names as string[] };
  if (!state.merged) {
    const merging = mergeInPieces(state.unmerged, maxPostings);
    for (let step = merging.next(); ; step = merging.next()) {
      if (step.done) {
        ({ arrays, names } = step.value);
        break;
      }
      yield { piece: "merge", work: step.value };
    }
  }
  const merged = { ...state, arrays, names };
  if (!state.impactsCurrent) {
    const ranges = yield* impactsInPieces(merged, maxPostings);
    arrays = { ...arrays, ...joined(ranges, state.terms.length) };
  }
  const search = encodeSearchPart(state.meta, arrays, names, state.terms);
  yield { piece: "encode", work: search.byteLength };
  return { search, counts: encodeCounts({ ...state.meta, format: state.countsFormat }, arrays) };
}

/** The parts of `state` at once (its impacts current: one piece). */
export function partsOf(state: SavedState): { search: Uint8Array; counts: Uint8Array } {
  const pieces = partsInPieces(state, Number.POSITIVE_INFINITY);
  for (;;) {
    const step = pieces.next();
    if (step.done) return step.value;
  }
}

type Impacts = Pick<Arrays, "impactOffsets" | "impactDocs" | "impacts" | "defaultImpact">;

/** Each range of terms' impacts (impact-rebuild.ts `termImpactsOf`, exactly as a whole recomputation makes them), a piece each. */
function* impactsInPieces(
  state: Pick<SavedState, "tuning" | "meta" | "terms"> & { arrays: Arrays; names: string[] },
  maxPostings: number,
): Generator<SavePiece, Impacts[]> {
  const { arrays, tuning, meta } = state;
  const tools = state.names.length;
  const ranges: Impacts[] = [];
  let range: number[] = [];
  let work = 0;
  for (let term = 0; term < state.terms.length; term += 1) {
    const postings = (arrays.rawOffsets[(term + 1) * FIELDS] ?? 0) - (arrays.rawOffsets[term * FIELDS] ?? 0);
    // A term most tools have is written as its exceptions: a walk over every tool.
    const cost = postings * 2 > tools ? postings + tools : postings;
    if (range.length > 0 && work + cost > maxPostings) {
      ranges.push(termImpactsOf(arrays, tuning, meta.count, tools, range));
      yield { piece: "impacts", work };
      range = [];
      work = 0;
    }
    range.push(term);
    work += cost;
  }
  if (range.length > 0) {
    ranges.push(termImpactsOf(arrays, tuning, meta.count, tools, range));
    yield { piece: "impacts", work };
  }
  return ranges;
}

/** Ranges of consecutive terms' impacts as one index's (their offsets shifted past the ranges before). */
function joined(ranges: readonly Impacts[], termCount: number): Impacts {
  const postings = ranges.reduce((sum, r) => sum + r.impactDocs.length, 0);
  const out: Impacts = {
    impactOffsets: new Int32Array(termCount + 1),
    impactDocs: new Int32Array(postings),
    impacts: new Float64Array(postings),
    defaultImpact: new Float64Array(termCount),
  };
  let term = 0;
  let at = 0;
  for (const range of ranges) {
    const terms = range.defaultImpact.length;
    for (let t = 1; t <= terms; t += 1) out.impactOffsets[term + t] = at + (range.impactOffsets[t] ?? 0);
    out.defaultImpact.set(range.defaultImpact, term);
    out.impactDocs.set(range.impactDocs, at);
    out.impacts.set(range.impacts, at);
    term += terms;
    at += range.impactDocs.length;
  }
  return out;
}
