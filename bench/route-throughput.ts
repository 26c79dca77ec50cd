/**
 * The most routes per second one tenant's object serves at 10,000 tools (issue 42, item 6), with
 * 1, 8 and 32 concurrent clients, and where its time goes.
 *
 *   node bench/run.mjs route-throughput [--skip-build] [--size=10000] [--seconds=10] [--clients=1,8,32] [--top=25] [--learned=8 --seconds=60 --profile --heap]
 *
 * One tenant of `size` generated tools (bench/lib/bench-tenants.ts: StableToolBench operations and
 * renamed copies, ≈ 10 observed successors each), its routing prepared and warm, its rate quotas
 * lifted. Each client routes as a chat does, one request at a time: a first step for a task the
 * tenant has not routed recently, then a fused later step after that answer's best tool, and again.
 * For each number of clients, `seconds` of it: routes answered per second, p50 and p99 (sent to
 * answer read, in this Node process). Then a V8 CPU profile of the service's isolate over a run of
 * 8 clients: how busy the isolate's thread is, and the functions its time goes to. Locally every
 * object and the Worker share one workerd thread, so the ceiling is that thread's; deployed, the
 * tenant's object has a thread of its own and the Worker runs elsewhere.
 *
 * `--learned=N` (issue 45): instead, the learned field full vs off. Every tool first learns words
 * from N tasks written from its own text, reworded (one-tool trajectories with a task,
 * lib/learned-teaching.ts); then one client routes as above for `seconds` (60 unless given),
 * `learning.fieldWeight` switched between 1 and 0 route by route in pairs, each pair's order
 * random (same tenant, same moment): first-step and later-step p50 and p99 by weight, the paired
 * difference of p50 with a bootstrap interval, and how many of 50 first steps the field changed.
 * `--learned=0`: the same pairs on the tenant untaught (no learned field, no taught tasks): the
 * weight changes nothing there, so its difference shows what the method itself reads as noise.
 * `--profile`: then CPU profiles of up to 10 s of first steps at each weight, in ABBA windows
 * (where a first step's time goes). `--heap`: then what a first step allocates at each weight,
 * garbage included, by allocating site (V8's sampling heap profiler, ABBA windows too).
 */
import { startBenchService } from "./lib/bench-service";
import { benchQueries, bigTenant, liftQuotas, prepared, routeStep, type BenchTenant } from "./lib/bench-tenants";
import { analyse, profiled, topLines } from "./lib/cpu-profile";
import { type HeapSamplingProfile, liveBySite } from "./lib/job-heap";
import { type Inspector, serviceInspector } from "./lib/inspector";
import { comparePaired, pairedLine } from "./lib/paired-difference";
import { machineLine, seededRandom, summary } from "./lib/stats";
import { answersTheFieldChanges, calibrated, learnedShare, learnedSourcesOf, pairedFieldWeights, setFieldWeight, teachEveryTool } from "./lib/learned-teaching";
import { corpusItems, taskCycle, toolItems } from "./lib/tool-corpus";
import type { TestService } from "../test/helpers/service";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const K = 8;

/** `clients` chats routing for `seconds`: the latency of every route answered and the wall time. */
async function load(
  service: TestService,
  tenant: BenchTenant,
  clients: number,
  seconds: number,
  nextTask: () => string,
): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  const chat = async () => {
    while (performance.now() < until) {
      const first = await routeStep(service, tenant, { task: nextTask(), k: K });
      latencies.push(first.ms);
      const best = first.names[0];
      if (best === undefined || performance.now() >= until) continue;
      latencies.push((await routeStep(service, tenant, { task: nextTask(), k: K, previousTool: best })).ms);
    }
  };
  await Promise.all(Array.from({ length: clients }, chat));
  return { latencies, wallMs: performance.now() - t0 };
}

/**
 * First and later steps with the field full (weight 1) vs off (0), routed in pairs back to back
 * for `seconds`: each side's p50 and p99, and the paired difference with a bootstrap interval.
 */
async function stepLatencies(service: TestService, tenant: BenchTenant, seconds: number, nextTask: () => string): Promise<void> {
  const times = await pairedFieldWeights(service, tenant, { seconds, k: K, nextTask, random: seededRandom(45) });
  for (const [step, { on, off }] of [
    ["first step", times.first],
    ["later step", times.later],
  ] as const) {
    const [a, b] = [summary(on), summary(off)];
    console.log(`${step.padEnd(20)}fieldWeight 1 / 0: ${pairedLine(comparePaired(on, off, seededRandom(on.length)))}`);
    console.log(`${"".padEnd(20)}p99 ${a.p99.toFixed(1)} / ${b.p99.toFixed(1)} ms`);
  }
  console.log(`${seconds} s, one client, weights alternating route by route in pairs (random order); ${machineLine()}`);
}

/** The profile windows' order: ABBA, so a collection or drift in the machine that grows or shrinks over the windows reaches both weights alike. */
const PROFILE_WEIGHTS = [1, 0, 0, 1] as const;

