/**
 * Soak: mixed traffic at a fixed rate against `npm start` with a stub model, for a long time,
 * sampling the answers and the memory of the workerd processes (issue 32).
 *
 *   npm run bench -- soak [--minutes=20] [--rate=4] [--bomb-every=4] [--warm-up=3] [--port=8797]
 *
 * The model is the scripted OpenAI-compatible server of test/helpers on 127.0.0.1 (what `npm
 * start` reaches with MODEL_ALLOW_LOOPBACK=true): runs get a two-tool program, hostile runs a
 * tight loop, and every `--bomb-every` minutes one run gets a memory bomb. Traffic (routes, MCP
 * find_tools and call_tool, tool calls, tools whose host does not resolve (`.invalid`, and a typo), feedback, runs,
 * probes, imports, signed webhooks with redeliveries, bad keys) is sent open-loop at `--rate`
 * requests per second (at most 32 in flight; more would be counted as shed). Every 5 s the
 * resident memory of each workerd process is read from /proc. Printed: per minute (requests,
 * errors, intended refusals, p50/p99 of the main kinds, peak memory per process), per kind, the
 * program host's memory around each bomb, and the targets (errors, route p99 last vs first five
 * minutes, memory growth after warm-up). Only loopback addresses are contacted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModel } from "../test/helpers/scripted-model";
import { serveLocally } from "../test/helpers/local-model-server";
import { freePort } from "./lib/free-port";
import { type Inspector, serviceInspector } from "./lib/inspector";
import { residentMib, startNpmStart, stopNpmStart, workerdProcesses } from "./lib/soak-service";
import { errorLines, kindTable, minuteTable, verdict, type MemorySample, type Sample } from "./lib/soak-report";
import {
  BOMB_TASK,
  KINDS,
  LOOP_TASK,
  memoryBomb,
  RUN_TASK,
  SOAK_TOOLS,
  TYPO_HOST_TOOL,
  UNRESOLVABLE_TOOL,
  type Outcome,
  type SoakContext,
} from "./lib/soak-traffic";
import { machineLine, seededRandom } from "./lib/stats";

function option(name: string, fallback: string): number {
  const prefix = `--${name}=`;
  return Number(process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback);
}

const minutes = option("minutes", "20");
const rate = option("rate", "4");
const bombEvery = option("bomb-every", "4");
const warmUp = option("warm-up", "3");
const MAX_IN_FLIGHT = 32;
const ROLES = ["service", "program host", "wrangler proxy"];

function scriptedModel() {
  const model = createScriptedModel();
  const fence = (code: string) => ({ text: `\`\`\`ts\n${code}\n\`\`\`` });
  model.on({ name: "loop", match: (r) => r.lastUserMessage.includes(LOOP_TASK), answer: fence("while (true) {}") });
  model.on({
    name: "bomb",
    match: (r) => r.lastUserMessage.includes(BOMB_TASK),
    answer: fence("const hoard = [];\nwhile (true) hoard.push(new Array(1e6).fill(1));\nreturn hoard.length;"),
  });
  model.on({
    name: "two tools",
    match: (r) => r.lastUserMessage.includes(RUN_TASK),
    answer: fence(
      'const found = await tools.getSearchPerson({ query: "Bradley Cooper" });\nconst credits = await tools.getPersonPersonIdMovieCredits({ person_id: found.results[0].id });\nreturn `${credits.cast.length} movies`;',
    ),
  });
  model.on({ name: "anything else", answer: { text: "I cannot help with that." } });
  return model;
}

async function setUp(ctx: SoakContext): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${ctx.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ctx.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  await post("/v1/tools/import", { format: "list", tools: [...SOAK_TOOLS, UNRESOLVABLE_TOOL, TYPO_HOST_TOOL] });
  ctx.webhookSecret = String((await post("/v1/webhooks/secrets", {})).secret);
}

/** A client-side failure with its cause (Node's fetch says only "fetch failed"). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${(error.cause as Error & { code?: string }).code ?? error.cause.name}: ${error.cause.message})` : "";
  return `${error.name}: ${error.message}${cause}`;
}

function memorySample(rootPid: number, at: number): MemorySample {
  const byRole: Record<string, number> = {};
  for (const { pid, role } of workerdProcesses(rootPid)) byRole[role] = (byRole[role] ?? 0) + (residentMib(pid) ?? 0);
  return { at, byRole };
}

/**
 * The service isolate's live heap (MiB) right after a full garbage collection, read through its
 * inspector: what the Worker and the tenant objects really hold, which resident memory does not
 * tell (V8 keeps freed pages and grows its heap lazily). The collection pauses the isolate briefly.
 */
async function liveHeapMib(inspector: Inspector): Promise<number> {
  // The session answers in order: the usage is read after the collection.
  inspector.post("HeapProfiler.collectGarbage");
  const { usedSize } = await inspector.send<{ usedSize: number }>("Runtime.getHeapUsage");
  return usedSize / 2 ** 20;
}

