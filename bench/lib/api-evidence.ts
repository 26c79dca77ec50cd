import { sortRanked, type Ranked } from "../../functions/toolnet/retrieval/ranked";

/**
 * Hierarchical evidence: a request about a service often names the service as a whole better
 * than any one of its operations (its words are spread over the API's operations). Each tool's
 * score is mixed with its API's score.
 */

/**
 * How an API is scored from its tools' scores (each as a share of the best tool's): the best one,
 * their sum, their sum over the API's size (these three then as a share of the best API's), or
 * `topM`: the mean of its M best over min(M, the API's size), so a one-tool API scores as its tool.
 */
export type ApiScoring = "max" | "sum" | "mean" | `top${number}`;

/**
 * How a tool's share s of the best score meets its API's score a: `add` s + λ·a; `capped`
 * s + λ·min(a, s) (an API lifts a tool by at most what its own text earns); `scaled` s·(1 + λ·a);
 * `penalty` s − λ / (1 + λ)·max(0, own − a), with `own` the tool's share before coverage (the same
 * order as `capped` before coverage; after it, coverage's order lowered only by what a tool's API does not back).
 */
export type ApiMix = "add" | "capped" | "scaled" | "penalty";

export interface ApiEvidenceSettings {
  weight: number;
  scoring: ApiScoring;
  mix?: ApiMix;
  /** The best match keeps first place (as coverage keeps it); the evidence re-orders the rest. */
  keepFirst?: boolean;
}

/**
 * `ranked` (best first) re-scored with its APIs' evidence. `apiOf` gives a tool's API (a tool
 * alone in its API is its own); `apiSize` how many tools the API has. The APIs are scored from
 * `evidence` (default `ranked`: the tools' own scores; after coverage, the ranking before it).
 * Scores of tools not ranked count 0.
 */
export function withApiEvidence(
  ranked: readonly Ranked[],
  apiOf: (tool: string) => string,
  apiSize: (api: string) => number,
  settings: ApiEvidenceSettings,
  evidence: readonly Ranked[] = ranked,
): Ranked[] {
  const best = evidence[0]?.score ?? 0;
  if (settings.weight <= 0 || best <= 0) return [...ranked];
  const apiScores = scoreApis(evidence, apiOf, apiSize, settings.scoring);
  if (settings.scoring === "max" || settings.scoring === "sum" || settings.scoring === "mean") {
    const bestApi = Math.max(...apiScores.values(), 0);
    if (bestApi <= 0) return [...ranked];
    for (const [api, score] of apiScores) apiScores.set(api, score / bestApi);
  }
  const own = new Map(evidence.map((r) => [r.name, r.score / best]));
  return mixApiScores(ranked, apiOf, apiScores, settings, own);
}

/** Each API's score from the shares of the best score its ranked tools earn. */
function scoreApis(ranked: readonly Ranked[], apiOf: (tool: string) => string, apiSize: (api: string) => number, scoring: ApiScoring): Map<string, number> {
  const best = ranked[0]?.score ?? 0;
  const shares = new Map<string, number[]>();
  for (const r of ranked) {
    const api = apiOf(r.name);
    const list = shares.get(api);
    if (list === undefined) shares.set(api, [r.score / best]);
    else list.push(r.score / best);
  }
  const scores = new Map<string, number>();
  for (const [api, list] of shares) {
    const sum = list.reduce((a, b) => a + b, 0);
    if (scoring === "max") scores.set(api, Math.max(...list));
    else if (scoring === "sum") scores.set(api, sum);
    else if (scoring === "mean") scores.set(api, sum / Math.max(1, apiSize(api)));
    else {
      const m = Number(scoring.slice("top".length));
      // Ranked best first, so the API's first m shares are its best.
      const top = list.slice(0, m).reduce((a, b) => a + b, 0);
      scores.set(api, top / Math.max(1, Math.min(m, apiSize(api))));
    }
  }
  return scores;
}

/** `ranked` re-scored from each tool's share of the best score and its API's score in `apiScores` (0 when absent). */
export function mixApiScores(
  ranked: readonly Ranked[],
  apiOf: (tool: string) => string,
  apiScores: ReadonlyMap<string, number>,
  settings: Pick<ApiEvidenceSettings, "weight" | "mix" | "keepFirst">,
  own?: ReadonlyMap<string, number>,
): Ranked[] {
  const best = ranked[0]?.score ?? 0;
  const { weight } = settings;
  if (weight <= 0 || best <= 0) return [...ranked];
  const mixed = ranked.map((r) => {
    const share = r.score / best;
    const api = apiScores.get(apiOf(r.name)) ?? 0;
    const unbacked = Math.max(0, (own?.get(r.name) ?? share) - api);
    const score =
      settings.mix === "penalty"
        ? share - (weight * unbacked) / (1 + weight)
        : settings.mix === "capped"
          ? share + weight * Math.min(api, share)
          : settings.mix === "scaled"
            ? share * (1 + weight * api)
            : share + weight * api;
    return { name: r.name, score };
  });
  const first = mixed[0];
  if (settings.keepFirst !== true || first === undefined) return sortRanked(mixed);
  const rest = sortRanked(mixed.slice(1));
  return [{ name: first.name, score: Math.max(first.score, rest[0]?.score ?? 0) }, ...rest];
}
