import type { SiblingsOf } from "./api-evidence";
import { fuseRankings, rankByCosine, RRF_K, type Vector } from "./fusion";
import type { Ranked } from "./ranked";
import { searchTwoWays, type CoveringOptions } from "./term-coverage";
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
  /** Lexical matches scoring at least this share of the best one lead, in their order (`LEXICAL_LEAD`; 0: none lead). */
  lexicalLead?: number;
  /** Whether a lexical match may lead (default: all may); a tool the task cannot call as asked does not (task-fit.ts). */
  canLead?: (tool: string) => boolean;
  /** The other operations of a tool's API: the lexical ranking weighs its APIs' backing (api-evidence.ts). */
  siblingsOf?: SiblingsOf;
  /** The learned field, added to the lexical first-step ranking before the embeddings join (term-coverage.ts). */
  learned?: CoveringOptions["learned"];
}

/**
 * The task's own words outrank a paraphrase: tools whose BM25 score is at least this share of
 * the best keep the front, in lexical order, and the embeddings ranking is fused into the rest.
 * Embeddings thus widen a weak lexical match (a request that shares no word with its tool) and
 * never push out a strong one (large catalogs of look-alike tools, where a small encoder reads
 * names and paths poorly).
 */
export const LEXICAL_LEAD = 0.15;

/**
 * Top `k` tools for `text`: BM25 ranking (weighed by its APIs' backing, api-evidence.ts, and its
 * best re-ranked to cover the task's words, term-coverage.ts) fused by RRF with the cosine
 * ranking of precomputed tool vectors against `queryVector`. Without a query vector this is the
 * lexical ranking alone; vectors of tools no longer in the index are ignored.
 */
export function hybridSearch(
  index: ToolIndex,
  text: string,
  queryVector: Vector | undefined,
  toolVectors: Iterable<readonly [string, Vector]>,
  options: HybridOptions = {},
): Ranked[] {
  return hybridTwoWays(index, text, queryVector, toolVectors, options).withApis;
}

/**
 * `hybridSearch` two ways from one search and one cosine ranking: its lexical part without API
 * evidence (`plain`: what a chat's later steps rank by) and with it (`withApis`), as
 * `searchTwoWays`.
 */
export function hybridTwoWays(
  index: ToolIndex,
  text: string,
  queryVector: Vector | undefined,
  toolVectors: Iterable<readonly [string, Vector]>,
  options: HybridOptions = {},
): { plain: Ranked[]; withApis: Ranked[] } {
  const k = options.k ?? 10;
  const depth = Math.max(options.depth ?? 100, k);
  const lexical = searchTwoWays(index, text, depth, {
    ...(options.siblingsOf === undefined ? {} : { siblingsOf: options.siblingsOf }),
    ...(options.learned === undefined ? {} : { learned: options.learned }),
  });
  if (queryVector === undefined)
    return {
      get plain(): Ranked[] {
        return lexical.plain.slice(0, k);
      },
      get withApis(): Ranked[] {
        return lexical.withApis.slice(0, k);
      },
    };
  const live = [...toolVectors].filter(([name]) => index.has(name));
  const dense = rankByCosine(queryVector, live, depth);
  // Each fused when first read: a first step reads only `withApis`, a later step only `plain`.
  let withApis: Ranked[] | undefined;
  let plain: Ranked[] | undefined;
  return {
    get plain(): Ranked[] {
      plain ??= fuseWithDense(lexical.plain, dense, k, options);
      return plain;
    },
    get withApis(): Ranked[] {
      withApis ??= fuseWithDense(lexical.withApis, dense, k, options);
      return withApis;
    },
  };
}

/** The lexical leaders first, then the rest of the lexical ranking fused with the cosine ranking by RRF. */
function fuseWithDense(lexical: readonly Ranked[], dense: readonly Ranked[], k: number, options: HybridOptions): Ranked[] {
  const share = options.lexicalLead ?? LEXICAL_LEAD;
  const lead = share > 0 ? lexicalLeaders(lexical, share, options.canLead ?? (() => true)) : [];
  const leading = new Set(lead.map((r) => r.name));
  const rest = fuseRankings([lexical.filter((r) => !leading.has(r.name)), dense.filter((r) => !leading.has(r.name))], {
    k: options.rrfK ?? RRF_K,
    weights: options.weights ?? [1, EMBEDDINGS_WEIGHT],
  });
  // Leaders keep a score above every fused one, so the list stays ordered by score.
  const top = (rest[0]?.score ?? 0) + lead.length;
  return [...lead.map((r, i) => ({ name: r.name, score: top - i })), ...rest].slice(0, k);
}

/** The lexical matches (best first) that may lead and score at least `share` of the best such one. */
function lexicalLeaders(lexical: readonly Ranked[], share: number, canLead: (tool: string) => boolean): Ranked[] {
  const lead: Ranked[] = [];
  let best: number | undefined;
  for (const match of lexical) {
    // Scores fall along the ranking: once below the share of the best, no later match leads.
    if (best !== undefined && match.score < share * best) break;
    if (match.score <= 0 || !canLead(match.name)) continue;
    best ??= match.score;
    lead.push(match);
  }
  return lead;
}
