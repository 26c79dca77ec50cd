import { API_EVIDENCE_DEPTH, API_EVIDENCE_WEIGHT, type SiblingsOf, withApiEvidence } from "./api-evidence";
import { withLearnedField } from "./learned-merge";
import type { Ranked } from "./ranked";

/**
 * Coverage of a task's distinct needs, word by word. Ranked as one query, a request that asks
 * for several things fills its top places with near-identical tools of its wordiest need: they
 * match the same words. Re-ranked greedily (xQuAD, with the task's words as its aspects), each
 * next place goes to the tool with the best mix of its own relevance and the task's words it
 * matches that no tool above it matches; look-alikes add nothing new and wait their turn.
 */

/**
 * Share of a place's value that rewards words not matched yet (the rest is the tool's own score
 * against the best match's). Chosen on half a of every dev set among 0.2–0.7 (docs/benchmarks.md,
 * "Routing that generalises"): the largest share that lowered no set's cold recall@5.
 */
export const WORD_COVERAGE_WEIGHT = 0.4;

/** Only the best this many are re-ranked: coverage reorders good matches, it does not reach far down. */
export const WORD_COVERAGE_DEPTH = 30;

/** What coverage needs of an index: a ranking with, per ranked tool, its impact per word of the task. */
export interface WordMatchingIndex {
  search(text: string, k: number): Ranked[];
  searchMatching(text: string, k: number): { ranked: Ranked[]; impacts: Float64Array[] };
}

/** How a search weighs a task's words and its tools' APIs; the defaults are routing's. */
export interface CoveringOptions {
  /** Share of coverage in each place (`WORD_COVERAGE_WEIGHT`; 0: no coverage). */
  coverage?: number;
  /** The other operations of a tool's API; without it, or at weight 0, no API evidence (api-evidence.ts). */
  siblingsOf?: SiblingsOf;
  /** Weight of the API's backing (`API_EVIDENCE_WEIGHT`). */
  apiWeight?: number;
  /**
   * The task's learned-field ranking and its weight (learned-field.ts), added to the first step's
   * (`withApis`) scores after coverage: coverage weighs the tools' own words, which a learned
   * word is not. A later step's (`plain`) ranking is left as it is.
   */
  learned?: { ranking: () => readonly Ranked[]; weight: number };
}

/**
 * The index's `k` best for `text`, re-scored by their APIs' backing when `siblingsOf` is given
 * (api-evidence.ts), then the first WORD_COVERAGE_DEPTH re-ranked for coverage of the task's words.
 */
export function searchCoveringWords(index: WordMatchingIndex, text: string, k: number, options: CoveringOptions = {}): Ranked[] {
  return searchTwoWays(index, text, k, options).withApis;
}

/**
 * Both rankings routing keeps for a task, from one search: covering the task's words without
 * API evidence (`plain`: what a chat's later steps rank by) and with it (`withApis`: a first
 * step's and a run's; the same ranking when there is no API evidence to weigh).
 */
export function searchTwoWays(index: WordMatchingIndex, text: string, k: number, options: CoveringOptions = {}): { plain: Ranked[]; withApis: Ranked[] } {
  const weight = options.coverage ?? WORD_COVERAGE_WEIGHT;
  const apiWeight = options.siblingsOf === undefined ? 0 : (options.apiWeight ?? API_EVIDENCE_WEIGHT);
  const learned = options.learned;
  const withLearned = (ranked: Ranked[]): Ranked[] =>
    learned === undefined || learned.weight <= 0 ? ranked : withLearnedField(ranked, learned.ranking(), learned.weight, k);
  if (apiWeight <= 0 || options.siblingsOf === undefined) {
    const plain = weight <= 0 ? index.search(text, k) : covering(index.searchMatching(text, k), weight);
    return { plain, withApis: withLearned(plain) };
  }
  const found = index.searchMatching(text, Math.max(k, API_EVIDENCE_DEPTH));
  const impactOf = new Map<string, Float64Array>();
  for (let i = 0; i < found.ranked.length; i += 1) impactOf.set(found.ranked[i]?.name ?? "", found.impacts[i] ?? new Float64Array());
  const siblingsOf = options.siblingsOf;
  // Each ranking is made when first read: a first step reads only `withApis` (and only it asks
  // for the APIs), a later step only `plain`, whose coverage needs only the first
  // WORD_COVERAGE_DEPTH tools' impacts.
  let withApis: Ranked[] | undefined;
  let plain: Ranked[] | undefined;
  const plainPending = plainPart(found.ranked.slice(0, k), impactOf);
  return {
    get plain(): Ranked[] {
      plain ??= coveringWith(plainPending.ranked, plainPending.impactOf, weight);
      return plain;
    },
    get withApis(): Ranked[] {
      withApis ??= withLearned(coveringWith(withApiEvidence(found.ranked, siblingsOf, apiWeight).slice(0, k), impactOf, weight));
      return withApis;
    },
  };
}