/**
 * With `--profile`: V8 CPU profiles of the service over `seconds` of first steps at each field
 * weight, in ABBA windows of half that, summed by weight (a garbage collection the teaching
 * left due would otherwise land in whichever weight's window comes first): the functions a
 * first step's time goes to.
 */
async function profileFirstSteps(service: TestService, tenant: BenchTenant, port: number, seconds: number, nextTask: () => string): Promise<void> {
  if (!process.argv.includes("--profile")) return;
  const inspector = await serviceInspector(port);
  const byWeight = new Map<number, { routes: number; busyMs: number; inclusive: Map<string, number> }>();
  try {
    for (const weight of PROFILE_WEIGHTS) {
      await setFieldWeight(service, tenant, weight);
      let routes = 0;
      const profile = await profiled(inspector, 200, async () => {
        for (const until = performance.now() + (seconds * 1000) / 2; performance.now() < until; routes += 1)
          await routeStep(service, tenant, { task: nextTask(), k: K });
      });
      const { busyMs, inclusive } = analyse(profile, [], 200);
      const sum = byWeight.get(weight) ?? { routes: 0, busyMs: 0, inclusive: new Map<string, number>() };
      sum.routes += routes;
      sum.busyMs += busyMs;
      for (const [name, ms] of inclusive) sum.inclusive.set(name, (sum.inclusive.get(name) ?? 0) + ms);
      byWeight.set(weight, sum);
      console.log(`profile window      fieldWeight ${weight}: ${routes} routes, ${(busyMs / routes).toFixed(2)} ms of CPU a first step`);
    }
  } finally {
    inspector.close();
  }
  for (const [weight, { routes, busyMs, inclusive }] of byWeight) {
    console.log(`\nprofiled first steps, fieldWeight ${weight}: ${routes} routes, ${(busyMs / routes).toFixed(2)} ms of CPU a route; inclusive, ms a route:`);
    for (const line of topLines(inclusive, busyMs, routes, Number(option("top", "25")))) console.log(line);
  }
}

/** Sample about every this many bytes allocated: a first step allocates tens of KiB. */
const ALLOCATION_SAMPLING_BYTES = 1024;

type SampledBytes = Map<number, { routes: number; total: number; sites: Map<string, number> }>;

/**
 * First steps in ABBA windows at each field weight under V8's sampling heap profiler, every
 * allocation counted, garbage included (V8 keeps the samples of collected objects when asked),
 * summed by weight and site (the function and its two named callers).
 */
async function sampledWindows(service: TestService, tenant: BenchTenant, inspector: Inspector, seconds: number, nextTask: () => string): Promise<SampledBytes> {
  const byWeight: SampledBytes = new Map();
  for (const weight of PROFILE_WEIGHTS) {
    await setFieldWeight(service, tenant, weight);
    let routes = 0;
    await inspector.send("HeapProfiler.startSampling", {
      samplingInterval: ALLOCATION_SAMPLING_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (const until = performance.now() + (seconds * 1000) / 2; performance.now() < until; routes += 1)
      await routeStep(service, tenant, { task: nextTask(), k: K });
    const { profile } = await inspector.send<{ profile: HeapSamplingProfile }>("HeapProfiler.stopSampling");
    const { total, sites } = liveBySite(profile);
    const sum = byWeight.get(weight) ?? { routes: 0, total: 0, sites: new Map<string, number>() };
    sum.routes += routes;
    sum.total += total;
    for (const [site, bytes] of sites) sum.sites.set(site, (sum.sites.get(site) ?? 0) + bytes);
    byWeight.set(weight, sum);
  }
  return byWeight;
}

/** Bytes a first step at weight 1 and 0, in all and by site, the sites whose bytes differ most between the weights first. */
function printSampled(byWeight: SampledBytes, what: string): void {
  const on = byWeight.get(1);
  const off = byWeight.get(0);
  if (on === undefined || off === undefined) return;
  const kib = (bytes: number, routes: number) => (bytes / routes / 1024).toFixed(2).padStart(7);
  console.log(
    `\n${what} a first step, fieldWeight 1 / 0: ${kib(on.total, on.routes)} / ${kib(off.total, off.routes)} KiB (${on.routes} / ${off.routes} routes); by site, KiB a route 1 / 0:`,
  );
  const sites = new Set([...on.sites.keys(), ...off.sites.keys()]);
  const rows = [...sites].map((site) => ({ site, a: (on.sites.get(site) ?? 0) / on.routes, b: (off.sites.get(site) ?? 0) / off.routes }));
  rows.sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b));
  for (const { site, a, b } of rows.slice(0, Number(option("top", "25")))) console.log(`    ${kib(a, 1)} / ${kib(b, 1)}  ${site}`);
}

/**
 * With `--heap`: what first steps allocate at each field weight (garbage included: what a route
 * costs the young generation's collections), by allocating site (V8's sampling heap profiler,
 * ABBA windows like the CPU profile).
 */
