/**
 * Containment of hostile programs in workerd, through the service's real API (`POST /v1/runs`,
 * scripted model, RestBench TMDB tools on the simulated world):
 *
 * - per hostile class (test/helpers/hostile-programs.ts) and for the paced program that only the
 *   deadline stops: when the run stopped (ms after the request), by which limit, how far past its
 *   deadline, and /health and /v1/route latency while it ran against idle in the same run;
 * - whether the service needed a restart: after every class a harmless run must succeed;
 * - 20 worst-case programs at once (5 tenants × 4, the per-tenant limit): /health and /v1/route
 *   p99 against idle, with programs on the program host (its own workerd process, as `npm start`
 *   runs them) and, in the same bench run, in the service's own process (as before the program
 *   host; deployed, programs still run in-process);
 * - a harmless run, both ways: sandbox start → first tool call inside the isolate (as
 *   sandbox-overhead.ts measures it), the attempt as the service times it (reaching the isolate,
 *   the program, its one tool call and the result: the WebSocket hop is in this one), and the
 *   whole run as a client sees it.
 *
 * Run: npm run bench -- sandbox-containment [--runs N] [--deadline MS] [--rounds N] [--skip-build] [--storm-only] [--client-yields]
 *
 * `--rounds N` (default 1) repeats idle → 20 worst-case → 20 harmless N times per placement and
 * pools the latencies: a p99 of one storm is the 2nd–3rd slowest of ~200 requests, which other
 * processes on a shared machine move by several times; each round's ratios are printed too.
 *
 * `--client-yields` (Linux, util-linux's chrt) runs the bench's main thread — the scripted model
 * and the storms' 20 clients, which stand in for machines of their own — under SCHED_IDLE while
 * latencies are probed, so that on a 2-core machine they do not take the service's core; the
 * prober keeps the normal policy (its own thread). Without it they compete with the service as
 * they always have: compare figures only within one setting.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { HOSTILE_PROGRAMS, PACED_PROGRAM } from "../test/helpers/hostile-programs";
import { createScriptedModel } from "../test/helpers/scripted-model";
import buildBundles from "../test/helpers/global-setup";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../test/helpers/service";
import { freePort } from "./lib/free-port";
import { machineLine, summary, table } from "./lib/stats";

const tmdb = JSON.parse(readFileSync("../shared/data/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const TOOL = "getGenreMovieList";
const HARMLESS = `const r = await tools.${TOOL}({});\nreturn r.genres.length;`;

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
const RUNS = option("--runs", 5);
const DEADLINE_MS = option("--deadline", 2_000);
const ROUNDS = option("--rounds", 1);
const CLIENT_YIELDS = process.argv.includes("--client-yields");

/** Put this process's main thread (not the prober's) under `policy` ("idle" or "other"); false where chrt refused. */
function setMainThreadPolicy(policy: "idle" | "other"): boolean {
  return spawnSync("chrt", [`--${policy}`, "--pid", "0", String(process.pid)]).status === 0;
}

interface RunBody {
  status: string;
  attempts: { error?: { kind: string; limit?: string }; firstCallMs?: number; durationMs?: number }[];
}

const model = createScriptedModel();

/** From now on the scripted model answers every run with `program`. */
function answerWith(program: string): void {
  model.reset();
  model.on({ name: "program", answer: { text: `\`\`\`ts\n${program}\n\`\`\`` } });
}

async function run(service: TestService, tenant: { id: string; key: string }, program: string, limits: Record<string, number>) {
  answerWith(program);
  const started = performance.now();
  const res = await service.json<RunBody>("POST", "/v1/runs", {
    key: tenant.key,
    body: { task: `containment ${tenant.id}`, tools: [TOOL], maxAttempts: 1, limits },
  });
  return { status: res.status, body: res.body, ms: performance.now() - started };
}

/**
 * The prober: /health and /v1/route every 10 ms, over HTTP, from a worker thread. Its own event
 * loop, so the scripted model (which counts tokens on this thread for 20 runs at once) does not
 * delay reading the answers: what is measured is the service.
 */
