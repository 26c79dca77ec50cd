/**
 * The big-import bench's reading of the isolate's profile (bench/lib/job-cpu.ts, issue 42): the
 * longest unbroken busy stretches of each phase, with the functions that held the most of each;
 * and the job's added time, each figure during the job less the same before it (job-probes.ts).
 */
import { describe, expect, it } from "vitest";
import type { Profile } from "../../bench/lib/cpu-profile";
import { longestStretches } from "../../bench/lib/job-cpu";
import { addedLine } from "../../bench/lib/job-probes";

const frame = (id: number, functionName: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url: "worker.js", lineNumber: id, columnNumber: 0 },
  children,
});

/** root → (idle); root → alarm → { saveIndex, importBatch }; root → route. */
const nodes = [frame(1, "(root)", [2, 3, 6]), frame(2, "(idle)"), frame(3, "alarm", [4, 5]), frame(4, "saveIndex"), frame(5, "importBatch"), frame(6, "route")];

describe("the bench's longest busy stretches", () => {
  it("splits stretches at idle samples and phases, and names what held each", () => {
    // Samples every 2 ms: a stretch of 4 (3 saveIndex, 1 route), idle, a stretch of 2 importBatch, idle, then 3 route in the next phase.
    const samples = [4, 4, 6, 4, 2, 5, 5, 2, 6, 6, 6];
    const profile: Profile = { nodes, samples, timeDeltas: samples.map(() => 2_000) };
    const marks = [
      { atMs: 0, phase: "importing" },
      { atMs: 17, phase: "done" },
    ];
    const stretches = longestStretches(profile, 0, marks, 5);
    expect(stretches.map((s) => [s.phase, s.ms])).toEqual([
      ["importing", 8],
      ["importing", 4],
      ["done", 6],
    ]);
    expect(stretches[0]?.frames).toEqual([
      { frame: "saveIndex worker.js:5", ms: 6 },
      { frame: "alarm worker.js:4", ms: 6 },
      { frame: "route worker.js:7", ms: 2 },
    ]);
    expect(longestStretches(profile, 0, marks, 1).map((s) => s.ms)).toEqual([8, 6]);
  });

  it("prints the job's added time as during less before", () => {
    const before = { sent: 45, failed: 0, p50: 200, p99: 900, worst: 1_000 };
    const during = { sent: 90, failed: 0, p50: 260, p99: 800, worst: 1_400 };
    expect(addedLine("route", before, during)).toContain("the job adds p50 +60 ms, p99 -100 ms, worst +400 ms");
  });
});
