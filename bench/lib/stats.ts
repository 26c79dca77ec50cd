/**
 * Small helpers shared by the benchmarks: a seeded PRNG (so every run builds the same data),
 * percentiles, number formatting and a line describing the machine at the time of the run.
 */
import { cpus, loadavg } from "node:os";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** mulberry32: a tiny deterministic PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}

/** Fisher–Yates, in place; returns the array. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = randomInt(random, i + 1);
    const a = items[i] as T;
    items[i] = items[j] as T;
    items[j] = a;
  }
  return items;
}

/** Nearest-rank percentile of an ascending array (p in (0, 100]). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** p50 / p99 / max / mean of a sample (unsorted input). */
export function summary(values: readonly number[]): { n: number; p50: number; p99: number; max: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN, mean };
}

export const ms = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)} ms` : "n/a");
export const seconds = (valueMs: number): string => `${(valueMs / 1000).toFixed(1)} s`;
export const int = (value: number): string => Math.round(value).toLocaleString("en-US");

/** One line: Node version, CPUs, and /proc/loadavg (the shared machine is noisy; figures need it). */
export function machineLine(): string {
  let load: string;
  try {
    load = readFileSync("/proc/loadavg", "utf8").trim();
  } catch {
    load = loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  }
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `Node ${process.version}, ${cpus().length} × ${cpu}, /proc/loadavg: ${load}`;
}

/** Left-aligned first column, right-aligned others. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

let clockTicks: number | undefined;

/** Kernel clock ticks per second (/proc/<pid>/stat counts CPU time in them); 100 on Linux. */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const list = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      if (list !== "") out.push(...list.split(/\s+/).map(Number));
    } catch {
      // the task ended meanwhile
    }
  }
  return out;
}

/**
 * CPU time (user + system, ms) used so far by every descendant process of this one: here, the
 * workerd that Miniflare runs. Linux only; 0 where /proc is missing.
 */
export function descendantCpuMs(): number {
  let total = 0;
  const queue = childrenOf(process.pid);
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.pop() ?? 0;
    if (seen.has(pid)) continue;
    seen.add(pid);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // After "pid (comm) ", field 3 is state; utime and stime are fields 14 and 15 overall.
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
    } catch {
      continue;
    }
    queue.push(...childrenOf(pid));
  }
  return total;
}

/** CPU time (user + system, ms) of this Node process so far. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
