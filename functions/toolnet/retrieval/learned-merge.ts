import type { Ranked } from "./ranked";
import { bestRanked } from "./top-k";

/** A first step's merge of the learned field's ranking into the own-text ranking (learned-field.ts is the field). */

/**
 * `ranked` (own-text BM25, best first) with each tool's learned-field score added at `weight`;
 * a tool only the learned field knows joins with its learned score alone. Both are BM25 sums
 * over the same catalog, so the sum is a two-field BM25 (the fields scored apart, as BM25F's
 * simpler cousin). Only the best `limit` are kept (a first step keeps as many as it ranks).
 */
export function withLearnedField(ranked: readonly Ranked[], learned: readonly Ranked[], weight: number, limit = Number.POSITIVE_INFINITY): Ranked[] {
  if (learned.length === 0 || weight <= 0) return ranked.slice(0, limit);
  // Every route with the field merges here: reused arrays, and objects only for the tools kept (top-k.ts bestRanked).
  merged.call += 1;
  // Numbered again from nothing only between calls: within a call a number stands for one name.
  if (merged.ids.size >= MERGED_NAMES_LIMIT) merged.ids.clear();
  if (merged.scores.length < ranked.length + learned.length) merged.scores = new Float64Array(2 * (ranked.length + learned.length));
  let count = 0;
  const add = (name: string, score: number, sum: boolean) => {
    const at = mergedPosition(name);
    if (at >= 0) merged.scores[at] = sum ? (merged.scores[at] ?? 0) + score : score;
    else {
      merged.at[-at - 1] = count;
      merged.names[count] = name;
      merged.scores[count] = sum ? 0 + score : score;
      count += 1;
    }
  };
  for (const r of ranked) add(r.name, r.score, false);
  for (const r of learned) add(r.name, weight * r.score, true);
  return bestRanked(merged.names, merged.scores, count, limit);
}

/** Names merged so far before their numbering starts again (a bound on memory; tools are thousands). */
const MERGED_NAMES_LIMIT = 50_000;

/**
 * The merge's scratch. Each name gets a number once (`ids`, kept from call to call: a map filled
 * once, not one made per route); by number, the call that last met it (`metIn`) and its position
 * in that call (`at`); by position, the name and its summed score.
 */
const merged = {
  call: 0,
  ids: new Map<string, number>(),
  metIn: new Float64Array(1024),
  at: new Int32Array(1024),
  names: [] as string[],
  scores: new Float64Array(0),
};

/** The position `name` already has in this call's merge, or −(its number + 1) when it has none yet (then marked as met). */
function mergedPosition(name: string): number {
  let id = merged.ids.get(name);
  if (id === undefined) {
    id = merged.ids.size;
    merged.ids.set(name, id);
    if (id >= merged.metIn.length) {
      const metIn = new Float64Array(2 * merged.metIn.length);
      metIn.set(merged.metIn);
      const at = new Int32Array(metIn.length);
      at.set(merged.at);
      merged.metIn = metIn;
      merged.at = at;
    }
  }
  if (merged.metIn[id] === merged.call) return merged.at[id] ?? 0;
  merged.metIn[id] = merged.call;
  return -id - 1;
}
