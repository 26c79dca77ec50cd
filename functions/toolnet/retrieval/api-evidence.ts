import { sortRanked, type Ranked } from "./ranked";

/**
 * API evidence: a request about a service spreads its words over the service's operations, so
 * the tools a task needs often sit in the API whose operations match it together, while a tool
 * that matches alone in an API whose other operations match nothing is often a stray word's
 * match. Each API scores the mean of its operations' shares of the best score (over all its
 * operations, so an API is not backed by one match among many); a tool keeps its own score as far
 * as its API backs it and loses part of what exceeds that backing. A tool alone in its API (or in
 * one too big to narrow anything, api-siblings.ts) is its API's whole evidence: never lowered. The
 * best match keeps first place, as coverage and fusion keep it.
 */

/**
 * Weight λ of the API's backing: a tool's share s of the best score becomes
 * (s + λ·min(api, s)) / (1 + λ), with `api` its API's mean share over the best API's. Chosen on
 * half a of every dev set among 0.25–8 (docs/benchmarks.md, "Routing that generalises"): the
 * weight with the best cold recall@5 of those that lowered no set.
 */
export const API_EVIDENCE_WEIGHT = 2;

/** How deep the ranking whose APIs are scored reaches: a backing operation may rank well below the first places. */
export const API_EVIDENCE_DEPTH = 50;

/** The other operations of a tool's API (empty when it is alone in it). */
export type SiblingsOf = (tool: string) => readonly string[];

/**
 * `ranked` (best first) re-scored by its APIs' backing; scores stay on `ranked`'s scale (a tool
 * its API backs keeps its score), best first, the first tool first. Operations not in `ranked`
 * count 0.
 */
export function withApiEvidence(ranked: readonly Ranked[], siblingsOf: SiblingsOf, weight = API_EVIDENCE_WEIGHT): Ranked[] {
  const first = ranked[0];
  if (first === undefined || weight <= 0 || first.score <= 0 || ranked.length < 3) return [...ranked];
  const best = first.score;
  const shares = new Map(ranked.map((r) => [r.name, r.score / best]));
  const backing = ranked.map((r) => {
    const siblings = siblingsOf(r.name);
    let sum = shares.get(r.name) ?? 0;
    for (const sibling of siblings) sum += shares.get(sibling) ?? 0;
    return sum / (1 + siblings.length);
  });
  const bestBacking = Math.max(...backing);
  const rescored = ranked.map((r, i) => {
    const share = r.score / best;
    // (s + λ·min(api, s)) / (1 + λ) of the best score: what exceeds the backing loses λ / (1 + λ) of itself.
    const unbacked = Math.max(0, share - (backing[i] ?? 0) / bestBacking);
    return { name: r.name, score: r.score - (best * weight * unbacked) / (1 + weight) };
  });
  const rest = sortRanked(rescored.slice(1));
  return [{ name: first.name, score: Math.max(first.score, rest[0]?.score ?? 0) }, ...rest];
}
