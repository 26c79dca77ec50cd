/**
 * CPU of a background job as the isolate's own sampling profiler saw it (V8 through workerd's
 * inspector: `process.cpuUsage` does not exist inside workerd, and its clock stands still while
 * code runs). Locally every Durable Object and the Worker share this one isolate and thread, so
 * "busy" is the job plus the requests sent beside it; the requests are small (a few ms each).
 *
 * Per phase of the job: busy CPU, and the longest stretch the thread was busy without a break
 * (no idle sample): that stretch bounds how long any request, to any object, had to wait.
 */
import { analyse, frameName, type Profile, type ProfileNode, topLines } from "./cpu-profile";

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

/** One unbroken busy stretch of a phase: when it began (ms after the profile's start), how long, and where its time went. */
export interface BusyStretch {
  phase: string;
  startMs: number;
  ms: number;
  /** The functions that held the most of it (inclusive, by name), most first. */
  frames: { frame: string; ms: number }[];
}

const GENERIC = new Set(["(root)", "(program)", "(idle)", "(anonymous)"]);

/**
 * The `top` longest unbroken busy stretches of each phase, with the functions that held the most
 * of each. A stretch may hold many pieces of work: a macrotask turn between two pieces shorter
 * than the sampling interval leaves no idle sample, and on a loaded machine a sample's time also
 * holds the time the thread was not scheduled.
 */
export function longestStretches(profile: Profile, startedAtMs: number, marks: readonly PhaseMark[], top: number, frames = 6): BusyStretch[] {
  const times = sampleTimes(profile, startedAtMs);
  const stretches: { phase: string; from: number; to: number; ms: number }[] = [];
  let open: { phase: string; from: number; to: number; ms: number } | undefined;
  for (const [i, sample] of times.entries()) {
    const phase = phaseAt(marks, sample.atMs);
    if (!sample.busy || phase === undefined || open?.phase !== phase) {
      if (open !== undefined) stretches.push(open);
      open = undefined;
    }
    if (!sample.busy || phase === undefined) continue;
    open ??= { phase, from: i, to: i, ms: 0 };
    open.to = i;
    open.ms += sample.deltaMs;
  }
  if (open !== undefined) stretches.push(open);
  const kept = new Map<string, typeof stretches>();
  for (const stretch of stretches.sort((a, b) => b.ms - a.ms)) {
    const list = kept.get(stretch.phase) ?? [];
    if (list.length < top) list.push(stretch);
    kept.set(stretch.phase, list);
  }
  return [...kept.values()].flat().map((s) => ({
    phase: s.phase,
    startMs: (times[s.from]?.atMs ?? startedAtMs) - startedAtMs,
    ms: s.ms,
    frames: heaviestFrames(profile, s.from, s.to, frames),
  }));
}

/** The `count` functions (by name and place) holding the most of samples `from`..`to`, inclusive: each sample's time counted once per function on its stack. */
function heaviestFrames(profile: Profile, from: number, to: number, count: number): { frame: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (let i = from; i <= to; i += 1) {
    const deltaMs = (profile.timeDeltas[i] ?? 0) / 1000;
    const seen = new Set<string>();
    for (let at: number | undefined = profile.samples[i]; at !== undefined; at = parent.get(at)) {
      const node: ProfileNode | undefined = byId.get(at);
      if (node === undefined || GENERIC.has(node.callFrame.functionName || "(anonymous)")) continue;
      const name = frameName(node);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + deltaMs);
    }
  }
  return [...inclusive]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, ms]) => ({ frame, ms }));
}

/**
 * For each function of `names`, its longest run of consecutive samples with it on the stack, in ms
 * (wall: on a loaded machine a sample's time holds the time the thread was not scheduled), and how
 * many such runs there were: how long one call held the thread at most.
 */
export function longestRunsOf(profile: Profile, names: readonly string[]): Map<string, { longestMs: number; runs: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const found = new Map(names.map((name) => [name, { longestMs: 0, runs: 0, current: 0 }]));
  for (const [i, id] of profile.samples.entries()) {
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) onStack.add(byId.get(at)?.callFrame.functionName ?? "");
    const deltaMs = (profile.timeDeltas[i] ?? 0) / 1000;
    for (const [name, entry] of found) {
      if (!onStack.has(name)) {
        entry.current = 0;
        continue;
      }
      if (entry.current === 0) entry.runs += 1;
      entry.current += deltaMs;
      entry.longestMs = Math.max(entry.longestMs, entry.current);
    }
  }
  return new Map([...found].map(([name, { longestMs, runs }]) => [name, { longestMs, runs }]));
}

/** What holds the object inside a job (a batch, the index's saves, the probes' merges), looked at by `longestRunsOf`. */
export const JOB_FUNCTIONS = ["importOpenApi", "commitBatch", "saveIndex", "#saveOnePiece", "mergePending", "withImpacts", "runImportJob"];

export function stretchLine(s: BusyStretch): string {
  const frames = s.frames.map((f) => `${f.frame} ${f.ms.toFixed(0)}`);
  return `    ${s.phase.padEnd(10)} ${s.ms.toFixed(0).padStart(5)} ms at ${(s.startMs / 1000).toFixed(1)} s: ${frames.join("; ") || "(idle frames only)"}`;
}

/** The job's sampling interval (µs): fine enough for stretches of tens of ms, coarse enough for a job of minutes. */
export const JOB_SAMPLING_US = 2_000;

export function phaseCpuLine(f: PhaseCpu): string {
  return `  cpu ${f.phase.padEnd(12)} busy ${f.busyMs.toFixed(0)} ms of ${f.wallMs.toFixed(0)} ms wall (${((100 * f.busyMs) / Math.max(1, f.wallMs)).toFixed(0)} %); longest unbroken busy stretch ${f.longestBusyMs.toFixed(0)} ms`;
}
