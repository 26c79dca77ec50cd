/**
 * RestBench TMDB routed over HTTP, five folds: for each fold, a fresh tenant imports the TMDB
 * OpenAPI document, is taught the gold paths (with their task texts) of the other four folds
 * through `POST /v1/graph/trajectories`, and routes every task of the held-out fold with
 * `POST /v1/route`: its first step, then each later step after the gold previous tool, at k = 5
 * and k = 10.
 *
 *   npm run bench -- tmdb-folds [--skip-build] [--folds=mod|blocks] [--profile]
 *
 * Figures: first-step recall@5 / @10 (the first gold tool), later-step hit@5 / @10 (the gold next
 * tool, Finish not counted), and the share of tasks with every step in the top 10 (the first gold
 * tool at the first step and each next gold tool after its previous one). Folds: task i is in fold
 * i mod 5 (`--folds=blocks`: tasks 0–19, 20–39, …). Deterministic: the same figures on every run.
 * Also how long the calibration's alarm slices hold the tenant's object: their wall time from
 * Node and the wait of requests sent meanwhile; with `--profile`, each slice under a CPU profile
 * of the isolate: the calibration's CPU per slice and its longest unbroken stretch
 * (bench/lib/calibration-holds.ts).
 */
import type { CalibrationReport } from "../functions/routing/routing-calibration";
import { startBenchService, tenantObject } from "./lib/bench-service";
import { calibrationHold } from "./lib/calibration-holds";
import { profiled } from "./lib/cpu-profile";
import { freePort } from "./lib/free-port";
import { type Inspector, serviceInspector } from "./lib/inspector";
import { tmdb } from "./lib/routing-datasets";
import { readData } from "./lib/tool-corpus";
import { machineLine, ms, summary } from "./lib/stats";
import { createTenant, type TestService } from "../test/helpers/service";

const FOLDS = 5;
const BLOCKS = process.argv.includes("--folds=blocks");

interface Tally {
  firstAt5: number;
  firstAt10: number;
  tasks: number;
  laterAt5: number;
  laterAt10: number;
  steps: number;
  allIn10: number;
}

type Task = { id: string; text: string; gold: string[] };

const foldOf = (i: number, count: number): number => (BLOCKS ? Math.floor((i * FOLDS) / count) : i % FOLDS);

