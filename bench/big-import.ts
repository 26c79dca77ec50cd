/**
 * A big OpenAPI document imported in the background by the service in workerd (issue 27):
 * by default Microsoft Graph v1.0 of the APIs.guru directory (`microsoft.com/graph.json`, 20 MB,
 * installed with the api-directory bench's package on first use). The document is sent raw to
 * `POST /v1/tools/import/upload`; the job is followed to its end; then the tenant is routed.
 *
 * Prints: bytes, operations, tools, upload time, job time (first progress to the end), peak
 * JavaScript heap of the workerd isolate that runs the Worker and the tenant's Durable Object
 * (V8 inspector `Runtime.getHeapUsage`, sampled every 100 ms: used and allocated; and every 2 s
 * after a full collection, `HeapProfiler.collectGarbage`: what is live), peak resident
 * set of the workerd process (from /proc, every 100 ms); then routing: the time from the job's end
 * until the alarm has prepared routing, a first and a later step, both again after an eviction,
 * how the state loaded and how many definitions it keeps parsed, and the heap over that part.
 *
 * `--heap-sites N`: V8's sampling heap profiler runs from before the tenants are made to the job's
 * end; what is live right before the upload, and at the job's highest live heap (after a full
 * collection; looked at most every 20 s), is printed as the N biggest functions (inclusive) and
 * allocation sites (bench/lib/job-heap.ts); `--heap-profile FILE` keeps the peak's profile.
 *
 * The job's added time: for `--before S` seconds (120 by default; 0: none) before the upload, the
 * same routes and polls at the same cadence as during the job; each figure during the job is then
 * printed less the same figure before it, so a loaded machine's slowness is not counted as the job's.
 * The `--stretches N` longest unbroken busy stretches of each phase (5 by default) are listed with
 * the functions that held the most of each (bench/lib/job-cpu.ts).
 *
 * Run: npm run bench -- big-import [--file PATH] [--skip-build] [--batch N] [--profile DIR] [--top N] [--job-profile FILE]
 *      [--heap-sites N] [--heap-profile FILE] [--before S] [--stretches N]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTenant, type TestService } from "../test/helpers/service";
import { apiDirectoryRoot } from "./lib/api-directory";
import { startBenchService, tenantObject } from "./lib/bench-service";
import { addedLine, probeBeforeJob, probeDuringJob, probeLine } from "./lib/job-probes";
import { stringify as stringifyYaml } from "yaml";
import { machineLine } from "./lib/stats";
import type { Profile } from "./lib/cpu-profile";
import { cpuByPhase, JOB_FUNCTIONS, JOB_SAMPLING_US, longestRunsOf, longestStretches, phaseCpuLine, stretchLine, topOfPhase } from "./lib/job-cpu";
import { HEAP_SAMPLING_BYTES, type HeapSamplingProfile, heapLines } from "./lib/job-heap";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
};

/** A minimal Chrome DevTools Protocol session (one request at a time is all this needs). */
interface Inspector {
  heap(): Promise<{ usedSize: number; totalSize: number }>;
  collect(): Promise<unknown>;
  /** A CPU profile of the isolate while `work` runs (Chrome DevTools' .cpuprofile format). */
  profile(work: () => Promise<unknown>): Promise<unknown>;
  /** Starts sampling the isolate every `intervalUs`; `stop` hands back the profile. */
  startProfile(intervalUs: number): Promise<{ stop(): Promise<Profile> }>;
  /** Starts V8's sampling heap profiler (a sample about every `intervalBytes` allocated, dropped when its object is collected). */
  startHeapSampling(intervalBytes: number): Promise<unknown>;
  /** The sampled allocations still live. */
  heapSampling(): Promise<HeapSamplingProfile>;
  close(): void;
}