/** `ranked` with the impacts of its first WORD_COVERAGE_DEPTH tools (all coverage reads). */
function plainPart(ranked: Ranked[], impactOf: ReadonlyMap<string, Float64Array>): { ranked: Ranked[]; impactOf: Map<string, Float64Array> } {
  const kept = new Map<string, Float64Array>();
  for (const r of ranked.slice(0, WORD_COVERAGE_DEPTH)) kept.set(r.name, impactOf.get(r.name) ?? new Float64Array());
  return { ranked, impactOf: kept };
}

/** `ranked` re-ranked for coverage as `covering`, each tool's impacts looked up by name. */
function coveringWith(ranked: Ranked[], impactOf: ReadonlyMap<string, Float64Array>, weight: number): Ranked[] {
  if (weight <= 0) return ranked;
  return covering({ ranked, impacts: ranked.slice(0, WORD_COVERAGE_DEPTH).map((r) => impactOf.get(r.name) ?? new Float64Array()) }, weight);
}

/** `ranked` with its first WORD_COVERAGE_DEPTH (whose impacts are given) re-ranked for coverage of the task's words. */
function covering({ ranked, impacts }: { ranked: Ranked[]; impacts: Float64Array[] }, weight: number): Ranked[] {
  const covered = coverTaskWords(ranked.slice(0, WORD_COVERAGE_DEPTH), impacts.slice(0, WORD_COVERAGE_DEPTH), weight);
  return [...covered, ...ranked.slice(WORD_COVERAGE_DEPTH)];
}

/**
 * `ranked` (best first) re-ranked for coverage of the task's words: `impacts[i]` holds
 * `ranked[i]`'s impact per distinct word (ToolIndex.searchMatching). The best match stays first. A
 * word weighs as its strongest impact among the candidates (a rare, telling word more than a
 * common one); a tool covers the words it matches. Each place keeps the score of the same place
 * in `ranked`, so scores stay ordered.
 */
export function coverTaskWords(ranked: readonly Ranked[], impacts: readonly Float64Array[], weight = WORD_COVERAGE_WEIGHT): Ranked[] {
  const words = impacts[0]?.length ?? 0;
  const best = ranked[0]?.score ?? 0;
  if (weight <= 0 || ranked.length < 3 || words < 2 || best <= 0) return [...ranked];
  const strongest = new Float64Array(words);
  for (const row of impacts) for (let w = 0; w < words; w += 1) strongest[w] = Math.max(strongest[w] ?? 0, row[w] ?? 0);
  const total = strongest.reduce((sum, s) => sum + s, 0);
  if (total <= 0) return [...ranked];
  // Each candidate's matched words, found once; a word's share of the task is its strongest impact's.
  const matched = impacts.map((row) => {
    const found: number[] = [];
    for (let w = 0; w < words; w += 1) if ((row[w] ?? 0) > 0) found.push(w);
    return found;
  });
  const unmatched = new Uint8Array(words).fill(1);
  let unmatchedCount = words;
  const take = (i: number) => {
    for (const w of matched[i] ?? []) if (unmatched[w] === 1) [unmatched[w], unmatchedCount] = [0, unmatchedCount - 1];
  };
  const placed = new Uint8Array(ranked.length);
  const order = [0];
  placed[0] = 1;
  take(0);
  // Once every word is matched no tool adds anything new: the rest keep their order.
  while (order.length < ranked.length && unmatchedCount > 0) {
    let chosen = -1;
    let chosenValue = -Infinity;
    // In ranked order, so a tie keeps the better-ranked tool.
    for (let i = 0; i < ranked.length; i += 1) {
      if (placed[i] === 1) continue;
      let novelty = 0;
      for (const w of matched[i] ?? []) if (unmatched[w] === 1) novelty += (strongest[w] ?? 0) / total;
      const value = (1 - weight) * ((ranked[i]?.score ?? 0) / best) + weight * novelty;
      if (value > chosenValue) [chosen, chosenValue] = [i, value];
    }
    order.push(chosen);
    placed[chosen] = 1;
    take(chosen);
  }
  for (let i = 0; i < ranked.length; i += 1) if (placed[i] === 0) order.push(i);
  return order.map((i, place) => ({ name: ranked[i]?.name ?? "", score: ranked[place]?.score ?? 0 }));
}
