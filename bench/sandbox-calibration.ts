/**
 * Calibration figures of the sandbox (functions/sandbox): how many interrupt checks 100 ms of
 * work makes — the unit of the CPU budget, to compare with INTERRUPT_CHECKS_PER_100MS in
 * functions/sandbox/limits.ts — and how long a sandbox takes from the start of a run to its first
 * tool call, with a new QuickJS instance per program and with one recycled per isolation key.
 * Measured in this Node process and inside workerd (the sandbox bundled by wrangler, as a deploy
 * bundles it; test/helpers/sandbox-worker.ts). Figures only: machines differ and are shared; the
 * behaviour (every endless workload is stopped, recycling keeps contexts fresh) is tested in
 * test/unit/sandbox-limits.unit.test.ts and test/unit/sandbox-workerd.unit.test.ts.
 *
 *   npm run bench -- sandbox-calibration [--runs=80] [--skip-workerd] [--skip-build]
 */
import { DEFAULT_LIMITS, executeProgram, INTERRUPT_CHECKS_PER_100MS, loadQuickJs, runProgram, transpile } from "../functions/sandbox/index";
import { ENDLESS_WORKLOADS } from "../test/helpers/cpu-workloads";
import buildBundles from "../test/helpers/global-setup";
import { startSandboxWorker } from "../test/helpers/sandbox-worker";
import { machineLine, ms, summary, table } from "./lib/stats";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Start-up samples per mode (the first tenth are warm-up and dropped). */
const RUNS = Number(option("runs", "80"));
/** Checks a workload may make before the budget stops it: long enough to time, short enough to wait for. */
const BUDGETS: Record<string, number> = { "while (true) {}": 3_000, "for-loop with a sum": 300 };
const DEFAULT_BUDGET = 100;
const ONE_CALL = "const r = await tools.ping({ n: 1 });\nreturn r;";

console.log(machineLine());
console.log(`default stretch budget: ${DEFAULT_LIMITS.stretchBudget} checks (INTERRUPT_CHECKS_PER_100MS = ${INTERRUPT_CHECKS_PER_100MS})\n`);

const engine = await loadQuickJs();

/** Interrupt checks per 100 ms of host time while `source` computes until its budget stops it. */
async function checksPer100ms(source: string, budget: number): Promise<number> {
  const started = performance.now();
  const result = await executeProgram(source, { engine, tools: [], callTool: async () => undefined, stretchBudget: budget, totalBudget: budget });
  const elapsed = performance.now() - started;
  if (result.ok || result.error.kind !== "cpu_budget") throw new Error(`expected a cpu_budget stop, got ${JSON.stringify(result.ok ? result : result.error)}`);
  return (result.stats.interruptChecks / elapsed) * 100;
}

// Warm up: V8 moves hot wasm functions to its optimising tier after a while.
await checksPer100ms("while (true) {}", 3_000);
const rates: string[][] = [];
for (const [name, source] of Object.entries(ENDLESS_WORKLOADS)) {
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) samples.push(await checksPer100ms(source, BUDGETS[name] ?? DEFAULT_BUDGET));
  rates.push([name, String(Math.round(summary(samples).p50))]);
}
console.log("Node: interrupt checks per 100 ms (p50 of 3)");
console.log(table(["workload", "checks / 100 ms"], rates));

const transpiled = transpile(ONE_CALL);
if (!transpiled.ok) throw new Error(transpiled.error);
const js = transpiled.js;

/** One one-call run: ms to its first tool call and to its end. */
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
  if (!result.ok) throw new Error(`the one-call program failed: ${result.error.message}`);
  return { first, whole: performance.now() - started };
}

const warmUp = Math.ceil(RUNS / 10);
const node = { fresh: { first: [] as number[], whole: [] as number[] }, recycled: { first: [] as number[], whole: [] as number[] } };
for (let i = 0; i < RUNS + warmUp; i++) {
  const fresh = await startup(undefined);
  const recycled = await startup("tenant-1");
  if (i < warmUp) continue;
  node.fresh.first.push(fresh.first);
  node.fresh.whole.push(fresh.whole);
  node.recycled.first.push(recycled.first);
  node.recycled.whole.push(recycled.whole);
}
console.log(`\nNode: start → first tool call, and the whole one-call run (${RUNS} runs each, interleaved)`);
console.log(
  table(
    ["instance", "first call p50", "p99", "whole run p50", "p99"],
    Object.entries(node).map(([mode, { first, whole }]) => [
      mode,
      ms(summary(first).p50),
      ms(summary(first).p99),
      ms(summary(whole).p50),
      ms(summary(whole).p99),
    ]),
  ),
);

if (!process.argv.includes("--skip-workerd")) {
  if (!process.argv.includes("--skip-build")) buildBundles();
  const worker = await startSandboxWorker();
  try {
    const budget = 3_000;
    await worker.execute("while (true) {}", { stretchBudget: budget, totalBudget: budget });
    const workerdRates: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { reply } = await worker.execute("while (true) {}", { stretchBudget: budget, totalBudget: budget });
      workerdRates.push((reply.result.stats.interruptChecks / Math.max(1, reply.result.stats.durationMs)) * 100);
    }
    const firstCalls = { fresh: [] as number[], recycled: [] as number[] };
    const source = "return await tools.echo({ n: 1 });";
    for (let i = 0; i < RUNS / 2 + warmUp; i++) {
      const fresh = await worker.execute(source);
      const recycled = await worker.execute(source, { isolationKey: "tenant-1" });
      if (i < warmUp) continue;
      firstCalls.fresh.push(fresh.reply.firstCallMs ?? Number.NaN);
      firstCalls.recycled.push(recycled.reply.firstCallMs ?? Number.NaN);
    }
    console.log(`\nworkerd: while (true) {} interrupt checks per 100 ms: ${workerdRates.map((r) => r.toFixed(0)).join(", ")}`);
    console.log(`workerd: start → first tool call (${RUNS / 2} runs each, interleaved)`);
    console.log(
      table(
        ["instance", "p50", "p99"],
        Object.entries(firstCalls).map(([mode, values]) => [mode, ms(summary(values).p50), ms(summary(values).p99)]),
      ),
    );
  } finally {
    await worker.dispose();
  }
}
