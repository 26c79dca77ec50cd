import { int, summary, table } from "./stats";
import type { Outcome } from "./soak-traffic";

/** What the soak records, and the tables it prints from it: per minute, per kind, memory. */

export interface Sample {
  /** Minutes since traffic started (fractional). */
  at: number;
  kind: string;
  ms: number;
  outcome: Outcome;
}

export interface MemorySample {
  at: number;
  /** Resident MiB by role (the sum when a role has several processes). */
  byRole: Record<string, number>;
}

const fmt = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : "–");

function latency(samples: readonly Sample[], kind: string): string {
  const s = summary(samples.filter((x) => x.kind === kind && x.outcome.result === "ok").map((x) => x.ms));
  return s.n === 0 ? "–" : `${fmt(s.p50)}/${fmt(s.p99)}`;
}

function memoryIn(memory: readonly MemorySample[], from: number, to: number, role: string): number {
  const values = memory
    .filter((m) => m.at >= from && m.at < to)
    .map((m) => m.byRole[role] ?? Number.NaN)
    .filter(Number.isFinite);
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

/** Per minute: requests, errors, intended refusals, p50/p99 (ms) of the main kinds, peak memory per role. */
export function minuteTable(samples: readonly Sample[], memory: readonly MemorySample[], minutes: number, roles: readonly string[]): string {
  const kinds = ["route", "mcp find_tools", "tool call", "run"];
  const rows: string[][] = [];
  for (let m = 0; m < minutes; m++) {
    const inMinute = samples.filter((s) => s.at >= m && s.at < m + 1);
    rows.push([
      String(m + 1),
      int(inMinute.length),
      int(inMinute.filter((s) => s.outcome.result === "error").length),
      int(inMinute.filter((s) => s.outcome.result === "refused").length),
      ...kinds.map((k) => latency(inMinute, k)),
      ...roles.map((role) => fmt(memoryIn(memory, m, m + 1, role))),
    ]);
  }
  return table(["minute", "requests", "errors", "refused", ...kinds.map((k) => `${k} p50/p99 ms`), ...roles.map((r) => `${r} MiB`)], rows);
}

/** Per kind over the whole soak. */
export function kindTable(samples: readonly Sample[]): string {
  const kinds = [...new Set(samples.map((s) => s.kind))].sort();
  return table(
    ["kind", "requests", "ok", "refused (intended)", "errors", "p50 ms", "p99 ms", "notes"],
    kinds.map((kind) => {
      const of = samples.filter((s) => s.kind === kind);
      const s = summary(of.filter((x) => x.outcome.result === "ok").map((x) => x.ms));
      const notes = new Map<string, number>();
      for (const x of of) if (x.outcome.result !== "error" && x.outcome.note !== undefined) notes.set(x.outcome.note, (notes.get(x.outcome.note) ?? 0) + 1);
      return [
        kind,
        int(of.length),
        int(of.filter((x) => x.outcome.result === "ok").length),
        int(of.filter((x) => x.outcome.result === "refused").length),
        int(of.filter((x) => x.outcome.result === "error").length),
        fmt(s.p50),
        fmt(s.p99),
        [...notes].map(([n, c]) => `${n} ×${c}`).join(", "),
      ];
    }),
  );
}

/** The distinct error reasons with their counts (the first ten). */
export function errorLines(samples: readonly Sample[]): string[] {
  const reasons = new Map<string, number>();
  for (const s of samples)
    if (s.outcome.result === "error") reasons.set(`${s.kind}: ${s.outcome.reason}`, (reasons.get(`${s.kind}: ${s.outcome.reason}`) ?? 0) + 1);
  return [...reasons]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([r, c]) => `  ${c} × ${r}`);
}

/** The targets: error rate, route p99 in the last five minutes against the first five, memory growth after warm-up. */
export function verdict(
  samples: readonly Sample[],
  memory: readonly MemorySample[],
  minutes: number,
  warmUpMinutes: number,
  roles: readonly string[],
): string[] {
  const errors = samples.filter((s) => s.outcome.result === "error").length;
  const window = Math.min(5, Math.floor(minutes / 2));
  const routeP99 = (from: number, to: number) =>
    summary(samples.filter((s) => s.kind === "route" && s.outcome.result === "ok" && s.at >= from && s.at < to).map((s) => s.ms)).p99;
  const first = routeP99(0, window);
  const last = routeP99(minutes - window, minutes);
  const lines = [
    `errors that are not intended refusals: ${errors} of ${samples.length} requests (${((100 * errors) / Math.max(1, samples.length)).toFixed(2)} %)`,
    `route p99, first ${window} min ${fmt(first)} ms, last ${window} min ${fmt(last)} ms: ${(last / first).toFixed(2)}× (target ≤ 1.2×)`,
  ];
  for (const role of roles) {
    const afterWarmUp = memoryIn(memory, warmUpMinutes, warmUpMinutes + 1, role);
    const end = memoryIn(memory, minutes - 1, minutes, role);
    const peak = memoryIn(memory, 0, minutes, role);
    lines.push(
      `${role}: ${fmt(afterWarmUp)} MiB after ${warmUpMinutes} min warm-up, ${fmt(end)} MiB in the last minute (${(((end - afterWarmUp) / afterWarmUp) * 100).toFixed(1)} %), peak ${fmt(peak)} MiB`,
    );
  }
  return lines;
}
