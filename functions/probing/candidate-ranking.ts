import type { ValueCandidate } from "./discovery-types";

/** Distinct values (by their JSON), each with its best score, best first. */
export function rankCandidates(candidates: ValueCandidate[]): ValueCandidate[] {
  const best = new Map<string, ValueCandidate>();
  for (const candidate of candidates) {
    const key = JSON.stringify(candidate.value);
    const known = best.get(key);
    if (known === undefined || candidate.score > known.score) best.set(key, candidate);
  }
  // Stable: equal scores keep rule order.
  return [...best.values()].sort((a, b) => b.score - a.score);
}
