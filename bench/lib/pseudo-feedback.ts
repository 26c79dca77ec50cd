import { analyze } from "../../functions/toolnet/retrieval/analyze";
import { sortRanked, type Ranked } from "../../functions/toolnet/retrieval/ranked";
import { coverTaskWords } from "../../functions/toolnet/retrieval/term-coverage";

/**
 * Pseudo-relevance feedback (RM3-style query expansion). A request worded unlike its tool's
 * description still often ranks a tool of the same need near the top; the words those best
 * matches share (weighted by their score and how rare each word is) say what the request is
 * about in the catalog's own wording, and a second search with them added at a small weight
 * lifts tools that use that wording but none of the request's words.
 */

/** What feedback needs of an index: a ranking, impacts of given words on given tools, and each tool's words. */
export interface FeedbackIndex {
  search(text: string, k: number): Ranked[];
  termImpacts(text: string, names: readonly string[]): Float64Array[];
  /** The tool's index terms, each with one word that analyses to it and its (field-weighted) count. */
  documentTerms(name: string): ReadonlyMap<string, { word: string; count: number }>;
  /** How many tools have `term`. */
  documentFrequency(term: string): number;
  readonly size: number;
}

export interface FeedbackSettings {
  /** How many of the first ranking's best tools give feedback. */
  docs: number;
  /** How many feedback words are added to the request. */
  terms: number;
  /** Weight of the feedback words' ranking against the request's own (each normalised to its best). */
  weight: number;
  /** Words more than this share of the catalog's tools have are too common to say anything. */
  maxToolShare: number;
  /** Feedback from the ranking re-ranked for coverage of the task's words (term-coverage.ts), so every need of the task gives feedback. */
  diverse?: boolean;
}

/** How deep the first ranking and the feedback ranking reach. */
export const FEEDBACK_DEPTH = 30;

/** The feedback words for `text`: heaviest first, each with its weight (weights sum to 1). */
export function feedbackWords(index: FeedbackIndex, text: string, first: readonly Ranked[], settings: FeedbackSettings): { word: string; weight: number }[] {
  const feedback = first.slice(0, settings.docs);
  const total = feedback.reduce((sum, r) => sum + r.score, 0);
  if (total <= 0) return [];
  const asked = new Set(analyze(text));
  const weights = new Map<string, { word: string; weight: number }>();
  for (const tool of feedback) {
    const terms = index.documentTerms(tool.name);
    let length = 0;
    for (const { count } of terms.values()) length += count;
    if (length <= 0) continue;
    for (const [term, { word, count }] of terms) {
      if (asked.has(term)) continue;
      const having = index.documentFrequency(term);
      if (having <= 1 || having > settings.maxToolShare * index.size) continue;
      const weight = (tool.score / total) * (count / length) * Math.log(index.size / having);
      const known = weights.get(term);
      if (known === undefined) weights.set(term, { word, weight });
      else known.weight += weight;
    }
  }
  const chosen = [...weights.values()].sort((a, b) => b.weight - a.weight || (a.word < b.word ? -1 : 1)).slice(0, settings.terms);
  const sum = chosen.reduce((s, c) => s + c.weight, 0);
  return sum > 0 ? chosen.map((c) => ({ word: c.word, weight: c.weight / sum })) : [];
}

/** The `k` best for `text` searched again with its feedback words added at `settings.weight`. */
export function searchWithFeedback(index: FeedbackIndex, text: string, k: number, settings: FeedbackSettings): Ranked[] {
  const first = index.search(text, Math.max(k, FEEDBACK_DEPTH));
  const givers =
    settings.diverse === true
      ? coverTaskWords(
          first,
          index.termImpacts(
            text,
            first.map((r) => r.name),
          ),
        )
      : first;
  const words = settings.weight > 0 ? feedbackWords(index, text, givers, settings) : [];
  if (words.length === 0) return first.slice(0, k);
  const expansion = words.map((w) => w.word).join(" ");
  const names = [...new Set([...first.map((r) => r.name), ...index.search(expansion, FEEDBACK_DEPTH).map((r) => r.name)])];
  const own = new Map(first.map((r) => [r.name, r.score]));
  // Tools found only by the feedback words: their own score from their impacts of the request's words.
  const missing = names.filter((name) => !own.has(name));
  index.termImpacts(text, missing).forEach((row, i) => {
    let sum = 0;
    let matched = 0;
    for (const impact of row) if (impact > 0) [sum, matched] = [sum + impact, matched + 1];
    own.set(missing[i] ?? "", sum * matched);
  });
  const fed = new Float64Array(names.length);
  for (const { word, weight } of words) index.termImpacts(word, names).forEach((row, i) => (fed[i] = (fed[i] ?? 0) + weight * (row[0] ?? 0)));
  const bestOwn = Math.max(...own.values(), 0);
  const bestFed = Math.max(...fed, 0);
  if (bestOwn <= 0 || bestFed <= 0) return first.slice(0, k);
  const ranked = names.map((name, i) => ({
    name,
    score: (own.get(name) ?? 0) / bestOwn + settings.weight * ((fed[i] ?? 0) / bestFed),
  }));
  return sortRanked(ranked).slice(0, k);
}
