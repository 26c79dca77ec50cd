import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, executeProgram, INTERRUPT_CHECKS_PER_100MS, loadQuickJs, runProgram, transpile, type QuickJsEngine } from "../../functions/sandbox/index";

/**
 * Figures, not just checks: how many interrupt checks 100 ms of work makes here (the unit of the
 * CPU budget), and how long a fresh sandbox takes to reach its first tool call. Printed so they
 * can be compared with the constants in functions/sandbox/limits.ts.
 */

let engine: QuickJsEngine;

beforeAll(async () => {
  engine = await loadQuickJs();
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Interrupt checks per 100 ms of host time while `source` spins until the budget stops it. */
async function checksPer100ms(source: string, budget: number): Promise<number> {
  const started = performance.now();
  const result = await executeProgram(source, { engine, tools: [], callTool: async () => undefined, stretchBudget: budget, totalBudget: budget });
  const ms = performance.now() - started;
  expect(result.ok ? "ok" : result.error.kind).toBe("cpu_budget");
  return (result.stats.interruptChecks / ms) * 100;
}

describe("sandbox calibration", () => {
  it("measures interrupt checks per 100 ms for a tight loop and for heavier loops", async () => {
    // Warm up: V8 moves hot wasm functions to its optimising tier after a while.
    await checksPer100ms("while (true) {}", 3_000);
    const workloads: Record<string, [string, number]> = {
      "while (true) {}": ["while (true) {}", 3_000],
      "for-loop with a sum": ["let s = 0; for (let i = 0; ; i++) s += i;", 300],
      "objects and strings": ["const o: Record<string, unknown> = {}; for (let i = 0; ; i++) o['k' + (i % 1000)] = { i, s: 'x' + i };", 100],
      "array methods": ["for (;;) [1, 2, 3, 4].map((x) => x * 2).filter((x) => x > 2).reduce((a, b) => a + b, 0);", 100],
      "regex backtracking": ["/(a+)+$/.test('a'.repeat(40) + 'b');", 100],
    };
    const rates: Record<string, number> = {};
    for (const [name, [source, budget]] of Object.entries(workloads)) {
      const samples: number[] = [];
      for (let i = 0; i < 3; i++) samples.push(await checksPer100ms(source, budget));
      rates[name] = Math.round(percentile(samples, 50));
    }
    console.log("interrupt checks per 100 ms (p50 of 3):", JSON.stringify(rates));
    console.log(`default stretch budget: ${DEFAULT_LIMITS.stretchBudget} checks (INTERRUPT_CHECKS_PER_100MS = ${INTERRUPT_CHECKS_PER_100MS})`);
    // Figures, not a speed test (machines differ and are shared): the interrupt handler must count.
    expect(rates["while (true) {}"] ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it("measures sandbox start to first tool call: new instance per program, and recycled per isolation key", async () => {
    const transpiled = transpile("const r = await tools.ping({ n: 1 });\nreturn r;");
    if (!transpiled.ok) throw new Error(transpiled.error);
    const js = transpiled.js;
    async function startup(isolationKey: string | undefined): Promise<{ first: number; whole: number }> {
      const started = performance.now();
      let first = Number.NaN;
      const result = await runProgram(js, {
        engine,
        tools: ["ping"],
        ...(isolationKey === undefined ? {} : { isolationKey }),
        callTool: async () => {
          first = performance.now() - started;
          return { pong: true };
        },
      });
      expect(result).toMatchObject({ ok: true, answer: { pong: true } });
      return { first, whole: performance.now() - started };
    }
    const figures: Record<string, { first: number[]; whole: number[] }> = { fresh: { first: [], whole: [] }, recycled: { first: [], whole: [] } };
    for (let i = 0; i < 80; i++) {
      const fresh = await startup(undefined);
      const recycled = await startup("tenant-1");
      if (i < 10) continue;
      figures.fresh?.first.push(fresh.first);
      figures.fresh?.whole.push(fresh.whole);
      figures.recycled?.first.push(recycled.first);
      figures.recycled?.whole.push(recycled.whole);
    }
    for (const [mode, { first, whole }] of Object.entries(figures)) {
      console.log(
        `${mode} instance: start → first tool call p50 ${percentile(first, 50).toFixed(2)} ms, p90 ${percentile(first, 90).toFixed(2)} ms; whole one-call run p50 ${percentile(whole, 50).toFixed(2)} ms`,
      );
    }
    // The figures are printed for the record; speed targets are checked by bench/sandbox-overhead.ts.
    expect(figures.recycled?.first.every((ms) => Number.isFinite(ms))).toBe(true);
  }, 60_000);
});
