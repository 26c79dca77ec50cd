import { describe, expect, it } from "vitest";
import type { Loaded } from "../../functions/routing/loaded-routing";
import { RECALIBRATE_INTERVAL_MS, RoutingCalibration, type ReplayRankings } from "../../functions/routing/routing-calibration";
import { addTools, addTrajectories, createGraph } from "../../functions/toolnet/graph";

/**
 * The tenant's signal calibration runs in its object's alarm, and a Durable Object runs one thing
 * at a time (issue 42): a slice hands the object back between the pieces of its replay, stops
 * within its budget of rankings even inside a task of many steps, and a small memory is not
 * replayed again after every new task.
 */

type Sampled = { id: string; task: string; tools: string[] };

/** SQLite as the calibration reads it: the sampled tasks, newest first; no stored calibration; writes accepted. */
function fakeSql(tasks: readonly Sampled[]): SqlStorage {
  const cursor = (rows: unknown[]) => ({ toArray: () => rows, raw: () => rows[Symbol.iterator](), rowsWritten: 0 });
  return {
    exec(query: string) {
      if (query.includes("FROM graph_trajectories WHERE task IS NOT NULL"))
        return cursor(tasks.map((t) => ({ id: t.id, task: t.task, tools: JSON.stringify(t.tools) })));
      return cursor([]);
    },
  } as unknown as SqlStorage;
}

/** A loaded routing state over `tools` (their graph, no data flow), whose task memory counts the later-step votes the replay asks for. */
function loadedState(tools: readonly string[], memory: { version: number; size: number }) {
  const graph = createGraph();
  addTools(graph, [...tools]);
  addTrajectories(graph, [{ id: "walk", tools: [...tools] }]);
  const counts = { laterStepVotes: 0 };
  const state = {
    graph,
    index: { version: 1 },
    flow: { successors: () => [] },
    memory: {
      get version() {
        return memory.version;
      },
      get size() {
        return memory.size;
      },
      votes: (_task: string, options: { tools: unknown }) => {
        if (typeof options.tools === "object") counts.laterStepVotes += 1;
        return [];
      },
    },
  } as unknown as Loaded;
  return { state, counts };
}

/** Rankings by the words alone that count the tasks whose first step was replayed. */
function countingRankings(tools: readonly string[]) {
  const counts = { firstSteps: 0 };
  const ranking = () => tools.map((name, i) => ({ name, score: tools.length - i }));
  const rankings: ReplayRankings = {
    firstRanking: () => {
      counts.firstSteps += 1;
      return ranking();
    },
    laterRanking: ranking,
    taskVector: () => undefined,
    learned: () => undefined,
    startsSetting: () => 0,
    unmatched: () => [],
  };
  return { rankings, counts };
}

const macrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const oneStepTasks = (count: number): Sampled[] => Array.from({ length: count }, (_, i) => ({ id: `t${i}`, task: `request ${i}`, tools: ["tool0"] }));

