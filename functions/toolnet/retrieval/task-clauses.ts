import { fuseRankings, RRF_K } from "./fusion";
import type { Ranked } from "./ranked";

/**
 * Coverage of a task's distinct needs. A request that asks for several things ("find flights to
 * Rome, then book a hotel near the station") ranks, as one query, the tools of its most wordy
 * need first, and near-identical tools of that need fill the answer. Searched clause by clause,
 * each need has a ranking of its own; fused with the whole task's, every need's best tools rise.
 */

/** Where a request moves on to another need: sentence ends and sequencing words. */
const CLAUSE_BREAK = /[.!?;]+\s+|\s+(?:and then|then|after that|afterwards|also|additionally|as well as|finally|plus)\s+|,\s+(?:and|then)\s+/i;
/** A clause needs this many letters-only words to name a need (not "please", "thanks a lot"). */
const MIN_CLAUSE_WORDS = 3;
/** At most this many clauses are searched: a long chatty request is not twenty needs. */
export const MAX_CLAUSES = 6;

/** The clauses of a task that each name a need; empty when the task has fewer than two. */
export function taskClauses(task: string): string[] {
  const clauses = task
    .split(CLAUSE_BREAK)
    .map((c) => c.trim())
    .filter((c) => (c.match(/[A-Za-z]{2,}/g) ?? []).length >= MIN_CLAUSE_WORDS);
  return clauses.length < 2 ? [] : clauses.slice(0, MAX_CLAUSES);
}

/**
 * Weight of all clause rankings together against the whole task's ranking (1). Off: measured on
 * half a of bench/routing-generalisation.ts at 1, 0.5 and 0.25, it lowered first-step recall@5
 * on every dev set (Seal-Tools 0.895 → 0.834 at 0.5, all gold in the top 10 0.778 → 0.744;
 * StableToolBench 0.735 → 0.711 at 0.25): a clause of a chatty request ("I'm planning a trip")
 * names no tool, and its own ranking is noise. Kept for the bench's `--clauses=W`.
 */
export const CLAUSE_WEIGHT = 0;

/**
 * The whole task's ranking fused with its clauses' rankings (reciprocal rank fusion, the
 * clauses sharing `weight` among them), `depth` long. A task of one need ranks as before.
 */
export function coverageRanking(task: string, search: (text: string, depth: number) => Ranked[], depth: number, weight = CLAUSE_WEIGHT): Ranked[] {
  const whole = search(task, depth);
  const clauses = weight > 0 ? taskClauses(task) : [];
  if (clauses.length === 0) return whole;
  const rankings = [whole, ...clauses.map((clause) => search(clause, depth))];
  return fuseRankings(rankings, { k: RRF_K, weights: [1, ...clauses.map(() => weight / clauses.length)], limit: depth });
}
