/**
 * V8 CPU profiles of the service's isolate taken through workerd's inspector, and what they say:
 * self time per function and inclusive time (route-profile, cold-route, route-throughput).
 */
import type { Inspector } from "./inspector";

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Analysis {
  busyMs: number;
  period: number;
  self: Map<string, number>;
  inclusive: Map<string, number>;
}

const IDLE = new Set(["(idle)", "(root)"]);

export function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.split("/").pop() ?? "";
  return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
}

/** Self time per function and inclusive time of the functions named in `focus` (every function when empty; counted once per stack). */
export function analyse(profile: Profile, focus: readonly string[], interval: number): Analysis {
  // The sampler's real period while the thread runs JavaScript (longer than asked on a busy machine), in ms.
  const busyDeltas = profile.timeDeltas.filter((d) => d > 0 && d < 3 * interval).sort((a, b) => a - b);
  const period = (busyDeltas[Math.floor(busyDeltas.length / 2)] ?? interval) / 1000;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i] ?? 0;
    const node = byId.get(id);
    // Each sample counts one sampling period: a sample's own time delta also holds the gaps in
    // which the thread was outside V8, which would inflate whatever ran before a gap.
    const dt = period;
    if (node === undefined || IDLE.has(node.callFrame.functionName)) continue;
    busy += dt;
    const name = frameName(node);
    self.set(name, (self.get(name) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const at_ = byId.get(at);
      const fn = at_ === undefined ? "" : focus.length === 0 ? frameName(at_) : at_.callFrame.functionName;
      if ((focus.length === 0 || focus.includes(fn)) && !seen.has(fn)) {
        seen.add(fn);
        inclusive.set(fn, (inclusive.get(fn) ?? 0) + dt);
      }
    }
  }
  return { busyMs: busy, self, inclusive, period };
}

/** A CPU profile of the isolate while `work` runs, sampled every `interval` µs. */
export async function profiled(inspector: Inspector, interval: number, work: () => Promise<void>): Promise<Profile> {
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval });
  await inspector.send("Profiler.start");
  await work();
  const { profile } = await inspector.send<{ profile: Profile }>("Profiler.stop");
  return profile;
}

/** The `top` entries of a time map as lines: ms per unit of `per`, and share of `busyMs`. */
export function topLines(times: Map<string, number>, busyMs: number, per: number, top: number): string[] {
  return [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, t]) => `    ${(t / per).toFixed(2).padStart(8)} ms  ${((100 * t) / busyMs).toFixed(1).padStart(5)} %  ${name}`);
}