describe("a calibration slice hands the tenant object back", () => {
  it("answers a request queued while the slice runs after the first task's replay, not after the slice", async () => {
    const tools = ["tool0", "tool1"];
    const { state } = loadedState(tools, { version: 8, size: 8 });
    const { rankings, counts } = countingRankings(tools);
    let handBacks = 0;
    const calibration = new RoutingCalibration(fakeSql(oneStepTasks(8)), rankings, () => undefined, {
      handBack: async () => {
        handBacks += 1;
        await macrotask();
      },
    });
    calibration.weights(state);
    expect(calibration.dueAt()).not.toBeNull();

    // A request for the object, queued (a macrotask) before the alarm's slice starts: it runs when the slice hands the object back.
    let replayedWhenAnswered: number | undefined;
    setTimeout(() => {
      replayedWhenAnswered = counts.firstSteps;
    }, 0);
    // A budget that holds every task: the whole replay is one slice.
    expect(await calibration.slice(state, 1_000)).toBe(false);
    expect(counts.firstSteps).toBe(8);
    expect(replayedWhenAnswered).toBe(1);
    expect(handBacks).toBeGreaterThanOrEqual(7);
    expect(calibration.report().stale).toBe(false);
  });

  it("stops a slice within its budget inside a task of many steps, and the next slice continues where it stopped", async () => {
    const tools = Array.from({ length: 41 }, (_, i) => `tool${i}`);
    const { state, counts } = loadedState(tools, { version: 3, size: 3 });
    const { rankings } = countingRankings(tools);
    // One task of 40 later steps between two one-step tasks.
    const tasks = [oneStepTasks(1)[0] as Sampled, { id: "long", task: "a long walk", tools }, { id: "last", task: "one more", tools: ["tool0"] }];
    const calibration = new RoutingCalibration(fakeSql(tasks), rankings, () => undefined, { handBack: macrotask });
    calibration.weights(state);

    const budget = 24;
    const stepsPerSlice: number[] = [];
    for (let slice = 0; slice < 20; slice += 1) {
      const before = counts.laterStepVotes;
      const more = await calibration.slice(state, budget);
      stepsPerSlice.push(counts.laterStepVotes - before);
      if (!more) break;
    }
    // Each step is one ranking: no slice judges more steps than its budget, and every step is judged once.
    expect(stepsPerSlice.length).toBeGreaterThan(1);
    for (const steps of stepsPerSlice) expect(steps).toBeLessThanOrEqual(budget);
    expect(stepsPerSlice.reduce((a, b) => a + b, 0)).toBe(40);
    expect(calibration.report().replays.transitions.judged).toBe(40);
  });

  it("leaves the work to a slice already running, and starts again on a state that changed while it waited", async () => {
    const tools = ["tool0", "tool1"];
    const memory = { version: 8, size: 8 };
    const first = loadedState(tools, memory).state;
    const changed = loadedState(tools, memory).state;
    let current = first;
    const { rankings, counts } = countingRankings(tools);
    const calibration = new RoutingCalibration(fakeSql(oneStepTasks(8)), rankings, () => undefined, { current: () => current, handBack: macrotask });
    calibration.weights(first);

    const running = calibration.slice(first, 1_000);
    // An alarm delivered while the slice waits replays nothing itself.
    expect(await calibration.slice(first, 1_000)).toBe(true);
    expect(counts.firstSteps).toBe(1);
    // The catalog changed meanwhile: the running slice stops, and the next replays every task on the new state.
    current = changed;
    expect(await running).toBe(true);
    expect(counts.firstSteps).toBe(1);
    expect(await calibration.slice(changed, 1_000)).toBe(false);
    expect(counts.firstSteps).toBe(9);
  });
});

describe("a small task memory is not replayed after every new task", () => {
  it("is due again after a share of new tasks, and no sooner than the interval after the last calibration", async () => {
    const tools = ["tool0", "tool1"];
    const memory = { version: 10, size: 10 };
    const { state } = loadedState(tools, memory);
    const { rankings } = countingRankings(tools);
    const calibration = new RoutingCalibration(fakeSql(oneStepTasks(10)), rankings, () => undefined, { handBack: macrotask });
    calibration.weights(state);
    while (await calibration.slice(state)) {}
    const madeAt = Date.parse(calibration.report().madeAt ?? "");

    // One new task in a memory of 10: the weights stay fresh.
    memory.version += 1;
    memory.size += 1;
    calibration.weights(state);
    expect(calibration.dueAt()).toBeNull();
    expect(calibration.report().stale).toBe(false);

    // Four new tasks: due, but not before the interval since the last calibration has passed.
    memory.version += 3;
    memory.size += 3;
    calibration.weights(state);
    expect(calibration.dueAt()).toBeGreaterThanOrEqual(madeAt + RECALIBRATE_INTERVAL_MS);
    expect(calibration.report().stale).toBe(true);
  });
});
