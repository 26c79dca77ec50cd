/** One ranked tool; a higher score is more relevant (scores compare only within one list). */
export interface Ranked {
  name: string;
  score: number;
}

/** Sorts in place by score, best first; name breaks ties so the order is reproducible. */
export function sortRanked(ranked: Ranked[]): Ranked[] {
  return ranked.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
