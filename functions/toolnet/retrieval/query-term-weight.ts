/**
 * How much a word counts when a task repeats it: Okapi BM25's query-term saturation (k3, Robertson
 * et al., TREC-3). A term written q times counts (k3 + 1)·q / (k3 + q) times instead of q times,
 * so with k3 = 1 it counts 1, 1.33, 1.5 … and never more than twice. Long chat-style tasks repeat
 * their framing ("I want …, I also want …", "provide … provide"), while the words that name a tool
 * are usually written once; counting repeats in full lets the framing outweigh them. A term written
 * once counts exactly once, so a task without repeats ranks exactly as before.
 */

/**
 * Weight of each of a term's `occurrences` in a query, for saturation `k3` (Infinity: every repeat
 * counts in full, MiniSearch's default): (k3 + 1) / (k3 + q), so all of them together count
 * (k3 + 1)·q / (k3 + q). Exactly 1 for a term written once.
 */
export function repeatedTermWeight(occurrences: number, k3: number): number {
  if (occurrences <= 1 || k3 === Infinity) return 1;
  return (k3 + 1) / (k3 + occurrences);
}