const PROBER = `
const { parentPort, workerData } = require("node:worker_threads");
const { base, key, count } = workerData;
let stop = false;
parentPort.on("message", (message) => { if (message === "stop") stop = true; });
const routeInit = { method: "POST", headers: { authorization: "Bearer " + key, "content-type": "application/json" }, body: JSON.stringify({ task: "list movie genres", k: 3 }) };
async function timed(path, init) {
  const started = performance.now();
  const res = await fetch(base + path, init);
  await res.arrayBuffer();
  if (res.status >= 500) throw new Error(path + " answered " + res.status);
  return performance.now() - started;
}
(async () => {
  const health = [];
  const route = [];
  const pending = [];
  // One untimed request of each first: the connection is open before anything is measured.
  await timed("/health");
  await timed("/v1/route", routeInit);
  parentPort.postMessage("ready");
  for (let i = 0; count === null ? !stop : i < count; i++) {
    pending.push(timed("/health").then((ms) => health.push(ms)));
    pending.push(timed("/v1/route", routeInit).then((ms) => route.push(ms)));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(pending);
  parentPort.postMessage({ health, route });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

/** /health and /v1/route latencies while `start()`'s work runs (or `count` of each, when idle). */
async function probe(service: TestService, key: string, start: (() => Promise<unknown>) | undefined, count = 60) {
  const worker = new Worker(PROBER, { eval: true, workerData: { base: service.url.origin, key, count: start === undefined ? count : null } });
  let ready = (): void => undefined;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const answer = new Promise<{ health: number[]; route: number[]; error?: string }>((resolve, reject) => {
    worker.on("message", (message: unknown) => (message === "ready" ? ready() : resolve(message as { health: number[]; route: number[]; error?: string })));
    worker.once("error", reject);
  });
  await isReady;
  // The prober's thread exists now, with the normal policy: only the main thread yields.
  if (CLIENT_YIELDS && !setMainThreadPolicy("idle")) throw new Error("--client-yields: chrt could not set SCHED_IDLE on this thread");
  const work = start?.();
  void work?.finally(() => worker.postMessage("stop"));
  const result = await answer;
  await work;
  if (CLIENT_YIELDS) setMainThreadPolicy("other");
  await worker.terminate();
  if (result.error !== undefined) throw new Error(result.error);
  return { health: result.health, route: result.route };
}

/** `probe` while `work()` runs, with what it gave. */
async function probeDuring<T>(service: TestService, key: string, work: () => Promise<T>) {
  const outcome: T[] = [];
  const latencies = await probe(service, key, async () => outcome.push(await work()));
  const [value] = outcome;
  if (value === undefined) throw new Error("the probed work gave nothing");
  return { ...latencies, value };
}

const f = (value: number): string => (Number.isFinite(value) ? value.toFixed(0) : "–");

/** 20 runs of `program` at once (5 tenants × 4), /health and /v1/route probed meanwhile. */
async function storm(service: TestService, tenants: { id: string; key: string }[], program: string) {
  answerWith(program);
  const startRuns = () => {
    const runs: Promise<{ ms: number; status?: string; limit?: string | undefined }>[] = [];
    for (const tenant of tenants) {
      for (let i = 0; i < 4; i++) {
        const started = performance.now();
        runs.push(
          service
            .json<RunBody>("POST", "/v1/runs", { key: tenant.key, body: { task: "storm", tools: [TOOL], maxAttempts: 1, limits: { deadlineMs: DEADLINE_MS } } })
            .then((res) => ({
              ms: performance.now() - started,
              status: res.body.status,
              limit: res.status === 201 ? (res.body.attempts[0]?.error?.limit ?? res.body.attempts[0]?.error?.kind) : `HTTP ${res.status}`,
            })),
        );
      }
    }
    return Promise.all(runs);
  };
  const during = await probeDuring(service, tenants[0]?.key ?? "", startRuns);
  const ended = during.value;
  return {
    health: during.health,
    route: during.route,
    stops: ended.map((r) => r.ms),
    succeeded: ended.filter((r) => r.status === "succeeded").length,
    limits: new Set(ended.map((r) => r.limit).filter((limit) => limit !== undefined)),
  };
}

type Storm = Awaited<ReturnType<typeof storm>>;

/** Storms of several rounds as one: latencies and stops pooled. */
function pooled(storms: Storm[]) {
  return {
    health: summary(storms.flatMap((s) => s.health)),
    route: summary(storms.flatMap((s) => s.route)),
    stops: summary(storms.flatMap((s) => s.stops)),
    succeeded: storms.reduce((sum, s) => sum + s.succeeded, 0),
    limits: [...new Set(storms.flatMap((s) => [...s.limits]))].join(", ") || "none",
  };
}

/** p99 of `during` as a multiple of the p99 of `idle`. */
function p99Ratio(during: number[], idle: number[]): string {
  return (summary(during).p99 / summary(idle).p99).toFixed(1);
}

/** Five tenants with the TMDB tools (the storm runs 4 per tenant, the per-tenant default limit). */
async function tenantsOf(service: TestService): Promise<{ id: string; key: string }[]> {
  const tenants: { id: string; key: string }[] = [];
  for (let i = 0; i < 5; i++) {
    const tenant = await createTenant(service, `contain-${i}`);
    await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
    // The probes route 100 times a second and the classes start hundreds of runs: quotas must not answer instead.
    await service.json("PUT", "/v1/settings/quotas", {
      key: tenant.key,
      body: { rates: { routing: { perSecond: 10_000, burst: 100_000 }, runs: { perSecond: 1_000, burst: 10_000 } } },
    });
    tenants.push(tenant);
  }
  return tenants;
}

/** Idle latency, then 20 worst-case runs at once, then harmless runs; one printed paragraph. */
async function stormAndHarmless(service: TestService, tenants: { id: string; key: string }[], label: string) {
  const [first] = tenants as [{ id: string; key: string }];
  for (let i = 0; i < 3; i++) await run(service, first, HARMLESS, {}); // warm-up
  const idle: { health: number[]; route: number[] }[] = [];
  const worstStorms: Storm[] = [];
  const benignStorms: Storm[] = [];
  const rounds: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const quiet = await probe(service, first.key, undefined);
    const worstStorm = await storm(service, tenants, 'for (let k = 0; k < 100000; k++) "ab".repeat(4e6);\nreturn 1;');
    // The same 20 runs with a program that returns at once: what the service's own work for 20
    // concurrent runs (model calls, run records, slots) costs other requests, programs aside.
    const benignStorm = await storm(service, tenants, "return 1;");
    idle.push(quiet);
    worstStorms.push(worstStorm);
    benignStorms.push(benignStorm);
    const ratios = (during: Storm) => `${p99Ratio(during.health, quiet.health)}/${p99Ratio(during.route, quiet.route)}`;
    rounds.push(`${ratios(worstStorm)} worst, ${ratios(benignStorm)} harmless`);
  }
  const idleHealth = summary(idle.flatMap((i) => i.health));
  const idleRoute = summary(idle.flatMap((i) => i.route));
  const worst = pooled(worstStorms);
  const benign = pooled(benignStorms);

  const firstCall: number[] = [];
  const attempt: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < Math.max(20, RUNS * 4); i++) {
    const result = await run(service, first, HARMLESS, {});
    whole.push(result.ms);
    const ms = result.body.attempts?.[0]?.firstCallMs;
    if (typeof ms === "number") firstCall.push(ms);
    const attemptMs = result.body.attempts?.[0]?.durationMs;
    if (typeof attemptMs === "number") attempt.push(attemptMs);
  }
  const fc = summary(firstCall);
  const at = summary(attempt);
  const wr = summary(whole);
  console.log(`\n${label}${service.programHost === undefined ? "" : ` (watchdog restarts so far: ${service.programHost.restarts})`}`);
  if (ROUNDS > 1) console.log(`  ${ROUNDS} rounds, pooled; each round's p99 × its idle p99 (/health//v1/route): ${rounds.join("; ")}`);
  console.log(`  idle: /health p50 ${f(idleHealth.p50)} / p99 ${f(idleHealth.p99)} ms; /v1/route p50 ${f(idleRoute.p50)} / p99 ${f(idleRoute.p99)} ms`);
  for (const [name, at] of [
    ["worst-case", worst],
    ["harmless", benign],
  ] as const) {
    console.log(
      `  20 ${name} runs at once: /health p50 ${f(at.health.p50)} / p99 ${f(at.health.p99)} ms (${(at.health.p99 / idleHealth.p99).toFixed(1)}× idle), ` +
        `/v1/route p50 ${f(at.route.p50)} / p99 ${f(at.route.p99)} ms (${(at.route.p99 / idleRoute.p99).toFixed(1)}× idle); ` +
        `runs ended p50 ${f(at.stops.p50)} / max ${f(at.stops.max)} ms after their request (deadline ${DEADLINE_MS}), succeeded: ${at.succeeded}, stopped by: ${at.limits}`,
    );
  }
  console.log(
    `  harmless run: sandbox start → first tool call p50 ${f(fc.p50)} / p99 ${f(fc.p99)} ms (n = ${fc.n}); ` +
      `the attempt as the service times it (isolate, program, its one tool call, result) p50 ${f(at.p50)} / p99 ${f(at.p99)} ms; whole run p50 ${f(wr.p50)} / p99 ${f(wr.p99)} ms`,
  );
  return { firstCallP50: fc.p50, attemptP50: at.p50, wholeP50: wr.p50 };
}

