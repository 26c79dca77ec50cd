import type { Ranked } from "./retrieval/ranked";
import type { FusedCandidate } from "./signal-fusion";
import type { Vote } from "./task-memory";

/**
 * Rules that keep a signal learned from other tasks (transitions, task history) from lowering
 * what the task's own words rank well: such a signal may widen the choice, not overrule a strong
 * match. Measured in bench/routing-generalisation.ts against fusing without the signal.
 */

/**
 * A relevant tool the task's words match at least this share of its best match (the previous
 * tool left out) is a strong match: a learned transition may lift another tool up to just below
 * it, never past it.
 */
export const STRONG_MATCH_SHARE = 0.5;

/** The tools of `relevance` (not `previous`) whose score is at least `share` of the best one's. */
export function strongMatches(relevance: readonly Ranked[], previous: string, share: number): Set<string> {
  const others = relevance.filter((r) => r.name !== previous);
  const best = others[0]?.score ?? 0;
  if (best <= 0 || share <= 0) return new Set();
  return new Set(others.filter((r) => r.score >= share * best).map((r) => r.name));
}

/**
 * `full` (fused with transitions) with each tool that is not a strong match lifted by its
 * transition only up to just below the first strong match above it in `base` (fused without
 * transitions), so no strong match is passed by a tool only a transition raised. Strong matches
 * themselves keep every signal's score.
 */
export function boundedByStrongMatches(full: readonly FusedCandidate[], base: readonly FusedCandidate[], strong: ReadonlySet<string>): FusedCandidate[] {
  if (strong.size === 0) return [...full];
  const baseScore = new Map(base.map((c) => [c.tool, c.score]));
  const strongScores = full.filter((c) => strong.has(c.tool)).map((c) => c.score);
  const bounded = full.map((candidate) => {
    if (strong.has(candidate.tool)) return candidate;
    const before = baseScore.get(candidate.tool) ?? 0;
    // The lowest strong score still above this tool without its transition: the bound.
    let bound = Number.POSITIVE_INFINITY;
    for (const score of strongScores) if (score > before && score < bound) bound = score;
    if (candidate.score < bound) return candidate;
    const score = Math.max(before, bound - Number.EPSILON * Math.max(1, bound) * 4);
    return { ...candidate, score };
  });
  return bounded.sort(
    (a, b) => b.score - a.score || (strong.has(a.tool) === strong.has(b.tool) ? (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0) : strong.has(a.tool) ? -1 : 1),
  );
}

/**
 * Whether similar earlier tasks agree on how to start: the tool most of them voted for holds at
 * least `share` of the vote and came from `tasks` or more of them. Self-instructed requests that
 * share only their framing vote one each for unrelated tools: no clear vote.
 */
export function concentratedVote(votes: readonly Vote[], share: number, tasks: number): boolean {
  const total = votes.reduce((sum, v) => sum + v.score, 0);
  const top = votes[0];
  return top !== undefined && total > 0 && top.score >= share * total && top.tasks >= tasks;
}