/** Sends traffic for `minutes`; returns the samples, memory readings, the live heap each minute and the bombs' memory notes. */
async function drive(
  ctx: SoakContext,
  rootPid: number,
  inspector: Inspector,
): Promise<{ samples: Sample[]; memory: MemorySample[]; heap: { at: number; mib: number }[]; bombs: string[]; shed: number }> {
  const heap: { at: number; mib: number }[] = [];
  const samples: Sample[] = [];
  const memory: MemorySample[] = [];
  const bombs: string[] = [];
  const random = seededRandom(32);
  const kinds = Object.entries(KINDS);
  const totalWeight = kinds.reduce((sum, [, k]) => sum + k.weight, 0);
  const started = performance.now();
  const now = () => (performance.now() - started) / 60_000;
  let inFlight = 0;
  let shed = 0;
  const pending = new Set<Promise<void>>();
  const launch = (kind: string, send: (c: SoakContext) => Promise<Outcome>) => {
    if (inFlight >= MAX_IN_FLIGHT) return void (shed += 1);
    inFlight += 1;
    const at = now();
    const t0 = performance.now();
    const p = send(ctx)
      .catch((error: unknown): Outcome => ({ result: "error", reason: describeError(error) }))
      .then((outcome) => void samples.push({ at, kind, ms: performance.now() - t0, outcome }))
      .finally(() => {
        inFlight -= 1;
        pending.delete(p);
      });
    pending.add(p);
  };
  let nextMemory = 0;
  let nextHeap = 1;
  let nextBomb = bombEvery / 2;
  for (let tick = 0; now() < minutes; tick += 1) {
    if (now() >= nextMemory) {
      memory.push(memorySample(rootPid, now()));
      nextMemory += 5 / 60;
    }
    if (now() >= nextHeap) {
      nextHeap += 1;
      const at = now();
      void liveHeapMib(inspector).then(
        (mib) => void heap.push({ at, mib }),
        (error: unknown) => console.log(`live heap at ${at.toFixed(1)} min: not read (${describeError(error)})`),
      );
    }
    if (now() >= nextBomb) {
      nextBomb += bombEvery;
      const before = memorySample(rootPid, now()).byRole["program host"] ?? Number.NaN;
      launch("memory bomb", memoryBomb);
      setTimeout(
        () =>
          bombs.push(
            `bomb at ${now().toFixed(1)} min: program host ${before.toFixed(0)} MiB before, ${(memorySample(rootPid, now()).byRole["program host"] ?? Number.NaN).toFixed(0)} MiB 30 s later`,
          ),
        30_000,
      );
    }
    let pick = random() * totalWeight;
    const chosen = kinds.find(([, k]) => (pick -= k.weight) < 0) ?? kinds[0];
    if (chosen === undefined) throw new Error("the soak has no kinds of traffic");
    const [kind, spec] = chosen;
    launch(kind, spec.send);
    const due = started + ((tick + 1) * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  }
  await Promise.all(pending);
  heap.push({ at: minutes, mib: await liveHeapMib(inspector) });
  return { samples, memory, heap, bombs, shed };
}

/** Live heap after warm-up against the end: growth here is what the service holds on to. */
function heapVerdict(heap: readonly { at: number; mib: number }[], warmUpMinutes: number): string {
  const afterWarmUp = heap.find((h) => h.at >= warmUpMinutes);
  const end = heap.at(-1);
  if (afterWarmUp === undefined || end === undefined) return "service live heap: not read";
  const growth = ((end.mib - afterWarmUp.mib) / afterWarmUp.mib) * 100;
  return `service live heap after a full GC: ${afterWarmUp.mib.toFixed(1)} MiB at ${afterWarmUp.at.toFixed(0)} min, ${end.mib.toFixed(1)} MiB at the end (${growth.toFixed(1)} %, target ≤ 10 %)`;
}

const root = process.cwd();
const stateDir = mkdtempSync(join(tmpdir(), "atc-soak-"));
const model = scriptedModel();
const modelServer = await serveLocally(model);
const port = option("port", String(await freePort()));
console.log(`soak: ${minutes} min at ${rate} requests/s, a memory bomb every ${bombEvery} min, warm-up ${warmUp} min\n${machineLine()}`);
const inspectorPort = await freePort();
const service = await startNpmStart(root, { port, inspectorPort, stateDir, modelBaseUrl: modelServer.baseUrl });
try {
  let counter = 0;
  const ctx: SoakContext = { baseUrl: service.baseUrl, key: service.demoKey, webhookSecret: "", next: () => (counter += 1) };
  await setUp(ctx);
  const rootPid = service.child.pid ?? 0;
  const inspector = await serviceInspector(inspectorPort);
  const { samples, memory, heap, bombs, shed } = await drive(ctx, rootPid, inspector);
  inspector.close();
  const log = service.output();
  console.log(
    `\nper minute (latency of answered requests, p50/p99 ms; memory: peak resident MiB of each workerd role)\n${minuteTable(samples, memory, minutes, ROLES)}`,
  );
  console.log(`\nservice isolate's live heap after a full GC, MiB, each minute: ${heap.map((h) => h.mib.toFixed(1)).join(" ")}`);
  console.log(`\nper kind\n${kindTable(samples)}`);
  console.log(`\nshed (more than ${MAX_IN_FLIGHT} in flight): ${shed}`);
  console.log(`\nmemory bombs\n${bombs.map((b) => `  ${b}`).join("\n")}`);
  console.log(`\nerrors\n${errorLines(samples).join("\n") || "  none"}`);
  console.log(
    `\nnpm start's log: ${(log.match(/Uncaught/g) ?? []).length} "Uncaught" lines, ${(log.match(/DNS lookup failed/g) ?? []).length} "DNS lookup failed", ${(log.match(/overloaded: connect\(\)/g) ?? []).length} "overloaded: connect()", ${(log.match(/restarted mid-request/g) ?? []).length} "restarted mid-request"`,
  );
  console.log(
    `\ntargets\n${verdict(samples, memory, minutes, warmUp, ROLES)
      .map((l) => `  ${l}`)
      .join("\n")}\n  ${heapVerdict(heap, warmUp)}`,
  );
} finally {
  await stopNpmStart(service);
  await modelServer.close();
  rmSync(stateDir, { recursive: true, force: true });
}