async function routeNames(service: TestService, key: string, body: Record<string, unknown>): Promise<string[]> {
  const answer = await service.json<{ candidates: { name: string }[] }>("POST", "/v1/route", { key, body });
  if (answer.status !== 200) throw new Error(`route: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body.candidates.map((c) => c.name);
}

async function foldTenant(service: TestService, fold: number, taught: readonly Task[], inspector: Inspector | undefined): Promise<string> {
  const { key } = await createTenant(service, `tmdb-fold-${fold}`);
  const imported = await service.json("POST", "/v1/tools/import", {
    key,
    body: { format: "openapi", source: "tmdb", serverUrl: "http://world.atc.test/tmdb", document: readData("restbench-tmdb/openapi.json") },
  });
  if (imported.status !== 200) throw new Error(`TMDB import: ${imported.status}`);
  const trajectories = taught.map((t) => ({ id: t.id, task: t.text, tools: t.gold }));
  const answer = await service.json("POST", "/v1/graph/trajectories", { key, body: { trajectories, unknownTools: "skip" } });
  if (answer.status !== 200) throw new Error(`trajectories: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  await calibrated(service, `tmdb-fold-${fold}`, key, inspector);
  return key;
}

/** Wall times of the calibration's alarm slices, and of requests to the object sent one after another meanwhile (how long a request waits for a slice). */
interface SliceTimes {
  slices: number[];
  during: number[];
  idle: number[];
  /** With `--profile`: the calibration's CPU per slice, and its longest unbroken stretch per slice. */
  cpu: number[];
  longest: number[];
}

const calibrationTimes: SliceTimes = { slices: [], during: [], idle: [], cpu: [], longest: [] };

/** The sampling interval of `--profile`, µs. */
const PROFILE_INTERVAL = 200;

async function timed<T>(call: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/**
 * The tenant's signal weights made before it is measured, as its alarm makes them after the
 * teaching (asked for, then the alarm run slice after slice), and printed. Routing's preparation
 * after the import is run first, in an alarm of its own. While each calibration alarm runs,
 * `GET /v1/routing/calibration` (a cheap read in the tenant's object) is sent again and again;
 * once the weights are made, a few more are sent with the object idle.
 */
async function calibrated(service: TestService, tenantId: string, key: string, inspector: Inspector | undefined): Promise<void> {
  const object = await tenantObject(service, tenantId);
  const ask = () => service.json<CalibrationReport>("GET", "/v1/routing/calibration", { key });
  const slices: number[] = [];
  await object.runAlarm();
  for (let slice = 0; slice < 100; slice += 1) {
    const report = await ask();
    if (report.status !== 200) throw new Error(`calibration: ${report.status}`);
    if (!report.body.stale) {
      const { weights, replays } = report.body;
      const judged = (signal: keyof typeof replays) => `${replays[signal].judged} judged, hits ${replays[signal].hits.join("/")}`;
      const ms = slices.map((t) => t.toFixed(1)).join(", ");
      console.log(`${tenantId}: weights ${JSON.stringify(weights)}; history ${judged("history")}; transitions ${judged("transitions")}; alarm slices ${ms} ms`);
      calibrationTimes.slices.push(...slices);
      for (let i = 0; i < 5; i += 1) calibrationTimes.idle.push(await timed(ask));
      return;
    }
    // Wall time of one alarm run from Node (RPC included), and of the requests answered meanwhile.
    const slice = async () => {
      let running = true;
      const alarm = timed(() => object.runAlarm()).finally(() => {
        running = false;
      });
      while (running) calibrationTimes.during.push(await timed(ask));
      slices.push(await alarm);
    };
    if (inspector === undefined) await slice();
    else {
      const hold = calibrationHold(await profiled(inspector, PROFILE_INTERVAL, slice), PROFILE_INTERVAL);
      calibrationTimes.cpu.push(hold.cpuMs);
      calibrationTimes.longest.push(hold.longestMs);
    }
  }
  throw new Error("the calibration was not made in 100 alarm slices");
}

async function measureTask(service: TestService, key: string, task: Task, tally: Tally): Promise<void> {
  const [first, ...later] = task.gold;
  if (first === undefined) return;
  const firstTen = await routeNames(service, key, { task: task.text, k: 10 });
  const firstFive = await routeNames(service, key, { task: task.text, k: 5 });
  tally.tasks += 1;
  tally.firstAt5 += firstFive.includes(first) ? 1 : 0;
  tally.firstAt10 += firstTen.includes(first) ? 1 : 0;
  let every = firstTen.includes(first);
  let previous = first;
  for (const next of later) {
    // A repeated call (the same tool twice) is a step too: routing offers a repeat it has observed.
    const five = await routeNames(service, key, { task: task.text, previousTool: previous, k: 5 });
    const ten = await routeNames(service, key, { task: task.text, previousTool: previous, k: 10 });
    tally.steps += 1;
    tally.laterAt5 += five.includes(next) ? 1 : 0;
    tally.laterAt10 += ten.includes(next) ? 1 : 0;
    every &&= ten.includes(next);
    previous = next;
  }
  tally.allIn10 += every ? 1 : 0;
}

async function main(): Promise<void> {
  console.log(`# tmdb-folds — ${machineLine()}`);
  const dataset = await tmdb();
  const tasks: Task[] = dataset.tasks;
  const port = process.argv.includes("--profile") ? await freePort() : undefined;
  const { service } = await startBenchService(port === undefined ? {} : { inspectorPort: port });
  const inspector = port === undefined ? undefined : await serviceInspector(port);
  const tally: Tally = { firstAt5: 0, firstAt10: 0, tasks: 0, laterAt5: 0, laterAt10: 0, steps: 0, allIn10: 0 };
  try {
    for (let fold = 0; fold < FOLDS; fold += 1) {
      const held = tasks.filter((_, i) => foldOf(i, tasks.length) === fold);
      const key = await foldTenant(
        service,
        fold,
        tasks.filter((_, i) => foldOf(i, tasks.length) !== fold),
        inspector,
      );
      for (const task of held) await measureTask(service, key, task, tally);
    }
  } finally {
    inspector?.close();
    await service.dispose();
  }
  const f = (n: number, d: number) => (d === 0 ? "–" : (n / d).toFixed(3));
  console.log(`\nRestBench TMDB over HTTP, ${FOLDS} folds (${BLOCKS ? "blocks" : "i mod 5"}), ${tally.tasks} tasks, ${tally.steps} later steps`);
  console.log(`first step recall@5 / @10: ${f(tally.firstAt5, tally.tasks)} / ${f(tally.firstAt10, tally.tasks)}`);
  console.log(`later step hit@5 / @10:    ${f(tally.laterAt5, tally.steps)} / ${f(tally.laterAt10, tally.steps)}`);
  console.log(`every step in the top 10:  ${f(tally.allIn10, tally.tasks)}`);
  const { slices, during, idle, cpu, longest } = calibrationTimes;
  const line = (values: number[]) => {
    const { n, p50, p99, max } = summary(values);
    return n === 0 ? "–" : `p50 ${ms(p50)}, p99 ${ms(p99)}, worst ${ms(max)} (${n})`;
  };
  console.log(`calibration alarm slices, wall from Node: ${line(slices)}`);
  console.log(`a request to the object while a calibration slice runs: ${line(during)}; idle: ${line(idle)}`);
  if (cpu.length > 0) console.log(`calibration CPU per slice: ${line(cpu)}; its longest unbroken stretch per slice: ${line(longest)}`);
  console.log(`at the end: ${machineLine()}`);
}

await main();
