/** The printed report: tokens per answer and per configuration, quality, latency, assembly time, and calls from views. */
import { int, ms, percentile, summary, table } from "../stats";
import { assemblyTimes } from "./assembly-time";
import type { Cell } from "./cell";
import { BEFORE, CONFIGURATIONS, FULL_TOOLS } from "./configurations";
import type { callsFromViews } from "./view-calls";

const pct = (part: number, whole: number): string => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)} %`);
const mean = (v: readonly number[]) => v.reduce((sum, x) => sum + x, 0) / Math.max(1, v.length);
const sorted = (v: readonly number[]) => [...v].sort((x, y) => x - y);

/** The service's answers against the same ranked lists before compact views and as full tools, per cell. */
export function printTokensPerAnswer(cells: readonly Cell[]): void {
  console.log(
    `\nTokens per answer (what it returns, JSON text), service default budget 2,000; the service's answers, then the same ranked lists answered in each configuration, one rule added at a time`,
  );
  console.log(
    table(
      [
        "tools",
        "k",
        "step",
        "answers",
        "service mean",
        "p95",
        "max",
        "before mean",
        "p95",
        "max",
        "p95 before ÷ service",
        "p95 full tools ÷ service",
        "answers with overBudget",
      ],
      cells.map((c) => {
        const a = sorted(c.compact);
        const f = sorted(c.configurations.get(BEFORE) ?? []);
        const t = sorted(c.configurations.get(FULL_TOOLS) ?? []);
        return [
          int(c.size),
          String(c.k),
          c.step,
          String(a.length),
          int(mean(a)),
          int(percentile(a, 95)),
          int(a.at(-1) ?? 0),
          int(mean(f)),
          int(percentile(f, 95)),
          int(f.at(-1) ?? 0),
          `${(percentile(f, 95) / percentile(a, 95)).toFixed(2)}×`,
          `${(percentile(t, 95) / percentile(a, 95)).toFixed(2)}×`,
          `${c.overBudgetAnswers} (${c.overBudgetTools} tools)`,
        ];
      }),
    ),
  );
}

/** Every configuration's tokens, per tenant size and step, k = 5 beside k = 8. */
export function printConfigurations(cells: readonly Cell[], sizes: readonly number[]): void {
  console.log(`\nEach configuration: mean / p95 tokens per answer (k = 5 | k = 8), and the p95 ratio to "before compact views"`);
  for (const size of sizes) {
    for (const step of ["first", "later"] as const) {
      const row = (k: number) => cells.find((c) => c.size === size && c.k === k && c.step === step);
      console.log(`[${int(size)} tools, ${step} steps]`);
      console.log(
        table(
          ["configuration", "k=5 mean", "p95", "÷ before", "k=8 mean", "p95", "÷ before"],
          CONFIGURATIONS.map((configuration) => [
            configuration.name,
            ...[5, 8].flatMap((k) => {
              const cell = row(k);
              const values = sorted(cell?.configurations.get(configuration.name) ?? []);
              const before = sorted(cell?.configurations.get(BEFORE) ?? []);
              return [int(mean(values)), int(percentile(values, 95)), `${(percentile(before, 95) / Math.max(1, percentile(values, 95))).toFixed(2)}×`];
            }),
          ]),
        ),
      );
    }
  }
}

export function printQuality(cells: readonly Cell[]): void {
  console.log(
    `\nQuality in the same run: what the answer shows vs everything it ranked (first steps: mean recall@k of gold tools; later steps: next tool first / among k)`,
  );
  console.log(
    table(
      ["tools", "k", "step", "scored", "shown", "ranked", "top-1 shown", "top-1 ranked"],
      cells.map((c) => [
        int(c.size),
        String(c.k),
        c.step,
        String(c.scored),
        pct(c.shownK, c.scored),
        pct(c.rankedK, c.scored),
        c.step === "later" ? pct(c.shown1, c.scored) : "",
        c.step === "later" ? pct(c.ranked1, c.scored) : "",
      ]),
    ),
  );
}

export function printRouteLatency(cells: readonly Cell[]): void {
  console.log(`\nRoute latency in this run (sequential, one auth-only GET /v1/tenant after every route request)`);
  console.log(
    table(
      ["tools", "k", "step", "route p50", "route p99", "auth-only p50", "route ÷ auth p50"],
      cells.map((c) => {
        const r = summary(c.routeMs);
        const a = summary(c.authMs);
        return [int(c.size), String(c.k), c.step, ms(r.p50), ms(r.p99), ms(a.p50), (r.p50 / a.p50).toFixed(2)];
      }),
    ),
  );
}

export function printAssemblyTimes(cells: readonly Cell[]): void {
  console.log(
    `\nThe answer assembly alone, in this process, on each cell's own ranked lists (after 100 warm-up answers): the service default now (stored views, fitToBudget, exact counts, tools only) vs this branch's start (prompt + tools) vs before compact views (full entries + described prompt block)`,
  );
  console.log(
    table(
      ["tools", "k", "step", "now p50", "p99", "branch start p50", "p99", "before p50", "p99"],
      cells.map((c) => {
        const t = assemblyTimes(c);
        const n = summary(t.now);
        const s = summary(t.start);
        const o = summary(t.before);
        return [int(c.size), String(c.k), c.step, ms(n.p50), ms(n.p99), ms(s.p50), ms(s.p99), ms(o.p50), ms(o.p99)];
      }),
    ),
  );
}

export function printCallsFromViews(calls: ReturnType<typeof callsFromViews>): void {
  console.log(
    `\nCalls built from views (${int(calls.tools)} corpus tools; ${int(calls.validFull)} where a call built from the full definition validates): compact view ${int(calls.compactOk)} / ${int(calls.validFull)} validate against the full definition, required-only view ${int(calls.requiredOk)} / ${int(calls.validFull)}; tools with named-only optional parameters ${int(calls.namedOnlyTools)}, whose full-definition call (every parameter) passes the shown schema: ${int(calls.namedOnlyOk)} / ${int(calls.namedOnlyTools)}`,
  );
  for (const failure of calls.failures.slice(0, 10)) console.log(`  ${failure}`);
}