async function heapFirstSteps(service: TestService, tenant: BenchTenant, port: number, seconds: number, nextTask: () => string): Promise<void> {
  if (!process.argv.includes("--heap")) return;
  const inspector = await serviceInspector(port);
  try {
    await inspector.send("HeapProfiler.enable");
    printSampled(await sampledWindows(service, tenant, inspector, seconds, nextTask), "allocated (sampled, garbage included)");
  } finally {
    inspector.close();
  }
}

/** The learned field full (weight 1) vs off (0) on one tenant whose every tool learned `perTool` tasks' words (0: nothing taught, the baseline). */
async function fieldRun(
  service: TestService,
  tenant: BenchTenant,
  run: { perTool: number; seconds: number; port: number; nextTask: () => string },
): Promise<void> {
  const { perTool, seconds, nextTask } = run;
  if (perTool === 0) {
    console.log("untaught            no tool learned a word: the same pairs as --learned=N, the baseline (the weight changes nothing)");
    await stepLatencies(service, tenant, seconds, nextTask);
    await profileFirstSteps(service, tenant, run.port, Math.min(seconds, 10), nextTask);
    return await heapFirstSteps(service, tenant, run.port, Math.min(seconds, 10), nextTask);
  }
  const taught = await teachEveryTool(service, tenant, toolItems(tenant.tools, corpusItems()), perTool);
  await prepared(service, tenant);
  const firstTool = toolItems(1, corpusItems())[0]?.name ?? "";
  const t0 = performance.now();
  const share = await calibrated(service, tenant, nextTask());
  const calibrationMs = performance.now() - t0;
  console.log(
    `teaching            ${taught.trajectories} one-tool trajectories with a task (${perTool} per tool) in ${(taught.ms / 1000).toFixed(1)} s; ${firstTool} learned from ${await learnedSourcesOf(service, tenant, firstTool)} sources; calibration gives the field ${share.learned} of fieldWeight${share.stale ? " (still stale: recalibration not done)" : ` (recalibrated in ${(calibrationMs / 1000).toFixed(1)} s)`}`,
  );
  const probe = Array.from({ length: 50 }, nextTask);
  console.log(
    `field takes part    ${await answersTheFieldChanges(service, tenant, probe, K)} of ${probe.length} first-step answers differ between fieldWeight 1 and 0`,
  );
  await stepLatencies(service, tenant, seconds, nextTask);
  console.log(`the field's share after: ${(await learnedShare(service, tenant)).learned}`);
  await profileFirstSteps(service, tenant, run.port, Math.min(seconds, 10), nextTask);
  await heapFirstSteps(service, tenant, run.port, Math.min(seconds, 10), nextTask);
}

async function main(): Promise<void> {
  const size = Number(option("size", "10000"));
  const seconds = Number(option("seconds", "10"));
  const clientCounts = option("clients", "1,8,32").split(",").map(Number);
  console.log(`Route throughput of one tenant in workerd — ${machineLine()}`);
  const port = 9300 + Math.floor(Math.random() * 500);
  const { service } = await startBenchService({ inspectorPort: port, programHost: false });
  try {
    const tenant = await bigTenant(service, size);
    await liftQuotas(service, tenant);
    await prepared(service, tenant);
    const nextTask = taskCycle(benchQueries(), seededRandom(size));
    await load(service, tenant, 4, 3, nextTask);
    const learned = option("learned", "");
    if (learned !== "") return await fieldRun(service, tenant, { perTool: Number(learned), seconds: Number(option("seconds", "60")), port, nextTask });
    console.log(`tenant              ${size} tools; each client: a first step, then a later step after its best tool, again (k = ${K})`);
    for (const clients of clientCounts) {
      const { latencies, wallMs } = await load(service, tenant, clients, seconds, nextTask);
      const s = summary(latencies);
      console.log(
        `${String(clients).padStart(2)} client(s)         ${(s.n / (wallMs / 1000)).toFixed(0)} routes/s (${s.n} in ${(wallMs / 1000).toFixed(1)} s); p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms; load ${machineLine().split("loadavg: ")[1]}`,
      );
    }
    const inspector = await serviceInspector(port);
    try {
      let run = { latencies: [] as number[], wallMs: 0 };
      const profile = await profiled(inspector, 200, async () => {
        run = await load(service, tenant, 8, Math.min(seconds, 5), nextTask);
      });
      const { busyMs, self, inclusive } = analyse(profile, [], 200);
      const routes = run.latencies.length;
      console.log(
        `\nprofiled, 8 clients: ${routes} routes; isolate thread busy ${((100 * busyMs) / run.wallMs).toFixed(0)} % of the wall time, ${(busyMs / routes).toFixed(2)} ms of CPU a route`,
      );
      const top = Number(option("top", "25"));
      console.log("inclusive, ms a route:");
      for (const line of topLines(inclusive, busyMs, routes, top)) console.log(line);
      console.log("self, ms a route:");
      for (const line of topLines(self, busyMs, routes, top)) console.log(line);
    } finally {
      inspector.close();
    }
  } finally {
    await service.dispose();
  }
}

await main();
