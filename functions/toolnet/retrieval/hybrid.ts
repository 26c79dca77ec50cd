import { fuseRankings, rankByCosine, RRF_K, type Vector } from "./fusion";
import type { Ranked } from "./ranked";
import type { ToolIndex } from "./tool-index";

/**
 * Weight of the embeddings ranking against the lexical one (1) in the fusion: equal, the RRF
 * default, until a measurement says otherwise (docs/benchmarks.md, "Routing that generalises").
 */
export const EMBEDDINGS_WEIGHT = 1;

export interface HybridOptions {
  /** Length of the result. */
  k?: number;
  /** How many tools each ranking contributes to the fusion. */
  depth?: number;
  /** RRF constant. */
  rrfK?: number;
  /** Weights of the lexical and the embedding ranking; `[1, EMBEDDINGS_WEIGHT]` when omitted. */
  weights?: readonly [number, number];
}

/**
 * Top `k` tools for `text`: BM25 ranking fused by RRF with the cosine ranking of precomputed
 * tool vectors against `queryVector`. Without a query vector this is the lexical ranking alone;
 * vectors of tools no longer in the index are ignored.
 */
export function hybridSearch(
  index: ToolIndex,
  text: string,
  queryVector: Vector | undefined,
  toolVectors: Iterable<readonly [string, Vector]>,
  options: HybridOptions = {},
): Ranked[] {
  const k = options.k ?? 10;
  const depth = Math.max(options.depth ?? 100, k);
  const lexical = index.search(text, depth);
  if (queryVector === undefined) return lexical.slice(0, k);
  const live = [...toolVectors].filter(([name]) => index.has(name));
  const dense = rankByCosine(queryVector, live, depth);
  return fuseRankings([lexical, dense], { k: options.rrfK ?? RRF_K, weights: options.weights ?? [1, EMBEDDINGS_WEIGHT], limit: k });
}
