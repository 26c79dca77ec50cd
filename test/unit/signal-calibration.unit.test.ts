import { describe, expect, it } from "vitest";
import {
  CALIBRATED_SIGNALS,
  calibratedEntry,
  chooseWeights,
  chosenWeight,
  DEFAULT_SIGNAL_WEIGHTS,
  emptyReplay,
  judge,
} from "../../functions/toolnet/signal-calibration";

const embeddings = calibratedEntry("embeddings");

/** A replay of `entry` over `tasks` judged tasks, each held at the weights `held` says. */
function replayOf(entry: typeof embeddings, tasks: number, held: (weight: number, task: number) => boolean) {
  const replay = emptyReplay(entry);
  for (let task = 0; task < tasks; task += 1) judge(entry, replay, (weight) => held(weight, task));
  return replay;
}

describe("signal weights chosen from a tenant's replayed tasks", () => {
  it("mutes embeddings where the replay held fewer tools with them than with the words alone", () => {
    // Every fourth task is found only without embeddings.
    const replay = replayOf(embeddings, 20, (weight, task) => weight === 0 || task % 4 !== 0);
    expect(chosenWeight(embeddings, replay)).toBe(0);
  });

  it("keeps embeddings, at the weight that held most, where they found what the words did not", () => {
    const helps = replayOf(embeddings, 20, (weight, task) => weight > 0 || task % 2 === 0);
    expect(chosenWeight(embeddings, helps)).toBeGreaterThan(0);
    // Where only the full weight finds some tasks, the full weight is chosen.
    const full = replayOf(embeddings, 20, (weight, task) => weight === 1 || task % 5 !== 0);
    expect(chosenWeight(embeddings, full)).toBe(1);
  });

  it("a tie goes to the lower weight: a signal must earn its weight", () => {
    expect(
      chosenWeight(
        embeddings,
        replayOf(embeddings, 20, () => true),
      ),
    ).toBe(0);
    const history = calibratedEntry("history");
    expect(
      chosenWeight(
        history,
        replayOf(history, 6, (weight, task) => (weight > 0 ? task < 3 : task >= 3)),
      ),
    ).toBe(0);
  });

  it("falls back to each signal's default with too few judged tasks", () => {
    // Embeddings hurt on every judged task, but 15 tasks are too few to judge (16 needed).
    const few = replayOf(embeddings, embeddings.minJudged - 1, (weight) => weight === 0);
    expect(chosenWeight(embeddings, few)).toBe(embeddings.fallback);
    const transitions = calibratedEntry("transitions");
    expect(
      chosenWeight(
        transitions,
        replayOf(transitions, 7, (weight) => weight === 0),
      ),
    ).toBe(1);
    expect(
      chosenWeight(
        transitions,
        replayOf(transitions, 8, (weight) => weight === 0),
      ),
    ).toBe(0);
    // Transitions are left out only when the replay holds 2 more steps without them: a near tie keeps them.
    expect(chosenWeight(transitions, { judged: 80, hits: [65, 64] })).toBe(1);
    expect(chosenWeight(transitions, { judged: 80, hits: [66, 64] })).toBe(0);
    // Nothing replayed: every default.
    expect(chooseWeights({})).toEqual(DEFAULT_SIGNAL_WEIGHTS);
    expect(chooseWeights({ embeddings: few })).toEqual(DEFAULT_SIGNAL_WEIGHTS);
  });

  it("lists each signal once, its grid ascending from a muted 0, its default in its grid", () => {
    const signals = CALIBRATED_SIGNALS.map((e) => e.signal);
    expect(new Set(signals).size).toBe(signals.length);
    for (const entry of CALIBRATED_SIGNALS) {
      expect(entry.grid[0]).toBe(0);
      expect([...entry.grid].sort((a, b) => a - b)).toEqual([...entry.grid]);
      expect(entry.grid).toContain(entry.fallback);
    }
  });
});
