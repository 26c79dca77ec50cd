import { splitWords, termOf } from "./analyze";
import type { Arrays } from "./impact-layout";
import { bm25Score, commonImpact, inverseDocumentFrequency } from "./impact-math";
import type { RankingTuning } from "./minisearch-engine";
import { TOOL_DOC_FIELDS, type ToolDoc } from "./tool-document";

/**
 * The impact index's rebuild after changes (impact-index.ts records them): the pending term counts
 * merged into the flat raw arrays, then every impact computed again from them, since impacts
 * depend on corpus-wide statistics.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** A tool added since the last merge. */
export interface Pending {
  id: number;
  /** (term id, field id, term frequency) triples. */
  entries: Int32Array;
}

/**
 * A tool's pending term counts, (term id, field id, term frequency) triples, and its field
 * lengths; `avg` (the average field lengths over `before` tools) is updated for it in place.
 */
export function pendingTerms(doc: ToolDoc, termId: (term: string) => number, avg: Float64Array, before: number): { entries: Int32Array; lengths: Int32Array } {
  const lengths = new Int32Array(FIELDS);
  const frequencies = new Map<number, number>();
  TOOL_DOC_FIELDS.forEach((field, f) => {
    const words = splitWords(doc[field]);
    // MiniSearch: a field's length is its distinct words before stemming and stop words;
    // the average is updated incrementally, in the same order of operations.
    const length = new Set(words).size;
    avg[f] = ((avg[f] ?? 0) * before + length) / (before + 1);
    lengths[f] = length;
    for (const word of words) {
      const term = termOf(word);
      if (!term) continue;
      const key = termId(term) * FIELDS + f;
      frequencies.set(key, (frequencies.get(key) ?? 0) + 1);
    }
  });
  const entries = new Int32Array(frequencies.size * 3);
  let i = 0;
  for (const [key, tf] of frequencies) {
    entries[i] = Math.floor(key / FIELDS);
    entries[i + 1] = key % FIELDS;
    entries[i + 2] = tf;
    i += 3;
  }
  return { entries, lengths };
}

/** An index with changes not merged yet. */
export interface Unmerged {
  arrays: Arrays;
  /** Tool name by id; undefined for a tool removed since the last merge. */
  names: readonly (string | undefined)[];
  /** Tools added since the last merge, in id order. */
  pending: readonly Pending[];
  /** A tool's field lengths, pending or merged. */
  lengthsOf: (id: number) => ArrayLike<number>;
  /** Number of terms the merged raw arrays cover, and the number of terms now. */
  mergedTerms: number;
  termCount: number;
}

/**
 * An index's changes as of now, copied where later changes write in place (names, the pending
 * list, the pending field lengths, the averages); the arrays themselves are never written in
 * place (a merge or a recomputation makes new ones), so a save can merge them later (impact-save.ts).
 */
export function unmergedCopy(index: Omit<Unmerged, "lengthsOf">, pendingLengths: ReadonlyMap<number, Int32Array>): Unmerged {
  const [lengths, fieldLengths] = [new Map(pendingLengths), index.arrays.fieldLengths];
  return {
    ...index,
    arrays: { ...index.arrays, avgFieldLength: index.arrays.avgFieldLength.slice() },
    names: [...index.names],
    pending: [...index.pending],
    lengthsOf: (id) => lengths.get(id) ?? fieldLengths.subarray(id * FIELDS, id * FIELDS + FIELDS),
  };
}

/**
 * Folds the pending additions and the removals (undefined names) into the raw arrays, which then
 * cover `termCount` terms (`mergedTerms` before): tool ids become dense again.
 */
export function mergePending(unmerged: Unmerged): { names: string[]; arrays: Arrays } {
  const pieces = mergeInPieces(unmerged, Number.POSITIVE_INFINITY);
  for (;;) {
    const step = pieces.next();
    if (step.done) return step.value;
  }
}

/**
 * `mergePending` a piece at a time: each pass over the merged postings (one to count, one to
 * copy) goes a range of terms at a time, at most `maxPostings` postings a piece (one term more at
 * most), yielding the postings it read; `unmerged` must not change meanwhile (impact-save.ts reads
 * a copy of it).
 */
