import { describe, expect, it } from "vitest";
import { analyze } from "../../functions/toolnet/retrieval/analyze";
import {
  boundedDelta,
  callOutcome,
  closeSession,
  emptySession,
  implicitScores,
  observe,
  reducedTask,
  type Observation,
  type SessionState,
} from "../../functions/toolnet/observed-session";
import { taskShape } from "../../functions/toolnet/task-shape";

const fold = (observations: Observation[], state: SessionState = emptySession()) => {
  const closed = [];
  let current = state;
  for (const observation of observations) {
    const result = observe(current, observation, { maxTrajectories: 2, maxSteps: 3 });
    if (result.closed !== undefined) closed.push(result.closed);
    current = result.state;
  }
  return { state: current, closed };
};

const search = (task: string, previous: string | null = null, offered: string[] = []): Observation => ({ kind: "search", task, previous, offered });
const call = (tool: string, outcome: "success" | "failure" = "success"): Observation => ({ kind: "call", tool, outcome });

describe("observed sessions (implicit learning)", () => {
  it("joins the calls after a search into one trajectory, closed by the next task's search", () => {
    const { state, closed } = fold([search("find a movie"), call("a"), search("find a movie", "a"), call("b"), search("another task"), call("c")]);
    expect(closed).toEqual([{ task: "find a movie", tools: ["a", "b"], outcomes: ["success", "success"] }]);
    expect(closeSession(state)).toEqual({ task: "another task", tools: ["c"], outcomes: ["success"] });
  });

  it("ignores calls with no search before them, and a re-asked first step replaces the task", () => {
    const { state, closed } = fold([call("x"), search("first wording"), search("second wording"), call("a")]);
    expect(closed).toEqual([]);
    expect(closeSession(state)?.task).toBe("second wording");
    expect(closeSession(emptySession())).toBeUndefined();
  });

  it("caps trajectories per conversation and steps per trajectory", () => {
    const { state, closed } = fold([search("t1"), call("a"), call("a"), call("a"), call("a"), search("t2"), call("b"), search("t3"), call("c")]);
    expect(closed.map((t) => t.tools)).toEqual([["a", "a", "a"], ["b"]]);
    expect(state.open).toBeNull();
  });

  it("says whether the search had offered the tool called next", () => {
    const first = observe(emptySession(), search("t", null, ["a", "b"]));
    expect(observe(first.state, call("b")).offeredHit).toBe(true);
    expect(observe(first.state, call("z")).offeredHit).toBe(false);
    expect(observe(observe(first.state, call("b")).state, call("c")).offeredHit).toBeUndefined();
  });

  it("weak outcomes: 2xx success, 5xx / no answer / refused failure; explicit tools left out; bounded totals", () => {
    expect([callOutcome(200, false), callOutcome(503, false), callOutcome(undefined, false), callOutcome(200, true), callOutcome(404, false)]).toEqual([
      "success",
      "failure",
      "failure",
      "failure",
      "neutral",
    ]);
    const scores = implicitScores({ task: "t", tools: ["a", "b", "a", "c"], outcomes: ["success", "failure", "success", "success"] }, new Set(["c"]));
    expect(Object.fromEntries(scores)).toEqual({ a: 1, b: -1 });
    expect([boundedDelta(2, 1, 2), boundedDelta(1, 1, 2), boundedDelta(-2, -1, 2), boundedDelta(2, -1, 2)]).toEqual([0, 1, 0, -1]);
  });

  it("a reduced task keeps the terms task memory reads and none of its argument values", () => {
    for (const task of [
      'Who starred in "Heat", the film Michael Mann made in 1995?',
      "Get the movieCredits of Inception and list the cast",
      "weather 2024-05-01",
    ]) {
      const reduced = reducedTask(task);
      expect(new Set(analyze(taskShape(reduced)).length > 0 ? analyze(taskShape(reduced)) : analyze(reduced))).toEqual(
        new Set(analyze(taskShape(task)).length > 0 ? analyze(taskShape(task)) : analyze(task)),
      );
    }
    expect(reducedTask('Who starred in "Heat", the film Michael Mann made in 1995?')).toBe("film made starred");
  });
});