async function openInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { title: string; webSocketDebuggerUrl: string }[];
  const target = targets.find((t) => t.title.includes("atc-edge")) ?? targets[0];
  if (target === undefined) throw new Error("no inspector target");
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error("inspector: cannot open")), { once: true });
  });
  let next = 1;
  const pending = new Map<number, (value: unknown) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
    if (message.id !== undefined) pending.delete(message.id);
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}): Promise<T> =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve as (value: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    heap: () => send("Runtime.getHeapUsage"),
    collect: () => send("HeapProfiler.collectGarbage"),
    profile: async (work) => {
      await send("Profiler.enable");
      await send("Profiler.start");
      await work();
      return (await send<{ profile: unknown }>("Profiler.stop")).profile;
    },
    startProfile: async (interval) => {
      await send("Profiler.enable");
      await send("Profiler.setSamplingInterval", { interval });
      await send("Profiler.start");
      return { stop: async () => (await send<{ profile: Profile }>("Profiler.stop")).profile };
    },
    startHeapSampling: (samplingInterval) => send("HeapProfiler.startSampling", { samplingInterval }),
    heapSampling: async () => (await send<{ profile: HeapSamplingProfile }>("HeapProfiler.getSamplingProfile")).profile,
    close: () => socket.close(),
  };
}

/** workerd processes started by this process (Miniflare's), with their resident set in bytes. */
function workerdResident(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      if (!/^Name:\s+workerd/m.test(status)) continue;
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid) continue;
      total += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // gone
    }
  }
  return total;
}