export function* mergeInPieces(
  { arrays: old, names: oldNames, pending, lengthsOf, mergedTerms, termCount }: Unmerged,
  maxPostings: number,
): Generator<number, { names: string[]; arrays: Arrays }> {
  const newId = new Int32Array(oldNames.length).fill(-1);
  const names: string[] = [];
  oldNames.forEach((name, id) => {
    if (name === undefined) return;
    newId[id] = names.length;
    names.push(name);
  });
  const counts = new Int32Array(termCount * FIELDS + 1);
  const mergedSlots = mergedTerms * FIELDS;
  yield* slotRanges(old.rawOffsets, mergedSlots, maxPostings, (from, to) => {
    for (let slot = from; slot < to; slot += 1) {
      for (let p = old.rawOffsets[slot] ?? 0; p < (old.rawOffsets[slot + 1] ?? 0); p += 1)
        if ((newId[old.rawDocs[p] ?? 0] ?? -1) >= 0) counts[slot] = (counts[slot] ?? 0) + 1;
    }
  });
  const livePending = pending.filter((pending) => (newId[pending.id] ?? -1) >= 0);
  for (const { entries } of livePending) {
    for (let i = 0; i < entries.length; i += 3) {
      const slot = (entries[i] ?? 0) * FIELDS + (entries[i + 1] ?? 0);
      counts[slot] = (counts[slot] ?? 0) + 1;
    }
  }
  const rawOffsets = new Int32Array(termCount * FIELDS + 1);
  for (let slot = 0; slot < termCount * FIELDS; slot += 1) rawOffsets[slot + 1] = (rawOffsets[slot] ?? 0) + (counts[slot] ?? 0);
  const total = rawOffsets[termCount * FIELDS] ?? 0;
  const rawDocs = new Int32Array(total);
  const rawTfs = new Int32Array(total);
  const cursor = rawOffsets.slice(0, termCount * FIELDS);
  // Merged postings first, then pending ones: ids only grow, so each list stays sorted by id.
  yield* slotRanges(old.rawOffsets, mergedSlots, maxPostings, (from, to) => {
    for (let slot = from; slot < to; slot += 1) {
      for (let p = old.rawOffsets[slot] ?? 0; p < (old.rawOffsets[slot + 1] ?? 0); p += 1) {
        const id = newId[old.rawDocs[p] ?? 0] ?? -1;
        if (id < 0) continue;
        const at = cursor[slot] ?? 0;
        rawDocs[at] = id;
        rawTfs[at] = old.rawTfs[p] ?? 0;
        cursor[slot] = at + 1;
      }
    }
  });
  for (const { id, entries } of livePending) {
    for (let i = 0; i < entries.length; i += 3) {
      const slot = (entries[i] ?? 0) * FIELDS + (entries[i + 1] ?? 0);
      const at = cursor[slot] ?? 0;
      rawDocs[at] = newId[id] ?? 0;
      rawTfs[at] = entries[i + 2] ?? 0;
      cursor[slot] = at + 1;
    }
  }
  const fieldLengths = new Int32Array(names.length * FIELDS);
  oldNames.forEach((name, id) => {
    const to = newId[id] ?? -1;
    if (name !== undefined && to >= 0) fieldLengths.set(lengthsOf(id), to * FIELDS);
  });
  return { names, arrays: { ...old, fieldLengths, rawOffsets, rawDocs, rawTfs } };
}

/** Runs `visit` over slots [0, slots) a range at a time, each of at most `maxPostings` postings (one term's slots more at most), yielding each range's postings. */
function* slotRanges(offsets: Int32Array, slots: number, maxPostings: number, visit: (from: number, to: number) => void): Generator<number, void> {
  for (let from = 0; from < slots; ) {
    let to = from;
    // Whole terms: a range ends on a term's first slot.
    while (to < slots && ((offsets[to] ?? 0) - (offsets[from] ?? 0) <= maxPostings || to === from)) to += FIELDS;
    to = Math.min(to, slots);
    visit(from, to);
    yield (offsets[to] ?? 0) - (offsets[from] ?? 0);
    from = to;
  }
}

/**
 * `arrays` with the impact of each (term, tool) of its first `termCount` terms computed: Σ over
 * boosted fields, in field order, of boost × BM25 (MiniSearch's termResults), for `count` tools
 * whose ids are below `tools`.
 */
