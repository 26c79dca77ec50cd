import { bm25Score, inverseDocumentFrequency } from "./impact-math";
import { DEFAULT_TUNING } from "./minisearch-engine";
import { sortRanked, type Ranked } from "./ranked";
import { TopScores } from "./top-k";

/**
 * The k best tools of one BM25 field held as term → tool → weight maps (the learned field,
 * learned-field.ts), found without scoring every tool a common term reaches: MaxScore (Turtle &
 * Flood 1995) term at a time. A term adds at most idf × (d + k₁ + 1) to any tool, so terms are
 * read rarest first, and once what the unread terms could still add to a tool nobody has met
 * is below the k-th best score so far, no such tool can enter the k best: the common terms
 * ("can", "help", "need", in most fields) are never read. The tools still within reach are then
 * scored exactly, term by term in the query's order, so scores, order and ties are those of
 * scoring every match (`rankEveryMatch`, kept as the reference).
 */

/** What a search reads of the field. */
export interface ScoredField {
  /** The N of the terms' IDF. */
  documents: number;
  averageLength: number;
  /** The tools whose field holds `term`, with its weight there. */
  postings: (term: string) => ReadonlyMap<string, number>;
  lengthOf: (tool: string) => number;
  /** A tool's score from its summed BM25: `share(tool)` of the sum, rounded as the field rounds it. */
  finish: (tool: string, sum: number) => number;
  /** The share of its sum a tool's score keeps, at most 1 (the pruning's bounds rely on it). */
  share: (tool: string) => number;
}

/** A search's work, summed over searches: postings read while gathering, and tools scored exactly. */
export interface SearchWork {
  postings: number;
  rescored: number;
}

/** Bounds are compared with this much room: sums in another order round differently, by far less. */
const SLACK = 1e-9;

const TUNING = DEFAULT_TUNING.bm25;

/** The most one posting of a term with this IDF adds: BM25's term frequency part stays below k₁ + 1. */
const upperBound = (idf: number): number => idf * (TUNING.d + TUNING.k + 1);

/** A query's terms (distinct, in query order) with their postings and IDF; terms no tool has are left out. */
interface QueryPostings {
  lists: ReadonlyMap<string, number>[];
  idfs: number[];
}

function queryPostings(field: ScoredField, terms: readonly string[]): QueryPostings {
  const lists: ReadonlyMap<string, number>[] = [];
  const idfs: number[] = [];
  for (const term of terms) {
    const tools = field.postings(term);
    if (tools.size === 0) continue;
    lists.push(tools);
    idfs.push(inverseDocumentFrequency(field.documents, tools.size));
  }
  return { lists, idfs };
}

/** Every tool any term reaches, scored: the reference the pruned search must match exactly. */
export function rankEveryMatch(field: ScoredField, terms: readonly string[], limit: number, work?: SearchWork): Ranked[] {
  const { lists, idfs } = queryPostings(field, terms);
  const scores = new Map<string, number>();
  lists.forEach((tools, i) => {
    const idf = idfs[i] ?? 0;
    for (const [tool, weight] of tools) {
      scores.set(tool, (scores.get(tool) ?? 0) + bm25Score(idf, weight, field.lengthOf(tool), field.averageLength, TUNING));
    }
  });
  const ranked: Ranked[] = [];
  for (const [name, score] of scores) ranked.push({ name, score: field.finish(name, score) });
  if (work !== undefined) {
    for (const tools of lists) work.postings += tools.size;
    work.rescored += ranked.length;
  }
  return sortRanked(ranked).slice(0, limit);
}

/** The `limit` best tools for `terms` (distinct, in query order), exactly as `rankEveryMatch` ranks them, reading far fewer postings. */
export function rankBest(field: ScoredField, terms: readonly string[], limit: number, work?: SearchWork): Ranked[] {
  if (!(limit > 0 && Number.isFinite(limit))) return rankEveryMatch(field, terms, limit, work);
  const query = queryPostings(field, terms);
  const contenders = gather(field, query, limit, work);
  const ranked: Ranked[] = [];
  for (const tool of contenders) ranked.push({ name: tool, score: field.finish(tool, exactSum(field, query, tool)) });
  if (work !== undefined) work.rescored += ranked.length;
  return sortRanked(ranked).slice(0, limit);
}

