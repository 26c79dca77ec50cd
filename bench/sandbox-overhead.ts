/**
 * Sandbox overhead of ATC runs in workerd: what running a generated program in a fresh Worker
 * Loader isolate (QuickJS inside) costs, measured on real runs of the service (`POST /v1/runs`)
 * with the scripted model and the simulated world's cheapest endpoint (autotools weather
 * `GET_find_places`, a 239-byte recorded response).
 *
 * Three programs, run interleaved `--runs` times each (default 100) after a few warm-up runs:
 * 0 tool calls (`return`), 1 call, 20 calls in a loop. From each run record's only attempt:
 * - firstCallMs: inside the isolate, from `run()` entry (before QuickJS is loaded) to the first
 *   `tools.x()` reaching the host bridge (functions/sandbox/isolate/harness-entry.ts);
 * - isolateMs (the attempt's durationMs): host side, Worker Loader load → result back
 *   (functions/sandbox/host/isolate-executor.ts) — the whole sandboxed attempt, tool calls included;
 * - tool ms: each trace entry's durationMs (the tool call itself in the gateway: argument
 *   validation, the request to the world, response handling);
 * - per-call overhead: (isolateMs of the 20-call run − isolateMs of the 1-call run) / 19, per
 *   interleaved pair, and that minus the mean tool ms of the 20-call run (the sandbox's share).
 *
 * Both isolate modes of functions/sandbox/host/isolate-executor.ts are measured, each in its own service
 * (the `SANDBOX_ISOLATE` var): `tenant` (default: one warm isolate per tenant, LOADER.get, fresh
 * QuickJS runtime per attempt) and `fresh` (a new isolate per attempt, LOADER.load).
 *
 * Run: npm run bench:sandbox -- [--runs N] [--warmup N] [--isolate tenant|fresh|both] [--json FILE] [--no-build]
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import buildBundles from "../test/helpers/global-setup";
import { createScriptedModel } from "../test/helpers/scripted-model";
import { createTenant } from "../test/helpers/service";
import { loadSet } from "./eval/datasets";
import { percentile, type RunRecord } from "./eval/evaluate";
import { startEvalService } from "./eval/service";

const TOOL = "GET_find_places";
const SERIES = [0, 1, 20] as const;
type CallCount = (typeof SERIES)[number];

function program(calls: CallCount): string {
  if (calls === 0) return 'return "no calls";';
  if (calls === 1) return `// ${TOOL}\nconst places = await tools.${TOOL}({ text: "Berlin" });\nreturn places[0].place_id;`;
  return [
    "let found = 0;",
    `for (let i = 0; i < ${calls}; i++) {`,
    `  // ${TOOL}`,
    `  const places = await tools.${TOOL}({ text: "Berlin " + i });`,
    "  found += places.length;",
    "}",
    "return found;",
  ].join("\n");
}

export interface Sample {
  calls: CallCount;
  firstCallMs: number | undefined;
  isolateMs: number;
  toolMs: number[];
  runMs: number;
  wallMs: number;
}

export interface Stats {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function stats(values: readonly number[]): Stats {
  const n = values.length;
  if (n === 0) return { n, p50: NaN, p99: NaN, mean: NaN, min: NaN, max: NaN };
  return {
    n,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    mean: values.reduce((a, b) => a + b, 0) / n,
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

type IsolateMode = "tenant" | "fresh";

interface Options {
  runs: number;
  warmup: number;
  isolate: IsolateMode[];
  json: string | undefined;
  build: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { runs: 100, warmup: 5, isolate: ["tenant", "fresh"], json: undefined, build: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg ?? ""} needs a value`);
      return v;
    };
    if (arg === "--runs") options.runs = Number(next());
    else if (arg === "--warmup") options.warmup = Number(next());
    else if (arg === "--json") options.json = next();
    else if (arg === "--no-build") options.build = false;
    else if (arg === "--isolate") {
      const mode = next();
      if (mode === "both") options.isolate = ["tenant", "fresh"];
      else if (mode === "tenant" || mode === "fresh") options.isolate = [mode];
      else throw new Error("--isolate: tenant, fresh or both");
    } else throw new Error(`unknown argument ${arg ?? ""} (usage: [--runs N] [--warmup N] [--isolate tenant|fresh|both] [--json FILE] [--no-build])`);
  }
  if (!Number.isInteger(options.runs) || options.runs < 1 || !Number.isInteger(options.warmup) || options.warmup < 0)
    throw new Error("--runs and --warmup take whole numbers");
  return options;
}

export interface ModeReport {
  mode: IsolateMode;
  rows: [string, Stats][];
  pairs: number[];
  samples: Sample[];
}

/** Measure one isolate mode (the service's SANDBOX_ISOLATE var) in a fresh service. */
async function measure(mode: IsolateMode, options: Options): Promise<ModeReport> {
  const model = createScriptedModel({
    rules: [
      { name: "evaluator", match: (r) => r.lastUserMessage.includes("You are a tool evaluator"), answer: { text: '{"scores": []}' } },
      {
        name: "program",
        match: /Query: sandbox overhead probe, \d+ calls/,
        answer: (r) => {
          const calls = Number(/Query: sandbox overhead probe, (\d+) calls/.exec(r.lastUserMessage)?.[1]) as CallCount;
          return { text: `\`\`\`ts\n${program(calls)}\n\`\`\`` };
        },
      },
    ],
  });
  const evalService = await startEvalService({ kind: "scripted", model }, { SANDBOX_ISOLATE: mode });
  const { service } = evalService;
  try {
    const tenant = await createTenant(service, "sandbox-overhead");
    const weather = loadSet("autotools").imports.find((i) => i.source === "autotools-weather");
    if (weather === undefined) throw new Error("no weather tools");
    const imported = await service.json("POST", "/v1/tools/import", { key: tenant.key, body: weather });
    if (imported.status !== 200) throw new Error(`import failed: ${imported.status}`);

    const once = async (calls: CallCount, i: number): Promise<Sample> => {
      const started = performance.now();
      const res = await service.json<RunRecord>("POST", "/v1/runs", {
        key: tenant.key,
        body: { task: `sandbox overhead probe, ${calls} calls (#${i})`, tools: [TOOL], maxAttempts: 1 },
      });
      const wallMs = performance.now() - started;
      const attempt = res.body.attempts?.[0];
      if (res.status !== 201 || res.body.status !== "succeeded" || attempt === undefined)
        throw new Error(`probe run failed: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
      if (attempt.trace.length !== calls) throw new Error(`expected ${calls} calls, the run made ${attempt.trace.length}`);
      return {
        calls,
        firstCallMs: attempt.firstCallMs,
        isolateMs: attempt.durationMs,
        toolMs: attempt.trace.map((t) => t.durationMs),
        runMs: res.body.timings.totalMs,
        wallMs,
      };
    };

    for (let i = 0; i < options.warmup; i++) for (const calls of SERIES) await once(calls, -1 - i);
    const samples: Sample[] = [];
    const pairs: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const round = new Map<CallCount, Sample>();
      for (const calls of SERIES) {
        const sample = await once(calls, i);
        samples.push(sample);
        round.set(calls, sample);
      }
      const one = round.get(1);
      const twenty = round.get(20);
      if (one !== undefined && twenty !== undefined) pairs.push((twenty.isolateMs - one.isolateMs) / 19);
      if ((i + 1) % 25 === 0) process.stderr.write(`${mode}: ${i + 1}/${options.runs} rounds\n`);
    }

    const of = (calls: CallCount) => samples.filter((s) => s.calls === calls);
    const firstCalls = (calls: CallCount) => of(calls).flatMap((s) => (s.firstCallMs === undefined ? [] : [s.firstCallMs]));
    const rows: [string, Stats][] = [
      ["firstCallMs, 1-call program (isolate run() → first tool call)", stats(firstCalls(1))],
      ["firstCallMs, 20-call program", stats(firstCalls(20))],
      ["isolateMs, 0 calls (whole sandboxed attempt)", stats(of(0).map((s) => s.isolateMs))],
      ["isolateMs, 1 call", stats(of(1).map((s) => s.isolateMs))],
      ["isolateMs, 20 calls", stats(of(20).map((s) => s.isolateMs))],
      ["isolateMs − tool ms, 1 call (sandbox to first call and back)", stats(of(1).map((s) => s.isolateMs - (s.toolMs[0] ?? 0)))],
      ["tool ms per call (gateway: validate, world, respond)", stats(of(20).flatMap((s) => s.toolMs))],
      ["per-call cost: (isolateMs20 − isolateMs1)/19, per pair", stats(pairs)],
      ["run totalMs, 1 call (model, isolate, storage, learning)", stats(of(1).map((s) => s.runMs))],
    ];
    return { mode, rows, pairs, samples };
  } finally {
    await evalService.dispose();
  }
}

function printReport(report: ModeReport, options: Options): void {
  const { rows } = report;
  const meanTool = rows[6]?.[1].mean ?? NaN;
  const perCall = rows[7]?.[1];
  const label = Math.max(...rows.map(([l]) => l.length));
  const f = (n: number) => (Number.isNaN(n) ? "n/a" : n.toFixed(2)).padStart(8);
  const what = report.mode === "tenant" ? "one warm isolate per tenant (LOADER.get), fresh QuickJS per attempt" : "a fresh isolate per attempt (LOADER.load)";
  console.log(`\nSANDBOX_ISOLATE=${report.mode}: ${what}; ${options.runs} runs per program after ${options.warmup} warm-up rounds; ms`);
  console.log(`${"".padEnd(label)}  ${"p50".padStart(8)}  ${"p99".padStart(8)}  ${"mean".padStart(8)}  ${"min".padStart(8)}  ${"max".padStart(8)}  n`);
  for (const [l, s] of rows) console.log(`${l.padEnd(label)}  ${f(s.p50)}  ${f(s.p99)}  ${f(s.mean)}  ${f(s.min)}  ${f(s.max)}  ${s.n}`);
  if (perCall !== undefined) console.log(`per-call sandbox share ≈ p50 per-call cost − mean tool ms = ${(perCall.p50 - meanTool).toFixed(2)} ms`);
  const first = rows[0]?.[1];
  if (first !== undefined)
    console.log(`target: p50 to first call < 10 ms → ${first.p50 < 10 ? "met" : "NOT met"} (firstCallMs p50 ${first.p50.toFixed(2)} ms)`);
}

export async function main(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  if (options.build) {
    process.stderr.write("bundling the service and the simulated world (wrangler)…\n");
    buildBundles();
  }
  const reports: ModeReport[] = [];
  for (const mode of options.isolate) reports.push(await measure(mode, options));
  console.log(
    `\nSandbox overhead in workerd (Miniflare, local); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} on ${cpus().length} CPUs`,
  );
  for (const report of reports) printReport(report, options);
  if (options.json !== undefined) {
    writeFileSync(
      options.json,
      JSON.stringify(
        { options, reports: reports.map((r) => ({ mode: r.mode, rows: Object.fromEntries(r.rows), pairs: r.pairs, samples: r.samples })) },
        null,
        2,
      ),
    );
    console.log(`samples written to ${options.json}`);
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    },
  );
}