async function main(): Promise<void> {
  console.log(machineLine());
  if (CLIENT_YIELDS) console.log("--client-yields: the scripted model and the storms' clients run under SCHED_IDLE while latencies are probed");
  if (!process.argv.includes("--skip-build")) buildBundles();
  const service = await startService({ outbound: async (request) => model.handle(request), port: await freePort() });
  let onHost: { firstCallP50: number; attemptP50: number; wholeP50: number };
  try {
    const tenants = await tenantsOf(service);
    const [first] = tenants as [{ id: string; key: string }];
    if (!process.argv.includes("--storm-only")) await perClass(service, first);
    onHost = await stormAndHarmless(service, tenants, "programs on the program host (its own workerd process; npm start, tests):");
  } finally {
    await service.dispose();
  }
  const inProcess = await startService({ outbound: async (request) => model.handle(request), programHost: false, port: await freePort() });
  try {
    const here = await stormAndHarmless(inProcess, await tenantsOf(inProcess), "programs in the service's process (before the program host; deployed):");
    console.log(
      `\nharmless run, program host against in-process: first tool call p50 ${(onHost.firstCallP50 / here.firstCallP50).toFixed(2)}×, ` +
        `attempt at the service p50 ${(onHost.attemptP50 / here.attemptP50).toFixed(2)}× (${f(onHost.attemptP50 - here.attemptP50)} ms), ` +
        `whole run p50 ${(onHost.wholeP50 / here.wholeP50).toFixed(2)}× (${f(onHost.wholeP50 - here.wholeP50)} ms)`,
    );
  } finally {
    await inProcess.dispose();
  }
}

