import { sortRanked, type Ranked } from "./ranked";

/**
 * Dense ranking from caller-supplied embeddings, and reciprocal rank fusion (RRF) of rankings.
 * RRF uses ranks only, so BM25 scores and cosine similarities need no common scale.
 */

/** An embedding; Float32Array halves the memory of number[] for stored tool vectors. */
export type Vector = readonly number[] | Float32Array;

/** Default RRF constant: the value of the original RRF paper (Cormack et al., 2009). */
export const RRF_K = 60;

/** Cosine similarity of two vectors of equal length; 0 when either is all zeros. */
export function cosine(a: Vector, b: Vector): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/** Tools ranked by cosine similarity of their vector to `query`, best first, at most `k`. */
export function rankByCosine(query: Vector, tools: Iterable<readonly [string, Vector]>, k = Infinity): Ranked[] {
  const ranked: Ranked[] = [];
  for (const [name, vector] of tools) ranked.push({ name, score: cosine(query, vector) });
  return sortRanked(ranked).slice(0, Math.max(0, Math.floor(k)));
}

export interface FusionOptions {
  /** RRF constant added to every rank; larger flattens the advantage of the very top ranks. */
  k?: number;
  /** Weight of each ranking, in order; 1 for each when omitted. */
  weights?: readonly number[];
  /** Length of the fused list; all fused tools when omitted. */
  limit?: number;
}

/**
 * Reciprocal rank fusion: score(tool) = Σ_i weight_i / (k + rank_i(tool)), ranks from 1, best
 * first in each input. A tool absent from a ranking gets nothing from it; repeats count once.
 */
export function fuseRankings(rankings: readonly (readonly { name: string }[])[], options: FusionOptions = {}): Ranked[] {
  const k = options.k ?? RRF_K;
  const scores = new Map<string, number>();
  rankings.forEach((ranking, which) => {
    const weight = options.weights?.[which] ?? 1;
    const seen = new Set<string>();
    ranking.forEach(({ name }, position) => {
      if (seen.has(name)) return;
      seen.add(name);
      scores.set(name, (scores.get(name) ?? 0) + weight / (k + position + 1));
    });
  });
  const fused = sortRanked([...scores].map(([name, score]) => ({ name, score })));
  return options.limit === undefined ? fused : fused.slice(0, Math.max(0, Math.floor(options.limit)));
}
