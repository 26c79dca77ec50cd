/**
 * Whether a tenant's history may overrule the task's words at the first step. Similar earlier
 * tasks vote for the tool they started with; on some tenants that vote is right far more often
 * than the words' best match (RestBench TMDB: 23 of 46 voted tasks against 7 of 50), on others far
 * less (Seal-Tools: 129 of 589 against 512 of 1,027), and no single task's vote shows which tenant
 * it is on. So the tenant's own remembered tasks decide: for each, what the others would have
 * voted and what the words put first, against the tool it did start with.
 */

/** How often, over the tenant's sampled tasks that history voted for, each first choice was right. */
export interface HistoryCalibration {
  readonly voted: number;
  readonly history: number;
  readonly words: number;
}

/** A remembered task as calibration reads it: the tool it started with, history's first vote without it, the words' first choice. */
export interface CalibrationSample {
  readonly started: string;
  readonly voted: string | undefined;
  readonly words: string | undefined;
}

/** The most recently remembered tasks a calibration reads (each costs a search and a vote). */
export const CALIBRATION_SAMPLE = 64;

export function calibrate(samples: Iterable<CalibrationSample>): HistoryCalibration {
  let voted = 0;
  let history = 0;
  let words = 0;
  for (const sample of samples) {
    if (sample.voted === undefined) continue;
    voted += 1;
    if (sample.voted === sample.started) history += 1;
    if (sample.words === sample.started) words += 1;
  }
  return { voted, history, words };
}

/**
 * History leads (may overrule the best match) where it was right more often than the words; on a
 * tie the best match stays first. Before any remembered task could be judged (none had a vote
 * from the others), history leads: a tenant's first sessions teach its first steps at once.
 */
export function historyLeads(calibration: HistoryCalibration): boolean {
  return calibration.voted === 0 || calibration.history > calibration.words;
}
