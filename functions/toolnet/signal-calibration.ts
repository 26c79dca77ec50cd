/**
 * How much each routing signal counts for one tenant, chosen from its own traffic. The tenant's
 * recent remembered tasks are replayed (each one's own contribution left out: its text out of the
 * votes, its transitions out of what was learned) with each signal at every weight of a small
 * grid, and each signal gets the weight under which the replay held the tool the task really
 * used most often. The tool's own text (BM25 over its fields) is the reference every other signal
 * is weighed against: reciprocal rank fusion depends only on the weights' ratios, so one of them
 * stays fixed at 1.
 *
 * A signal is one entry of CALIBRATED_SIGNALS: its grid, its default, and how many replayed
 * tasks it needs before its own evidence counts. One more signal is one more entry and one more
 * replay judge (storage/routing-calibration.ts).
 */

/** The signals a tenant's traffic weighs. */
export type CalibratedSignal = "history" | "transitions" | "embeddings" | "learned" | "starts" | "unmatched";

export interface CalibratedSignalEntry {
  readonly signal: CalibratedSignal;
  /** The weights tried, lowest first; 0 mutes the signal. */
  readonly grid: readonly number[];
  /** The weight of a tenant whose replay has too few judged tasks for this signal. */
  readonly fallback: number;
  /** Judged tasks (or steps) needed before the replay's choice replaces the fallback. */
  readonly minJudged: number;
  /**
   * How many more judged tasks another weight must hold than the fallback to replace it (0: any
   * weight holding as many replaces it, the lowest first). Above 0 where the replay is noisier
   * than the choice is worth: a near tie keeps the default.
   */
  readonly margin: number;
}

/**
 * - `history`: whether similar earlier tasks may overrule the words' best match at a first step
 *   (1) or only widen the rest (0). Judged on the tasks some other task voted for: history's
 *   first vote against the words' first choice. Before any task can be judged, history leads, so
 *   a tenant's first sessions teach at once.
 * - `transitions`: the weight of learned transitions at later steps (0: left out). Judged on the
 *   replayed later steps, the next tool in the first 5; with fewer than 8 steps they take part,
 *   and they are left out only when the replay holds at least 2 more steps without them. On
 *   RestBench TMDB taught four folds over HTTP, the 64 replayed tasks' steps came out within one
 *   step either way (65/64, 70/69, 64/67, 69/71, 66/66 without/with), so three folds of five left
 *   them out and the held-out steps lost 3 of 126 at hit@5 (0.833 → 0.810); Seal-Tools' replay,
 *   where they do push the right tool out, is 9 steps apart.
 * - `embeddings`: the weight of the embeddings ranking against BM25's in the task's relevance
 *   (0: the words alone). Judged on replayed tasks whose text was embedded (the first tool in the
 *   first 5). A small encoder reads some catalogs of look-alike tools poorly and lowers their
 *   recall (StableToolBench, Seal-Tools), while it finds paraphrases on chatty ones (API-Bank);
 *   no one weight suits both, and the tenant's own tasks show which it is. The fallback is the
 *   service's weight (1).
 * - `learned`: how much of the tenant's `learning.fieldWeight` the learned field (the words of
 *   the requests that chose each tool) counts at a first step: 0 mutes it, 0.5 halves it; the
 *   replay never raises it above the setting (a grid up to 2 chose 2 on every RestBench TMDB fold
 *   and lost a held-out first step, 0.860 → 0.850 recall@5, with nothing gained elsewhere). Judged
 *   on every replayed task while the tenant's tools have learned words, with the task's own
 *   words taken out of the field (learned-field.ts `search` without its source): a field judged
 *   on its own teaching holds every task. Where requests share their framing across tools
 *   (long multi-tool requests over look-alike catalogs) learned words push the right tool out;
 *   where tools recur with reworded requests they find it. Changed only on a margin of 2 tasks,
 *   as transitions: a near tie keeps the default.
 * - `starts`: the weight of the tenant's usual starts (first-step-prior.ts: the tools a large
 *   share of its recent conversations began with) at a first step, against a relevance rank's 1.
 *   Judged on every replayed task while the tenant has usual starts, as routing fuses its first
 *   step (the words, the learned field, similar tasks' votes), with the task's own start left
 *   out. It lifts gateways the dialogue picks (a tool search, a sign-in) that share no word with
 *   the request, and pushes a better match out of the first 5 where starts are spread; the
 *   fallback mutes it (a tenant with few tasks gets routing as before) and only a margin of 2
 *   tasks turns it on.
 * - `unmatched`: the weight of the tools the tenant's users chose where the request's words found
 *   nothing (first-step-prior.ts unmatchedChoices: those whose learned field holds the
 *   pseudo-word) as a list of their own at a first step, against a relevance rank's 1. Judged on
 *   every replayed task while some tool holds the pseudo-word, fused as routing fuses its first
 *   step (with the usual starts at their current weight), with what the task's own conversation
 *   taught left out. An answer engine asked open questions is chosen where the words find
 *   nothing, and its next question shares no word with the last; the list lifts it into the first
 *   5 from just below; it adds at most a quarter of a first relevance rank's share, and only to
 *   the 5 tools most chosen so, so a tenant with little traffic gets it at 0.25 (a small lift to
 *   the few tools it chose past the words). Muted where the replay holds 2 more tasks without it
 *   (as `learned` and `starts`, a near tie keeps the default). Chosen on half a of ToolAlpaca
 *   (seeds 40–49, 1,080 first steps): at 0.25 for every tenant 1,005 hits against 996 without,
 *   no seed lower; chosen by the replay with ties muting it (default 0), 996: on a stream where it
 *   helps a few tasks in a hundred, a replay of 64 tasks is a near tie about as often as not.
 */
