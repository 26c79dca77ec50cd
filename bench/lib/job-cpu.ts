/**
 * CPU of a background job as the isolate's own sampling profiler saw it (V8 through workerd's
 * inspector: `process.cpuUsage` does not exist inside workerd, and its clock stands still while
 * code runs). Locally every Durable Object and the Worker share this one isolate and thread, so
 * "busy" is the job plus the requests sent beside it; the requests are small (a few ms each).
 *
 * Per phase of the job: busy CPU, and the longest stretch the thread was busy without a break
 * (no idle sample): that stretch bounds how long any request, to any object, had to wait.
 */
import { analyse, type Profile, topLines } from "./cpu-profile";

export interface PhaseMark {
  /** When the phase was first seen, in ms of the bench's clock (performance.now). */
  atMs: number;
  phase: string;
}

export interface PhaseCpu {
  phase: string;
  wallMs: number;
  busyMs: number;
  longestBusyMs: number;
}

const IDLE = new Set(["(idle)", "(root)"]);

/** Each sample's time (ms on the bench's clock, given when the profiler started) and whether the thread was busy. */
function sampleTimes(profile: Profile, startedAtMs: number): { atMs: number; busy: boolean; deltaMs: number }[] {
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let at = 0;
  return profile.samples.map((id, i) => {
    const deltaMs = (profile.timeDeltas[i] ?? 0) / 1000;
    at += deltaMs;
    return { atMs: startedAtMs + at, busy: !IDLE.has(names.get(id) ?? "(idle)"), deltaMs };
  });
}

function phaseAt(marks: readonly PhaseMark[], atMs: number): string | undefined {
  let phase: string | undefined;
  for (const mark of marks) if (mark.atMs <= atMs) phase = mark.phase;
  return phase;
}

/** Busy CPU and the longest unbroken busy stretch per phase; `endMs` closes the last phase. */
export function cpuByPhase(profile: Profile, startedAtMs: number, marks: readonly PhaseMark[], endMs: number): PhaseCpu[] {
  const byPhase = new Map<string, PhaseCpu & { stretch: number }>();
  for (const [i, mark] of marks.entries()) {
    const until = marks[i + 1]?.atMs ?? endMs;
    const entry = byPhase.get(mark.phase) ?? { phase: mark.phase, wallMs: 0, busyMs: 0, longestBusyMs: 0, stretch: 0 };
    entry.wallMs += until - mark.atMs;
    byPhase.set(mark.phase, entry);
  }
  let previous: (PhaseCpu & { stretch: number }) | undefined;
  for (const sample of sampleTimes(profile, startedAtMs)) {
    const phase = phaseAt(marks, sample.atMs);
    const entry = phase === undefined ? undefined : byPhase.get(phase);
    if (previous !== undefined && (previous !== entry || !sample.busy)) previous.stretch = 0;
    previous = entry;
    if (entry === undefined || !sample.busy) continue;
    entry.busyMs += sample.deltaMs;
    entry.stretch += sample.deltaMs;
    entry.longestBusyMs = Math.max(entry.longestBusyMs, entry.stretch);
  }
  return [...byPhase.values()].map(({ stretch: _, ...figures }) => figures);
}

/** The functions that took the most CPU (inclusive) while `phase` ran, as lines. */
export function topOfPhase(profile: Profile, startedAtMs: number, marks: readonly PhaseMark[], phase: string, top: number): string[] {
  const times = sampleTimes(profile, startedAtMs);
  const kept = times.flatMap((t, i) => (phaseAt(marks, t.atMs) === phase ? [i] : []));
  const part: Profile = { nodes: profile.nodes, samples: kept.map((i) => profile.samples[i] ?? 0), timeDeltas: kept.map((i) => profile.timeDeltas[i] ?? 0) };
  const { busyMs, inclusive } = analyse(part, [], JOB_SAMPLING_US);
  return topLines(inclusive, busyMs, 1, top);
}

/** The job's sampling interval (µs): fine enough for stretches of tens of ms, coarse enough for a job of minutes. */
export const JOB_SAMPLING_US = 2_000;

export function phaseCpuLine(f: PhaseCpu): string {
  return `  cpu ${f.phase.padEnd(12)} busy ${f.busyMs.toFixed(0)} ms of ${f.wallMs.toFixed(0)} ms wall (${((100 * f.busyMs) / Math.max(1, f.wallMs)).toFixed(0)} %); longest unbroken busy stretch ${f.longestBusyMs.toFixed(0)} ms`;
}
