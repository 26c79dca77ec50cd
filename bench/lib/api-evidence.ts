import { sortRanked, type Ranked } from "../../functions/toolnet/retrieval/ranked";

/**
 * Hierarchical evidence: a request about a service often names the service as a whole better
 * than any one of its operations (its words are spread over the API's operations). Each tool's
 * score is mixed with its API's: s' = s / best + weight · apiScore / bestApiScore.
 */

/** How an API is scored from its tools' scores in the ranking: the best one, their sum, or their sum over the API's size. */
export type ApiScoring = "max" | "sum" | "mean";

export interface ApiEvidenceSettings {
  weight: number;
  scoring: ApiScoring;
}

/**
 * `ranked` (best first) re-scored with its APIs' evidence. `apiOf` gives a tool's API (a tool
 * alone in its API is its own); `apiSize` how many tools the API has (for "mean"). Scores of
 * tools not in `ranked` count 0.
 */
export function withApiEvidence(
  ranked: readonly Ranked[],
  apiOf: (tool: string) => string,
  apiSize: (api: string) => number,
  settings: ApiEvidenceSettings,
): Ranked[] {
  const best = ranked[0]?.score ?? 0;
  if (settings.weight <= 0 || best <= 0) return [...ranked];
  const apiScores = new Map<string, number>();
  for (const r of ranked) {
    const api = apiOf(r.name);
    const share = r.score / best;
    const known = apiScores.get(api) ?? 0;
    apiScores.set(api, settings.scoring === "max" ? Math.max(known, share) : known + share);
  }
  if (settings.scoring === "mean") for (const [api, sum] of apiScores) apiScores.set(api, sum / Math.max(1, apiSize(api)));
  return mixApiScores(ranked, apiOf, apiScores, settings.weight);
}

/** `ranked` re-scored as s / best + weight · apiScores(api) / best API score (APIs not scored count 0). */
export function mixApiScores(ranked: readonly Ranked[], apiOf: (tool: string) => string, apiScores: ReadonlyMap<string, number>, weight: number): Ranked[] {
  const best = ranked[0]?.score ?? 0;
  const bestApi = Math.max(...apiScores.values(), 0);
  if (weight <= 0 || best <= 0 || bestApi <= 0) return [...ranked];
  return sortRanked(ranked.map((r) => ({ name: r.name, score: r.score / best + weight * ((apiScores.get(apiOf(r.name)) ?? 0) / bestApi) })));
}
