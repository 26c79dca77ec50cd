import type MiniSearch from "minisearch";
import type { AsPlainObject } from "minisearch";
import type { Arrays } from "./impact-layout";
import { loadEngine } from "./minisearch-engine";
import { TOOL_DOC_FIELDS, type ToolDoc } from "./tool-document";

/**
 * A MiniSearch engine over the impact index's raw term counts, for prefix and fuzzy matching (the
 * rare fallback when no word of a task is indexed): the counts as MiniSearch's own serialised
 * form, loaded (impact-index.ts `looseEngine` makes it on first use after a change).
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** What the engine is made of: the merged raw arrays, names by id (undefined: removed), terms, and the number of tools and of merged terms. */
export interface LooseSource {
  arrays: Arrays;
  names: readonly (string | undefined)[];
  terms: readonly string[];
  count: number;
  mergedTerms: number;
}

export function looseEngineOf({ arrays, names, terms, count, mergedTerms }: LooseSource): MiniSearch<ToolDoc> {
  const { rawOffsets, rawDocs, rawTfs, fieldLengths, avgFieldLength } = arrays;
  const documentIds: Record<string, string> = {};
  const fieldLength: Record<string, number[]> = {};
  const storedFields: Record<string, Record<string, never>> = {};
  names.forEach((name, id) => {
    if (name === undefined) return;
    documentIds[id] = name;
    fieldLength[id] = Array.from(fieldLengths.subarray(id * FIELDS, id * FIELDS + FIELDS));
    storedFields[id] = {};
  });
  const index: [string, Record<string, Record<string, number>>][] = [];
  for (let t = 0; t < mergedTerms; t += 1) {
    const data: Record<string, Record<string, number>> = {};
    let any = false;
    for (let f = 0; f < FIELDS; f += 1) {
      const from = rawOffsets[t * FIELDS + f] ?? 0;
      const to = rawOffsets[t * FIELDS + f + 1] ?? 0;
      if (from === to) continue;
      const freqs: Record<string, number> = {};
      for (let p = from; p < to; p += 1) freqs[rawDocs[p] ?? 0] = rawTfs[p] ?? 0;
      data[f] = freqs;
      any = true;
    }
    if (any) index.push([terms[t] ?? "", data]);
  }
  const plain: AsPlainObject = {
    documentCount: count,
    nextId: names.length,
    documentIds,
    fieldIds: Object.fromEntries(TOOL_DOC_FIELDS.map((field, f) => [field, f])),
    fieldLength,
    averageFieldLength: Array.from(avgFieldLength),
    storedFields,
    dirtCount: 0,
    index,
    serializationVersion: 2,
  };
  return loadEngine(plain);
}