export function withImpacts(arrays: Arrays, tuning: RankingTuning, count: number, tools: number, termCount: number): Arrays {
  const terms = new Int32Array(termCount);
  for (let t = 0; t < termCount; t += 1) terms[t] = t;
  return { ...arrays, ...impactsOf(arrays, tuning, count, tools, terms, arrays.rawDocs.length) };
}

/**
 * The impacts of `terms` alone (term ids of `arrays`), numbered by their position in `terms`:
 * what a search for those terms reads, each computed exactly as `withImpacts` computes it (a
 * term's impacts depend on the corpus statistics and its own postings only). A search right after
 * a change reads this instead of every impact recomputed (impact-index.ts).
 */
export function termImpactsOf(
  arrays: Arrays,
  tuning: RankingTuning,
  count: number,
  tools: number,
  terms: readonly number[],
): Pick<Arrays, "impactOffsets" | "impactDocs" | "impacts" | "defaultImpact"> {
  // A term stored as its exceptions has fewer of them than postings (its default is more than half the tools').
  let postings = 0;
  for (const t of terms) postings += (arrays.rawOffsets[(t + 1) * FIELDS] ?? 0) - (arrays.rawOffsets[t * FIELDS] ?? 0);
  return impactsOf(arrays, tuning, count, tools, terms, postings);
}

/** Impact lists of `terms`, in their order; `capacity` bounds the postings written (see termImpactsOf). */
function impactsOf(
  arrays: Arrays,
  tuning: RankingTuning,
  count: number,
  tools: number,
  terms: ArrayLike<number>,
  capacity: number,
): Pick<Arrays, "impactOffsets" | "impactDocs" | "impacts" | "defaultImpact"> {
  const { rawOffsets, rawDocs, rawTfs, fieldLengths, avgFieldLength } = arrays;
  const { boosts, bm25 } = tuning;
  const boosted = TOOL_DOC_FIELDS.flatMap((field, f) => (boosts[field] > 0 ? [[f, boosts[field]] as const] : []));
  const impactOffsets = new Int32Array(terms.length + 1);
  const impactDocs = new Int32Array(capacity);
  const impacts = new Float64Array(capacity);
  const defaultImpact = new Float64Array(terms.length);
  const sum = new Float64Array(tools);
  const seen = new Uint8Array(tools);
  const touched = new Int32Array(tools);
  let out = 0;
  for (let i = 0; i < terms.length; i += 1) {
    const t = terms[i] ?? 0;
    let touchedCount = 0;
    for (const [f, fieldBoost] of boosted) {
      const from = rawOffsets[t * FIELDS + f] ?? 0;
      const to = rawOffsets[t * FIELDS + f + 1] ?? 0;
      const matching = to - from;
      if (matching === 0) continue;
      const avg = avgFieldLength[f] ?? 0;
      const invDocFreq = inverseDocumentFrequency(count, matching);
      for (let p = from; p < to; p += 1) {
        const doc = rawDocs[p] ?? 0;
        const rawScore = bm25Score(invDocFreq, rawTfs[p] ?? 0, fieldLengths[doc * FIELDS + f] ?? 0, avg, bm25);
        const weighted = fieldBoost * rawScore;
        if (seen[doc] === 0) {
          seen[doc] = 1;
          sum[doc] = weighted;
          touched[touchedCount] = doc;
          touchedCount += 1;
        } else {
          sum[doc] = (sum[doc] ?? 0) + weighted;
        }
      }
    }
    const docs = touched.subarray(0, touchedCount).sort();
    const common = touchedCount * 2 > tools ? commonImpact(docs, sum, tools) : 0;
    defaultImpact[i] = common;
    if (common > 0) {
      // Only the exceptions: tools with another impact, and tools without the term (impact 0).
      for (let doc = 0; doc < tools; doc += 1) {
        const impact = seen[doc] === 1 ? (sum[doc] ?? 0) : 0;
        seen[doc] = 0;
        if (impact === common) continue;
        impactDocs[out] = doc;
        impacts[out] = impact;
        out += 1;
      }
    } else {
      for (const doc of docs) {
        impactDocs[out] = doc;
        impacts[out] = sum[doc] ?? 0;
        out += 1;
        seen[doc] = 0;
      }
    }
    impactOffsets[i + 1] = out;
  }
  return { impactOffsets, impactDocs: impactDocs.slice(0, out), impacts: impacts.slice(0, out), defaultImpact };
}