/** CPU time (user + system, ms) the workerd processes started by this process have used: the kernel's accounting, load or not. */
function workerdCpuMs(): number {
  const tick = 10; // USER_HZ is 100 on Linux
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state is the 3rd field, utime the 14th, stime the 15th.
      const [name, rest] = [stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), stat.slice(stat.lastIndexOf(")") + 2).split(" ")];
      if (name !== "workerd" || Number(rest[1]) !== process.pid) continue;
      total += (Number(rest[11]) + Number(rest[12])) * tick;
    } catch {
      // gone
    }
  }
  return total;
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const file = option("file") ?? join(apiDirectoryRoot(root), "microsoft.com", "graph.json");
  // --yaml: the same document sent as YAML (cutting YAML costs far more CPU than JSON).
  const document = process.argv.includes("--yaml")
    ? Buffer.from(stringifyYaml(JSON.parse(readFileSync(file, "utf8")), { aliasDuplicateObjects: false, lineWidth: 0 }))
    : readFileSync(file);
  const port = 9300 + Math.floor(Math.random() * 500);
  const batch = option("batch");
  console.log(`Background import in workerd — ${machineLine()}`);
  const { service } = await startBenchService({
    inspectorPort: port,
    programHost: false,
    bindings: batch === undefined ? {} : { IMPORT_BATCH_OPERATIONS: batch },
  });
  const inspector = await openInspector(port);
  const peak = { used: 0, total: 0, rss: 0, live: 0 };
  /** Per phase of the job (as its progress polls saw it): peak used heap and peak live heap. */
  const byPhase = new Map<string, { used: number; live: number; cpuMs: number }>();
  let phaseNow = (): string | undefined => undefined;
  let cpuBefore = workerdCpuMs();
  const notePhase = (used: number, live?: number) => {
    const phase = phaseNow();
    const cpuNow = workerdCpuMs();
    const cpuMs = cpuNow - cpuBefore;
    cpuBefore = cpuNow;
    if (phase === undefined) return;
    const entry = byPhase.get(phase) ?? { used: 0, live: 0, cpuMs: 0 };
    byPhase.set(phase, { used: Math.max(entry.used, used), live: Math.max(entry.live, live ?? 0), cpuMs: entry.cpuMs + cpuMs });
  };
  const heapSites = option("heap-sites") === undefined ? undefined : liveHeapAtPeak(inspector);
  let sampling = true;
  /** Callers waiting for the sampler's next full collection (routeTheTenant's steps). */
  let collectionsWanted: (() => void)[] = [];
  /** The live heap at the sampler's last full collection. */
  let lastLive = 0;
  const sampler = (async () => {
    for (let n = 0; sampling; n += 1) {
      // Every 2 s a full collection first: what is live then, not garbage V8 has not collected yet.
      if (n % 20 === 0 || collectionsWanted.length > 0) {
        const waiting = collectionsWanted;
        collectionsWanted = [];
        await inspector.collect();
        const live = (await inspector.heap()).usedSize;
        lastLive = live;
        if (heapSites !== undefined && live > peak.live) await heapSites.note(live);
        peak.live = Math.max(peak.live, live);
        notePhase(0, live);
        for (const done of waiting) done();
      }
      const heap = await inspector.heap();
      notePhase(heap.usedSize);
      peak.used = Math.max(peak.used, heap.usedSize);
      peak.total = Math.max(peak.total, heap.totalSize);
      peak.rss = Math.max(peak.rss, workerdResident());
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    const idle = { heap: await inspector.heap(), rss: workerdResident() };
    // Sampled from here, so the breakdown shows what making the tenants left live too.
    await heapSites?.start();
    const { key, id: tenantId } = await createTenant(service, "big-import");
    const small = await smallTenant(service);
    const task = "list the events in my calendar for next week";
    const beforeSeconds = Number(option("before") ?? 120);
    const before = beforeSeconds > 0 ? await probeBeforeJob(service, key, small.key, task, beforeSeconds) : undefined;
    // The sampler takes the collection: one sent beside its own went unanswered by workerd's inspector (the bench hung).
    const liveNow = () =>
      Promise.race([new Promise<void>((resolve) => collectionsWanted.push(resolve)), new Promise<void>((resolve) => setTimeout(resolve, 10_000))]);
    // What is live before the job (code compiled so far, both tenants made): the job's share of the peak is above it.
    await liveNow();
    const liveBefore = lastLive;
    const sitesBefore = await heapSites?.now();
    heapSites?.watch();
    const jobProfile = await inspector.startProfile(JOB_SAMPLING_US);
    phaseNow = () => "upload";
    const t0 = performance.now();
    const upload = await service.fetch("/v1/tools/import/upload?source=graph", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: document,
    });
    if (upload.status !== 202) throw new Error(`upload answered ${upload.status}: ${await upload.text()}`);
    const { jobId } = (await upload.json()) as { jobId: string };
    const uploadMs = performance.now() - t0;
    const probes = probeDuringJob(service, key, small.key, jobId, task);
    phaseNow = () => probes.phase();
    const job = await followJob(service, key, jobId, t0, peak);
    const jobMs = performance.now() - t0;
    const during = await probes.stop();
    const cpu = await jobProfile.stop();
    phaseNow = () => undefined;
    if (job.status !== "succeeded") throw new Error(`job failed: ${JSON.stringify(job.result).slice(0, 2_000)}; last error: ${job.lastError}`);
    const atEnd = { ...peak };
    const livePeak = heapSites?.stop();
    console.log(`document            ${file.replace(`${root}/`, "")} (${mib(document.byteLength)})`);
    console.log(`operations          ${job.progress.operations?.total}`);
    console.log(
      `tools created       ${job.result.created?.length}; warnings ${(job.result.warnings?.length ?? 0) + (job.result.warningsOmitted ?? 0)} (${job.result.warnings?.length} kept in the report)`,
    );
    console.log(`upload (202)        ${(uploadMs / 1000).toFixed(1)} s`);
    console.log(`upload to job end   ${(jobMs / 1000).toFixed(1)} s`);
    console.log(
      `isolate heap        idle ${mib(idle.heap.usedSize)}; live before the upload ${mib(liveBefore)}; to the job's end: peak used ${mib(atEnd.used)} (garbage included), peak allocated ${mib(atEnd.total)}, peak live after a full collection (every 2 s) ${mib(atEnd.live)}`,
    );
    console.log(`workerd resident    idle ${mib(idle.rss)}; peak to the job's end ${mib(atEnd.rss)}`);
    console.log("during the job, every 2 s (a route of each tenant and a progress poll, sent together):");
    console.log(probeLine("route, importing tenant", during.importing));
    console.log(probeLine(`route, another (${small.tools} tools)`, during.other));
    console.log(probeLine("progress poll", during.progress));
    console.log(probeLine("long-poll ?wait=5 (over 5 s)", job.longPolls));
    if (before !== undefined) {
      console.log(`the job's added time (during the job less the same requests for ${beforeSeconds} s before the upload, every 2 s):`);
      console.log(addedLine("route, importing tenant", before.importing, during.importing));
      console.log(addedLine(`route, another (${small.tools} tools)`, before.other, during.other));
      console.log(addedLine("progress poll (404 before)", before.progress, during.progress));
    }
    for (const [phase, f] of during.slices)
      console.log(
        `  slices ${phase.padEnd(10)} ${f.slices} seen; longest ${f.longestSliceMs} ms; longest piece ${f.longestPieceMs} ms (wall time in the alarm)`,
      );
    for (const [phase, heap] of byPhase)
      console.log(
        `  ${phase.padEnd(12)} workerd CPU ${heap.cpuMs} ms (kernel's count); heap peak used ${mib(heap.used)}, peak live ${heap.live > 0 ? mib(heap.live) : "not sampled (no full collection in the phase)"}`,
      );
    if (sitesBefore !== undefined) printLiveHeap("before the upload (both tenants made)", { live: liveBefore, profile: sitesBefore });
    if (livePeak !== undefined) printLiveHeap("at its peak during the job", livePeak);
    // Phases first seen after the job's end (its "done") hold none of its work.
    printJobCpu(cpu, t0, [{ atMs: t0, phase: "upload" }, ...probes.marks().filter((mark) => mark.atMs < t0 + jobMs)], t0 + jobMs);
    const tools = await service.json<{ tools: unknown[] }>("GET", "/v1/tools", { key });
    console.log(`tools listed        ${tools.status === 200 ? tools.body.tools.length : `GET /v1/tools answered ${tools.status}`}`);
    await printIndexSaves(service, tenantId);
    await routeTheTenant(service, key, tenantId, peak, inspector, liveNow);
    await coldAndWarm(service, { key, id: tenantId }, small, task);
  } finally {
    sampling = false;
    // An inspector call left unanswered (the session can stall through minutes-long requests) must not keep the bench alive.
    await Promise.race([sampler.catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    inspector.close();
    await service.dispose();
  }
}

/**
 * The live heap's profile at the job's highest live heap: noted when a full collection finds a new
 * peak, at most every 20 s (a profile of a big heap is a large message).
 */
function liveHeapAtPeak(inspector: Inspector) {
  let kept: { live: number; atMs: number; profile: HeapSamplingProfile } | undefined;
  /** Peaks are noted from the upload on, until the job's end. */
  let watching = false;
  return {
    start: () => inspector.startHeapSampling(HEAP_SAMPLING_BYTES),
    watch: () => {
      watching = true;
    },
    now: () => inspector.heapSampling(),
    note: async (live: number) => {
      if (!watching || (kept !== undefined && performance.now() - kept.atMs < 20_000)) return;
      kept = { live, atMs: performance.now(), profile: await inspector.heapSampling() };
    },
    stop: () => {
      watching = false;
      return kept;
    },
  };
}

function printLiveHeap(when: string, peak: { live: number; profile: HeapSamplingProfile }): void {
  console.log(`live heap ${when} (${mib(peak.live)} after a full collection), by where it was allocated:`);
  for (const line of heapLines(peak.profile, Number(option("heap-sites")) || 12)) console.log(line);
  const saved = option("heap-profile");
  if (saved !== undefined) writeFileSync(saved, JSON.stringify(peak.profile));
}

/** CPU per phase of the job (the isolate's profiler, bench/lib/job-cpu.ts); with --top N, what took the most while importing. */
function printJobCpu(profile: Profile, startedAtMs: number, marks: { atMs: number; phase: string }[], endMs: number): void {
  console.log("CPU per phase (the isolate's sampling profiler; locally one thread runs every object and the Worker):");
  for (const figures of cpuByPhase(profile, startedAtMs, marks, endMs)) console.log(phaseCpuLine(figures));
  const saved = option("job-profile");
  if (saved !== undefined) writeFileSync(saved, JSON.stringify(profile));
  console.log("longest unbroken busy stretches per phase (the functions holding the most of each, inclusive ms):");
  for (const stretch of longestStretches(profile, startedAtMs, marks, Number(option("stretches") ?? 5))) console.log(stretchLine(stretch));
  console.log("the longest run of samples inside each of these functions (one call's hold on the thread, wall ms; runs seen):");
  for (const [name, run] of longestRunsOf(profile, JOB_FUNCTIONS))
    console.log(`    ${name.padEnd(16)} ${run.longestMs.toFixed(0).padStart(6)} ms (${run.runs} runs)`);
  const top = Number(option("top") ?? 0);
  if (top > 0) for (const line of topOfPhase(profile, startedAtMs, marks, "importing", top)) console.log(line);
}

type Job = {
  status: string;
  lastError?: string | null;
  progress: { operations?: { done: number; total: number } };
  result: { created?: string[]; warnings?: string[]; warningsOmitted?: number; error?: unknown };
};

/** Follows the job with `?wait=5` long-polls to its end; how long each long-poll that came back unfinished took. */
async function followJob(service: TestService, key: string, jobId: string, t0: number, peak: { used: number; rss: number }) {
  let job: Job;
  let lastLine = 0;
  const waits: { ms: number; ok: boolean }[] = [];
  for (;;) {
    const asked = performance.now();
    const answer = await service.json<Job>("GET", `/v1/jobs/${jobId}?wait=5`, { key });
    job = answer.body;
    if (job.status === "succeeded" || job.status === "failed") break;
    waits.push({ ms: performance.now() - asked - 5_000, ok: answer.status === 200 });
    if (performance.now() - lastLine > 10_000) {
      lastLine = performance.now();
      const ops = job.progress.operations;
      console.log(
        `  ${((performance.now() - t0) / 1000).toFixed(0)} s: ${ops?.done ?? 0} of ${ops?.total ?? "?"} operations; heap peak ${mib(peak.used)}, rss peak ${mib(peak.rss)}`,
      );
    }
  }
  const sorted = waits.map((w) => w.ms).sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return { ...job, longPolls: { sent: waits.length, failed: waits.filter((w) => !w.ok).length, p50: at(50), p99: at(99), worst: sorted.at(-1) ?? 0 } };
}

/** The routing index's saves to the job's end (storage/routing-snapshots.ts): whole, in pieces, and the pieces' counted work. */
async function printIndexSaves(service: TestService, tenantId: string): Promise<void> {
  const routing = (await tenantObject(service, tenantId)).store("routing");
  const writes = await routing.snapshotWrites();
  const pieces = await routing.indexSavePieces();
  const largest = (kind: string) => Math.max(0, ...pieces.filter((p) => p.piece === kind).map((p) => p.work));
  console.log(
    `index saves         whole ${writes.index}, in pieces ${writes.indexInPieces} (${pieces.length} pieces; largest merge / impacts piece ${largest("merge")} / ${largest("impacts")} postings, largest write ${(largest("write") / 1024 / 1024).toFixed(1)} MiB)`,
  );
}

/** A small tenant beside the big one: RestBench's TMDB document (54 tools). */
async function smallTenant(service: TestService): Promise<{ key: string; id: string; tools: number }> {
  const tenant = await createTenant(service, "small");
  const tmdb = JSON.parse(readFileSync(join(root, "kv-seed/world/restbench-tmdb/openapi.json"), "utf8")) as unknown;
  const imported = await service.json<{ created: string[] }>("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb } });
  return { ...tenant, tools: imported.body.created.length };
}

/** After an eviction of both (objects cold), the first route of each, then warm routes (median of 5), the big tenant beside the small one. */
async function coldAndWarm(service: TestService, big: { key: string; id: string }, small: { key: string; id: string }, task: string): Promise<void> {
  const route = async (key: string, what: string): Promise<number> => {
    const started = performance.now();
    const answer = await service.json<{ candidates?: unknown[] }>("POST", "/v1/route", { key, body: { task: what, k: 8 } });
    if (answer.status !== 200) throw new Error(`route answered ${answer.status}`);
    return performance.now() - started;
  };
  for (const tenant of [big, small]) await (await tenantObject(service, tenant.id)).simulateEviction();
  const cold = { big: await route(big.key, task), small: await route(small.key, "list movie genres") };
  const warm = { big: [] as number[], small: [] as number[] };
  for (let i = 0; i < 5; i += 1) {
    warm.big.push(await route(big.key, task));
    warm.small.push(await route(small.key, "list movie genres"));
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0;
  console.log(
    `cold and warm       first route after an eviction: big ${cold.big.toFixed(0)} ms, small ${cold.small.toFixed(0)} ms (${(cold.big / cold.small).toFixed(1)}×); warm median of 5: big ${median(warm.big).toFixed(0)} ms, small ${median(warm.small).toFixed(0)} ms (${(median(warm.big) / median(warm.small)).toFixed(1)}×)`,
  );
}

/**
 * The routing part: the tenant object's alarm prepares routing once the job is done (index and
 * data-flow table, stored); then a first step, a later step after its best tool, and both again
 * after an eviction, with the heap's peaks over this part alone.
 */
async function routeTheTenant(
  service: TestService,
  key: string,
  tenantId: string,
  peak: { used: number; total: number; rss: number; live: number },
  inspector: Inspector,
  liveNow: () => Promise<void>,
): Promise<void> {
  const object = await tenantObject(service, tenantId);
  // The sampler's full collections come every 20 of its rounds, and a round waits while the isolate
  // runs a long call (the preparation from scratch): this part could end before its first one, and
  // printed a live peak of 0. So the sampler takes one after each step too (`liveNow`).
  const p0 = performance.now();
  while ((await object.store("routing").preparationDue()) !== null) await new Promise((r) => setTimeout(r, 200));
  console.log(`job end to prepared ${((performance.now() - p0) / 1000).toFixed(1)} s (the alarm prepares right after the job's last batch)`);
  const task = "list the events in my calendar for next week";
  // --profile DIR: a CPU profile of the isolate per step, DIR/<step>.cpuprofile (open in Chrome DevTools).
  const profiles = option("profile");
  const step = async (label: string, previousTool?: string): Promise<string | undefined> => {
    const r0 = performance.now();
    let answer = { status: 0, body: {} as { candidates?: { name: string }[] } };
    const ask = async () => {
      answer = await service.json<{ candidates?: { name: string }[] }>("POST", "/v1/route", {
        key,
        body: { task, k: 8, ...(previousTool === undefined ? {} : { previousTool }) },
      });
    };
    if (profiles === undefined) await ask();
    else writeFileSync(join(profiles, `${label.replace(/\W+/g, "-")}.cpuprofile`), JSON.stringify(await inspector.profile(ask)));
    const ms = performance.now() - r0;
    const names = (answer.body.candidates ?? []).map((c) => c.name);
    console.log(
      `  ${label.padEnd(34)} ${ms.toFixed(0)} ms (${answer.status}): ${answer.status === 200 ? names.join(", ") : JSON.stringify(answer.body).slice(0, 300)}`,
    );
    await liveNow();
    return names[0];
  };
  Object.assign(peak, { used: 0, total: 0, rss: 0, live: 0 });
  const best = await step("first step");
  await step("later step after its best tool", best);
  await step("first step again");
  console.log(
    `  load report ${JSON.stringify(await object.routingLoadReport())}; loaded ${JSON.stringify(await object.routingLoadedParts())}; definitions parsed since the load ${await object.store("routing").definitionParses()}`,
  );
  await object.simulateEviction();
  await step("first step after an eviction");
  await step("later step after an eviction", best);
  console.log(
    `  load report ${JSON.stringify(await object.routingLoadReport())}; loaded ${JSON.stringify(await object.routingLoadedParts())}; definitions parsed since the load ${await object.store("routing").definitionParses()}`,
  );
  // The preparation the alarm ran, timed from scratch: stored values aged, so index and data flow are made again.
  await object.simulateEviction({ olderFormats: true });
  const q0 = performance.now();
  const cpu0 = workerdCpuMs();
  const prepared = await object.store("routing").prepare();
  console.log(
    `  preparation from scratch ${((performance.now() - q0) / 1000).toFixed(1)} s, workerd CPU ${workerdCpuMs() - cpu0} ms (kernel's count; one synchronous call): ${JSON.stringify(prepared)}`,
  );
  await step("first step after it");
  console.log(`with routing        isolate heap peak used ${mib(peak.used)}, peak live ${mib(peak.live)}; workerd resident peak ${mib(peak.rss)}`);
}

await main();
