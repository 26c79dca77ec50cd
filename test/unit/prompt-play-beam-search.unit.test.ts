import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import {
  initialBeamState,
  rankNodes,
  runBeamSearch,
  type BeamNode,
  type BeamProblem,
  type BeamSearchState,
  type Candidate,
} from "../../functions/prompt-play/beam-search";
import { budgetExhausted } from "../../functions/prompt-play/budget";
import { PAPER_DEFAULTS, validateBeamSettings, validatePlaySettings } from "../../functions/prompt-play/settings";

/**
 * A toy problem: a state is the path of expansion indices from the root ("", "0", "02", …) and
 * its score is a fixed pseudo-random function of the path, so the best k at each depth can be
 * computed independently by brute force.
 */
function toyScore(path: string): number {
  let h = 2166136261;
  for (const c of `p:${path}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return (h % 1000) / 1000;
}

function toyProblem(
  options: { score?: (path: string) => number; log?: string[]; stopAfter?: number; reject?: (path: string) => boolean } = {},
): BeamProblem<string> {
  const score = options.score ?? toyScore;
  let expansions = 0;
  return {
    async expand(parent, expansion) {
      expansions++;
      const path = `${parent.state}${expansion}`;
      options.log?.push(path);
      if (options.reject?.(path) === true) return undefined;
      return { state: path, score: score(path), summary: `path ${path}` };
    },
    shouldStop: () => options.stopAfter !== undefined && expansions >= options.stopAfter,
  };
}

const root: Candidate<string>[] = [{ state: "", score: toyScore(""), summary: "root" }];

/** The beam a correct search must keep at each depth, computed without the module under test. */
function bruteForceBeams(depth: number, width: number, perNode: number): string[][] {
  const beams: string[][] = [[""]];
  for (let d = 1; d <= depth; d++) {
    const prev = beams[d - 1] ?? [];
    const children = prev.flatMap((p) => Array.from({ length: perNode }, (_, j) => `${p}${j}`));
    // Order of creation is parent-major, so ties go to the earlier parent, then the earlier sample.
    const ordered = children.map((path, index) => ({ path, index, score: toyScore(path) }));
    ordered.sort((a, b) => b.score - a.score || a.index - b.index);
    beams.push(ordered.slice(0, width).map((c) => c.path));
  }
  return beams;
}

function pathsById(state: BeamSearchState<string>): Map<string, string> {
  const all = new Map<string, string>();
  for (const n of [...state.beam, ...state.children, ...state.best]) all.set(n.id, n.state);
  return all;
}

describe("beam search bookkeeping", () => {
  it("keeps the best k children at each depth and respects depth, width and expansions per node", async () => {
    const settings = { depth: 4, beamWidth: 3, expansionsPerNode: 3 };
    const log: string[] = [];
    const outcome = await runBeamSearch({
      settings,
      state: initialBeamState(root, { rootsAreResults: true, keepBest: 5 }),
      keepBest: 5,
      problem: toyProblem({ log }),
    });

    expect(outcome.stoppedBy).toBe("depth");
    expect(outcome.records.map((r) => r.depth)).toEqual([0, 1, 2, 3, 4]);
    // Depth 1 expands the single root; later depths expand a full beam of 3.
    expect(log.length).toBe(3 + 9 + 9 + 9);
    const expected = bruteForceBeams(4, 3, 3);
    for (const record of outcome.records.slice(1)) {
      expect(record.beam.length).toBeLessThanOrEqual(3);
      expect(record.candidates.length).toBe(record.depth === 1 ? 3 : 9);
      const scores = record.beam.map((e) => e.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      // The summaries carry the path, so the kept beam can be compared with brute force.
      expect(record.beam.map((e) => e.summary.replace("path ", ""))).toEqual(expected[record.depth]);
      // Every kept node's parent was in the previous beam.
      const previous = new Set(outcome.records[record.depth - 1]?.beam.map((e) => e.id));
      for (const e of record.beam) expect(previous.has(e.parentId ?? "")).toBe(true);
    }
  });

  it("keeps the best nodes overall, the root included when it is a result", async () => {
    const settings = { depth: 3, beamWidth: 2, expansionsPerNode: 2 };
    const outcome = await runBeamSearch({
      settings,
      state: initialBeamState(root, { rootsAreResults: true, keepBest: 3 }),
      keepBest: 3,
      problem: toyProblem(),
    });
    const allScores = [toyScore(""), ...outcome.records.slice(1).flatMap((r) => r.candidates.map((c) => c.score))].sort((a, b) => b - a);
    expect(outcome.best.map((n) => n.score)).toEqual(allScores.slice(0, 3));

    const noRoot = await runBeamSearch({
      settings,
      state: initialBeamState([{ state: "", score: 2, summary: "root" }], { rootsAreResults: false, keepBest: 3 }),
      keepBest: 3,
      problem: toyProblem(),
    });
    expect(noRoot.best.every((n) => n.depth > 0)).toBe(true);
  });

  it("is deterministic, with ties going to the shallower, then the earlier node", async () => {
    const settings = { depth: 2, beamWidth: 2, expansionsPerNode: 3 };
    const flat = (): Promise<unknown> =>
      runBeamSearch({
        settings,
        state: initialBeamState([{ state: "", score: 0.5, summary: "root" }], { rootsAreResults: true, keepBest: 2 }),
        keepBest: 2,
        problem: toyProblem({ score: () => 0.5 }),
      });
    const a = await flat();
    const b = await flat();
    expect(a).toEqual(b);
    const outcome = await runBeamSearch({
      settings,
      state: initialBeamState([{ state: "", score: 0.5, summary: "root" }], { rootsAreResults: true, keepBest: 2 }),
      keepBest: 2,
      problem: toyProblem({ score: () => 0.5 }),
    });
    expect(outcome.records[1]?.beam.map((e) => e.id)).toEqual(["1.0", "1.1"]);
    expect(outcome.records[2]?.beam.map((e) => e.id)).toEqual(["2.0", "2.1"]);
    // A child that only ties the root does not displace it.
    expect(outcome.best.map((n) => n.id)).toEqual(["0.0", "1.0"]);
  });

  it("drops duplicate candidates by key", async () => {
    const problem: BeamProblem<string> = {
      expand: async (_parent, expansion) => ({ state: expansion < 2 ? "same" : `other${expansion}`, score: expansion < 2 ? 0.9 : 0.1, summary: "" }),
      shouldStop: () => false,
      key: (s) => s,
    };
    const outcome = await runBeamSearch({
      settings: { depth: 1, beamWidth: 3, expansionsPerNode: 4 },
      state: initialBeamState(root, { rootsAreResults: false, keepBest: 3 }),
      keepBest: 3,
      problem,
    });
    expect(outcome.records[1]?.beam.map((e) => e.id)).toEqual(["1.0", "1.2", "1.3"]);
  });

  it("skips rejected samples and stops as converged when a whole depth is rejected", async () => {
    const log: string[] = [];
    const outcome = await runBeamSearch({
      settings: { depth: 5, beamWidth: 2, expansionsPerNode: 2 },
      state: initialBeamState(root, { rootsAreResults: false, keepBest: 2 }),
      keepBest: 2,
      problem: toyProblem({ log, reject: (p) => p.length >= 2 }),
    });
    expect(outcome.stoppedBy).toBe("converged");
    expect(outcome.records.map((r) => r.beam.length)).toEqual([1, 2, 0]);
    expect(log.length).toBe(2 + 4);
  });

  it("stops early when the problem says it has converged", async () => {
    const problem: BeamProblem<string> = { ...toyProblem({ score: (p) => (p === "1" ? 1 : 0.2) }), converged: (_beam, best) => (best[0]?.score ?? 0) >= 1 };
    const outcome = await runBeamSearch({
      settings: { depth: 5, beamWidth: 2, expansionsPerNode: 2 },
      state: initialBeamState(root, { rootsAreResults: false, keepBest: 1 }),
      keepBest: 1,
      problem,
    });
    expect(outcome.stoppedBy).toBe("converged");
    expect(outcome.records.length).toBe(2);
    expect(outcome.best[0]?.state).toBe("1");
  });

  it("stops at the next step boundary when the budget says so, with the best so far and a partial record", async () => {
    const log: string[] = [];
    const outcome = await runBeamSearch({
      settings: { depth: 5, beamWidth: 3, expansionsPerNode: 3 },
      state: initialBeamState(root, { rootsAreResults: false, keepBest: 2 }),
      keepBest: 2,
      problem: toyProblem({ log, stopAfter: 5 }),
    });
    expect(outcome.stoppedBy).toBe("budget");
    expect(log.length).toBe(5);
    const last = outcome.records[outcome.records.length - 1];
    expect(last?.partial).toBe(true);
    expect(last?.depth).toBe(2);
    expect(last?.candidates.length).toBe(2);
    const seen = log.map(toyScore).sort((a, b) => b - a);
    expect(outcome.best.map((n) => n.score)).toEqual(seen.slice(0, 2));
  });

  it("treats an exhausted budget thrown inside an expansion as a clean stop, and other errors as errors", async () => {
    let calls = 0;
    const outcome = await runBeamSearch({
      settings: { depth: 3, beamWidth: 2, expansionsPerNode: 2 },
      state: initialBeamState(root, { rootsAreResults: false, keepBest: 2 }),
      keepBest: 2,
      problem: {
        expand: async (parent, expansion) => {
          calls++;
          if (calls === 3) throw budgetExhausted("tokens");
          return { state: `${parent.state}${expansion}`, score: calls, summary: "" };
        },
        shouldStop: () => false,
      },
    });
    expect(outcome.stoppedBy).toBe("budget");
    expect(calls).toBe(3);
    // The interrupted expansion is not counted: it will be redone on resume.
    expect(outcome.state.next).toBe(0);
    expect(outcome.best.map((n) => n.score)).toEqual([2, 1]);

    await expect(
      runBeamSearch({
        settings: { depth: 1, beamWidth: 1, expansionsPerNode: 1 },
        state: initialBeamState(root, { rootsAreResults: false, keepBest: 1 }),
        keepBest: 1,
        problem: { expand: () => Promise.reject(new Error("tool host down")), shouldStop: () => false },
      }),
    ).rejects.toThrow("tool host down");
  });

  it("resumes from any checkpoint to the same result as an uninterrupted run", async () => {
    const settings = { depth: 3, beamWidth: 2, expansionsPerNode: 3 };
    const start = (): BeamSearchState<string> => initialBeamState(root, { rootsAreResults: true, keepBest: 3 });
    const full = await runBeamSearch({ settings, state: start(), keepBest: 3, problem: toyProblem() });

    const checkpoints: BeamSearchState<string>[] = [];
    const stopped = await runBeamSearch({
      settings,
      state: start(),
      keepBest: 3,
      problem: toyProblem({ stopAfter: 7 }),
      hooks: { onCheckpoint: (s) => void checkpoints.push(JSON.parse(JSON.stringify(s)) as BeamSearchState<string>) },
    });
    expect(stopped.stoppedBy).toBe("budget");
    const last = checkpoints[checkpoints.length - 1];
    expect(last?.stoppedBy).toBe("budget");
    if (last === undefined) throw new Error("no checkpoint");

    const log: string[] = [];
    const resumed = await runBeamSearch({ settings, state: last, keepBest: 3, problem: toyProblem({ log }) });
    expect(log.length).toBe(3 + 6 + 6 - 7);
    expect(resumed.stoppedBy).toBe(full.stoppedBy);
    expect(resumed.records).toEqual(full.records);
    expect(resumed.best).toEqual(full.best);
    expect(pathsById(resumed.state)).toEqual(pathsById(full.state));
  });

  it("calls prepare once per beam node, before its first expansion, and keeps what it adds", async () => {
    const prepared: string[] = [];
    const problem: BeamProblem<{ path: string; note?: string }> = {
      prepare: async (node: BeamNode<{ path: string; note?: string }>) => {
        prepared.push(node.id);
        return { ...node, state: { ...node.state, note: `reflection on ${node.id}` } };
      },
      expand: async (parent, expansion) => {
        expect(parent.state.note).toBe(`reflection on ${parent.id}`);
        return { state: { path: `${parent.state.path}${expansion}` }, score: toyScore(`${parent.state.path}${expansion}`), summary: "" };
      },
      shouldStop: () => false,
    };
    await runBeamSearch({
      settings: { depth: 2, beamWidth: 2, expansionsPerNode: 2 },
      state: initialBeamState([{ state: { path: "" }, score: 0, summary: "" }], { rootsAreResults: false, keepBest: 1 }),
      keepBest: 1,
      problem,
    });
    expect(prepared.length).toBe(1 + 2);
    expect(new Set(prepared).size).toBe(prepared.length);
  });

  it("ranks best first without changing its input", () => {
    const nodes = [0.2, 0.9, 0.9, 0.1].map((score, index) => ({ id: `1.${index}`, parentId: "0.0", depth: 1, index, score, summary: "", state: index }));
    expect(rankNodes(nodes).map((n) => n.id)).toEqual(["1.1", "1.2", "1.0", "1.3"]);
    expect(nodes.map((n) => n.id)).toEqual(["1.0", "1.1", "1.2", "1.3"]);
  });
});

describe("search settings", () => {
  it("defaults to the paper's settings (§3.1)", () => {
    const s = validatePlaySettings({});
    expect({
      depth: s.depth,
      beamWidth: s.beamWidth,
      expansionsPerNode: s.expansionsPerNode,
      refineSteps: s.refineSteps,
      demonstrations: s.demonstrations,
    }).toEqual(PAPER_DEFAULTS);
    expect(PAPER_DEFAULTS).toEqual({ depth: 5, beamWidth: 3, expansionsPerNode: 3, refineSteps: 5, demonstrations: 3 });
    expect(s.budget.maxModelCalls).toBeGreaterThan(0);
    expect(s.budget.maxTokens).toBeGreaterThan(0);
  });

  it("refuses depth 0, width 0 and absurd values with messages that name the field", () => {
    expect(() => validateBeamSettings({ depth: 0, beamWidth: 3, expansionsPerNode: 3 })).toThrow(/depth: depth must be at least 1/);
    expect(() => validateBeamSettings({ depth: 5, beamWidth: 0, expansionsPerNode: 3 })).toThrow(/beamWidth: beamWidth must be at least 1/);
    expect(() => validateBeamSettings({ depth: 5, beamWidth: 3, expansionsPerNode: 1e9 })).toThrow(/expansionsPerNode must be at most 20/);
    expect(() => validateBeamSettings({ depth: 2.5, beamWidth: 3, expansionsPerNode: 3 })).toThrow(/depth must be a whole number/);
    expect(() => validateBeamSettings({ depth: 20, beamWidth: 20, expansionsPerNode: 20 })).toThrow(/at most 2000 expansions/);
    expect(() => validateBeamSettings({ depth: 5, beamWidth: 3 })).toThrow(expect.objectContaining({ code: "invalid_play_settings" }));

    expect(() => validatePlaySettings({ depth: 0 })).toThrow(/depth must be at least 1/);
    expect(() => validatePlaySettings({ beamWidth: 0 })).toThrow(/beamWidth must be at least 1/);
    expect(() => validatePlaySettings({ refineSteps: 0 })).toThrow(/refineSteps \(N_refine\) must be at least 1/);
    expect(() => validatePlaySettings({ budget: { maxModelCalls: -1, maxTokens: 1000 } })).toThrow(/budget.maxModelCalls: maxModelCalls must be at least 1/);
    expect(() => validatePlaySettings({ budget: { maxModelCalls: 10, maxTokens: 1000, demonstrationShare: 1.5 } })).toThrow(
      /demonstrationShare must be at most 0.95/,
    );
    expect(() => validatePlaySettings({ deepth: 3 })).toThrow(expect.objectContaining({ code: "invalid_play_settings" }));
    expect(() => validatePlaySettings({ depth: "5" })).toThrow(expect.objectContaining({ code: "invalid_play_settings" }));
  });

  it("lists every problem as {path, message}", () => {
    try {
      validatePlaySettings({ depth: 0, beamWidth: 0, invocationAttempts: 1000 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(Failure);
      const issues = error instanceof Failure ? (error.errors ?? []) : [];
      expect(issues.map((i) => i.path).sort()).toEqual(["beamWidth", "depth", "invocationAttempts"]);
    }
  });

  it("refuses bad settings before any expansion", async () => {
    let called = false;
    await expect(
      runBeamSearch({
        settings: { depth: 0, beamWidth: 1, expansionsPerNode: 1 },
        state: initialBeamState(root, { rootsAreResults: false, keepBest: 1 }),
        keepBest: 1,
        problem: {
          expand: async () => {
            called = true;
            return undefined;
          },
          shouldStop: () => false,
        },
      }),
    ).rejects.toThrow(expect.objectContaining({ code: "invalid_play_settings" }));
    expect(called).toBe(false);
  });
});