/** Per hostile class: stop time, limit, latency of other requests meanwhile, restarts needed. */
async function perClass(service: TestService, first: { id: string; key: string }): Promise<void> {
  for (let i = 0; i < 3; i++) await run(service, first, HARMLESS, {}); // warm-up
  const idle = await probe(service, first.key, undefined);
  const idleHealth = summary(idle.health);
  const idleRoute = summary(idle.route);
  const rows: string[][] = [];
  let restarts = 0;
  const classes: (readonly [string, string, Record<string, number>])[] = [
    ...HOSTILE_PROGRAMS.map(([name, program]) => [name, program, { deadlineMs: DEADLINE_MS }] as const),
    ["paced: short work between tool calls, forever", PACED_PROGRAM, { deadlineMs: DEADLINE_MS, maxToolCalls: 200 }] as const,
  ];
  for (const [name, program, limits] of classes) {
    const stops: number[] = [];
    const past: number[] = [];
    const limitsSeen = new Set<string>();
    const health: number[] = [];
    const route: number[] = [];
    let succeeded = 0;
    for (let i = 0; i < RUNS; i++) {
      const during = await probeDuring(service, first.key, () => run(service, first, program, limits));
      const result = during.value;
      health.push(...during.health);
      route.push(...during.route);
      stops.push(result.ms);
      past.push(Math.max(0, result.ms - (limits.deadlineMs ?? DEADLINE_MS)));
      if (result.body.status === "succeeded") succeeded++;
      limitsSeen.add(
        result.status === 201 ? (result.body.attempts[0]?.error?.limit ?? result.body.attempts[0]?.error?.kind ?? "none") : `HTTP ${result.status}`,
      );
      if (result.status !== 201) console.error(`${name}: HTTP ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`);
      const after = await run(service, first, HARMLESS, {});
      if (after.body.status !== "succeeded") restarts++;
    }
    const s = summary(stops);
    const p = summary(past);
    const h = summary(health);
    const r = summary(route);
    rows.push([
      name,
      [...limitsSeen].join(", "),
      `${f(s.p50)} / ${f(s.p99)}`,
      `${f(p.p50)} / ${f(p.p99)}`,
      `${f(h.p50)} / ${f(h.p99)}`,
      `${f(r.p50)} / ${f(r.p99)}`,
      String(succeeded),
    ]);
  }
  console.log(
    `\nprograms on the program host; deadline ${DEADLINE_MS} ms, ${RUNS} runs per class; latencies in ms (idle /health p50 ${f(idleHealth.p50)} / p99 ${f(idleHealth.p99)}, /v1/route p50 ${f(idleRoute.p50)} / p99 ${f(idleRoute.p99)})`,
  );
  console.log(table(["class", "stopped by", "stop p50 / p99", "past deadline p50 / p99", "/health p50 / p99", "/v1/route p50 / p99", "succeeded"], rows));
  console.log(
    `service restarts needed: ${restarts} (a harmless run after every hostile one); program host restarts by its watchdog: ${service.programHost?.restarts ?? 0}`,
  );
}

await main();