export const CALIBRATED_SIGNALS: readonly CalibratedSignalEntry[] = [
  { signal: "history", grid: [0, 1], fallback: 1, minJudged: 1, margin: 0 },
  { signal: "transitions", grid: [0, 1], fallback: 1, minJudged: 8, margin: 2 },
  { signal: "embeddings", grid: [0, 0.25, 0.5, 1], fallback: 1, minJudged: 16, margin: 0 },
  { signal: "learned", grid: [0, 0.5, 1], fallback: 1, minJudged: 16, margin: 2 },
  { signal: "starts", grid: [0, 0.25, 0.5, 1], fallback: 0, minJudged: 16, margin: 2 },
  { signal: "unmatched", grid: [0, 0.25], fallback: 0.25, minJudged: 16, margin: 2 },
];

/** One signal's replay: how many tasks (or steps) were judged, and how many of them held the right tool at each weight of its grid. */
export interface SignalReplay {
  judged: number;
  hits: number[];
}

/** A tenant's weight of every calibrated signal. */
export type SignalWeights = Readonly<Record<CalibratedSignal, number>>;

/** The weights of a tenant with no replay yet: every signal's fallback. */
export const DEFAULT_SIGNAL_WEIGHTS: SignalWeights = Object.fromEntries(CALIBRATED_SIGNALS.map((e) => [e.signal, e.fallback])) as SignalWeights;

/** An empty replay of `entry`: nothing judged, no hit at any weight. */
export function emptyReplay(entry: CalibratedSignalEntry): SignalReplay {
  return { judged: 0, hits: entry.grid.map(() => 0) };
}

/**
 * The weight the replay chose for `entry`: the fallback with fewer than `minJudged` judged;
 * otherwise the weight with the most hits, the lowest among ties — a signal must earn its weight,
 * so one whose replay hurts (or does not help) is muted or weakened — unless it holds fewer than
 * `margin` more than the fallback.
 */
export function chosenWeight(entry: CalibratedSignalEntry, replay: SignalReplay): number {
  if (replay.judged < entry.minJudged) return entry.fallback;
  let best = 0;
  for (let i = 1; i < entry.grid.length; i += 1) if ((replay.hits[i] ?? 0) > (replay.hits[best] ?? 0)) best = i;
  const fallbackHits = replay.hits[entry.grid.indexOf(entry.fallback)] ?? 0;
  if (entry.margin > 0 && (replay.hits[best] ?? 0) - fallbackHits < entry.margin) return entry.fallback;
  return entry.grid[best] ?? entry.fallback;
}

/** Every signal's chosen weight from its replay (a signal not replayed keeps its fallback). */
export function chooseWeights(replays: Partial<Record<CalibratedSignal, SignalReplay>>): SignalWeights {
  return Object.fromEntries(
    CALIBRATED_SIGNALS.map((entry) => {
      const replay = replays[entry.signal];
      return [entry.signal, replay === undefined ? entry.fallback : chosenWeight(entry, replay)];
    }),
  ) as SignalWeights;
}

/** Records one judged task of `entry`: `held(weight)` says whether the replay at that weight held the right tool. */
export function judge(entry: CalibratedSignalEntry, replay: SignalReplay, held: (weight: number) => boolean): void {
  replay.judged += 1;
  entry.grid.forEach((weight, i) => {
    if (held(weight)) replay.hits[i] = (replay.hits[i] ?? 0) + 1;
  });
}

export function calibratedEntry(signal: CalibratedSignal): CalibratedSignalEntry {
  const entry = CALIBRATED_SIGNALS.find((e) => e.signal === signal);
  if (entry === undefined) throw new Error(`no calibrated signal ${signal}`);
  return entry;
}