/** A tool met while gathering: its partial BM25 sum, its field's length, and the share of a sum its score keeps. */
interface Met {
  sum: number;
  readonly length: number;
  readonly share: number;
}

/**
 * Partial sums over the terms, rarest first, until the unread terms cannot lift a tool not yet
 * met into the `limit` best; then the unread terms only for the met tools that can still reach
 * them, dropping each tool as soon as it cannot.
 */
function gather(field: ScoredField, query: QueryPostings, limit: number, work?: SearchWork): string[] {
  const { lists, idfs } = query;
  const order = lists.map((_, i) => i).sort((a, b) => (idfs[b] ?? 0) - (idfs[a] ?? 0) || a - b);
  // unread[j]: the most the terms from order[j] on can add together.
  const unread = new Array<number>(order.length + 1).fill(0);
  for (let j = order.length - 1; j >= 0; j -= 1) unread[j] = (unread[j + 1] ?? 0) + upperBound(idfs[order[j] ?? 0] ?? 0);
  const met = new Map<string, Met>();
  let read = 0;
  let kth = -Infinity;
  for (; read < order.length; read += 1) {
    const left = unread[read] ?? 0;
    // The k-th best is at most what the read terms can add: no need to look for it before then.
    if (met.size >= limit && left < (unread[0] ?? 0) - left + SLACK) {
      kth = kthBest(met, limit);
      if (left < kth * (1 - SLACK)) break;
    }
    const i = order[read] ?? 0;
    addTerm(field, lists[i] ?? NO_POSTINGS, idfs[i] ?? 0, met);
    if (work !== undefined) work.postings += lists[i]?.size ?? 0;
  }
  for (; read < order.length; read += 1) {
    dropOutOfReach(met, unread[read] ?? 0, kth);
    const i = order[read] ?? 0;
    addTermToMet(field, lists[i] ?? NO_POSTINGS, idfs[i] ?? 0, met);
    if (work !== undefined) work.postings += met.size;
    // Sums only grow: the k-th best too, and it is cheap to find again among the few tools left.
    kth = kthBest(met, limit);
  }
  if (met.size >= limit) dropOutOfReach(met, 0, kthBest(met, limit));
  return [...met.keys()];
}

/** Every tool of `tools` gets the term's BM25 added to its partial sum. */
function addTerm(field: ScoredField, tools: ReadonlyMap<string, number>, idf: number, met: Map<string, Met>): void {
  for (const [tool, weight] of tools) {
    let entry = met.get(tool);
    if (entry === undefined) met.set(tool, (entry = { sum: 0, length: field.lengthOf(tool), share: field.share(tool) }));
    entry.sum += bm25Score(idf, weight, entry.length, field.averageLength, TUNING);
  }
}

/** The tools already met that have the term get its BM25 added. */
function addTermToMet(field: ScoredField, tools: ReadonlyMap<string, number>, idf: number, met: Map<string, Met>): void {
  for (const [tool, entry] of met) {
    const weight = tools.get(tool);
    if (weight !== undefined) entry.sum += bm25Score(idf, weight, entry.length, field.averageLength, TUNING);
  }
}

/** Drops the tools that cannot reach the k-th best even if the unread terms add their most (`left`). */
function dropOutOfReach(met: Map<string, Met>, left: number, kth: number): void {
  const floor = kth * (1 - SLACK);
  for (const [tool, { sum, share }] of met) if ((sum + left) * share * (1 + SLACK) < floor) met.delete(tool);
}

/** The `limit`-th best partial score (less a rounding's worth): at least `limit` tools will score at least this. */
function kthBest(met: ReadonlyMap<string, Met>, limit: number): number {
  if (met.size < limit) return -Infinity;
  const best = new TopScores(limit);
  for (const { sum, share } of met.values()) best.offer(sum * share);
  return best.worst * (1 - SLACK);
}

/** `tool`'s BM25 sum added in the query's order of terms, as `rankEveryMatch` adds it. */
function exactSum(field: ScoredField, { lists, idfs }: QueryPostings, tool: string): number {
  let sum = 0;
  lists.forEach((tools, i) => {
    const weight = tools.get(tool);
    if (weight !== undefined) sum += bm25Score(idfs[i] ?? 0, weight, field.lengthOf(tool), field.averageLength, TUNING);
  });
  return sum;
}

const NO_POSTINGS: ReadonlyMap<string, number> = new Map();
