/**
 * Feedback throughput into one tenant object, through HTTP and in-process.
 *
 *   node bench/run.mjs feedback-throughput [--skip-build] [--seconds=5]
 *
 * A tenant with 1,000 tools and ≈ 10 observed successors per tool (as in route-latency) gets
 * `POST /v1/feedback` (an evaluated trajectory: 2–6 tools of a stored walk, one integer score in
 * [-3, 3] per tool) from 1, 8 and 64 concurrent senders, for `seconds` each, after a 2 s
 * warm-up. At each concurrency the paths below alternate in six slices each, in a shuffled order
 * per round, so drift on the shared machine falls on all of them alike; every path goes in the
 * same way (Miniflare's dispatchFetch, the answer read whole). Every request goes to the same Durable Object, which applies them in arrival order;
 * updates that reach it together share one transaction and write each re-scored tool once
 * (durable-objects/feedback-coalescer.ts); the rows written per changed score are printed.
 *
 * The same evaluations also go `BATCH_SIZE` at a time through `POST /v1/feedback/batch` (one
 * transaction per request, each re-scored tool written once).
 *
 * For comparison at the same concurrency: the one-RPC floor (lib/rpc-floor.ts: an HTTP request
 * into a Worker making one Durable Object RPC that adds 1 to a SQLite row, in the service's own
 * workerd process, same run; also sent exactly what a single update sends, its key header and body), `GET /v1/tenant` (HTTP, auth and one read RPC into the same object, 3 s each), and the
 * pure `applyFeedback` on an identical in-process graph (no HTTP, no RPC, no SQLite), with the
 * same evaluations. Targets (issue 16): batched ≥ 2,000 updates/s; single within 1.3× the floor.
 *
 * Afterwards the tenant's exported scores are compared with the sum of every accepted update
 * replayed locally, so lost or doubled updates under concurrency would show.
 */
import { addTools, addTrajectories, applyFeedback, createGraph, type Evaluation } from "../functions/toolnet/graph";
import { setUpTenant, startBenchService, tenantObject } from "./lib/bench-service";
import { rpcFloorWorker, sendToFloor } from "./lib/rpc-floor";
import { corpusItems, recordedTrajectories, syntheticWalks, toolItems } from "./lib/tool-corpus";
import { descendantCpuMs, int, machineLine, ms, ownCpuMs, randomInt, seconds, seededRandom, shuffle, summary, table } from "./lib/stats";

const TOOLS = 1_000;
const CONCURRENCY = [1, 8, 64] as const;
const MAX_REQUESTS_PER_PHASE = 200_000;
/** Updates per batched request (the prototype sent 20). */
const BATCH_SIZE = 20;

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Slices per path and concurrency: the paths alternate, each `seconds / ROUNDS` at a time. */
const ROUNDS = 6;

interface Phase {
  requests: number;
  errors: number;
  scoreUpdates: number;
  elapsedMs: number;
  latencies: number[];
  /** CPU time spent during the phase by this Node process and by workerd (its child). */
  nodeCpuMs: number;
  workerdCpuMs: number;
}

function emptyPhase(): Phase {
  return { requests: 0, errors: 0, scoreUpdates: 0, elapsedMs: 0, latencies: [], nodeCpuMs: 0, workerdCpuMs: 0 };
}

/** Adds a slice's counts, time and latencies to a path's total. */
function addPhase(total: Phase, slice: Phase): void {
  total.requests += slice.requests;
  total.errors += slice.errors;
  total.scoreUpdates += slice.scoreUpdates;
  total.elapsedMs += slice.elapsedMs;
  total.nodeCpuMs += slice.nodeCpuMs;
  total.workerdCpuMs += slice.workerdCpuMs;
  for (const latency of slice.latencies) total.latencies.push(latency);
}

/** `concurrency` senders loop until the deadline (or the request cap); returns counts and latencies. */
async function load(concurrency: number, durationMs: number, send: (i: number) => Promise<{ ok: boolean; updates: number }>): Promise<Phase> {
  const phase: Phase = { requests: 0, errors: 0, scoreUpdates: 0, elapsedMs: 0, latencies: [], nodeCpuMs: 0, workerdCpuMs: 0 };
  const node0 = ownCpuMs();
  const workerd0 = descendantCpuMs();
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  let next = 0;
  const sender = async (): Promise<void> => {
    while (performance.now() < deadline && next < MAX_REQUESTS_PER_PHASE) {
      const i = next;
      next += 1;
      const start = performance.now();
      const result = await send(i);
      phase.latencies.push(performance.now() - start);
      phase.requests += 1;
      if (result.ok) phase.scoreUpdates += result.updates;
      else phase.errors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  phase.elapsedMs = performance.now() - t0;
  phase.nodeCpuMs = ownCpuMs() - node0;
  phase.workerdCpuMs = descendantCpuMs() - workerd0;
  return phase;
}

async function main(): Promise<void> {
  const started = performance.now();
  const durationMs = 1000 * Number(option("seconds", "5"));
  if (!(durationMs >= 500 && durationMs <= 30_000)) throw new Error("--seconds: 0.5..30");
  console.log(`Feedback throughput into one tenant object (${TOOLS} tools) — ${machineLine()}`);

  const items = toolItems(TOOLS, corpusItems());
  const names = items.map((i) => i.name);
  const walks = syntheticWalks(names, 10, TOOLS);
  const trajectories = [...recordedTrajectories(new Set(names)), ...walks];
  const random = seededRandom(99);
  const order = seededRandom(7);
  const evaluations: Evaluation[] = Array.from({ length: 20_000 }, () => {
    const walk = walks[randomInt(random, walks.length)]?.tools ?? [];
    const length = Math.min(walk.length, 2 + randomInt(random, 5));
    const tools = walk.slice(0, length);
    return { tools, scores: tools.map(() => randomInt(random, 7) - 3) };
  });
  const evaluationAt = (i: number): Evaluation => evaluations[i % evaluations.length] ?? { tools: [], scores: [] };

  // What the service's scores must add up to: every accepted evaluation, replayed locally.
  const replay = createGraph();
  addTools(replay, names);

  const http: {
    concurrency: number;
    feedback: Phase;
    batched: Phase;
    floor: Phase;
    floorSameBytes: Phase;
    auth: Phase;
    scoreWrites: { rows: number; flushes: number };
  }[] = [];
  const { service } = await startBenchService({ extraWorkers: [rpcFloorWorker()] });
  let exported: { nodes: { tool: string; score: number }[] } | undefined;
  try {
    const setup = await setUpTenant(service, "bench-feedback", items, trajectories);
    console.log(`tenant: ${TOOLS} tools, ${int(trajectories.length)} trajectories in ${seconds(setup.toolImportMs + setup.trajectoryImportMs)}`);
    const feedbackHeaders = { authorization: `Bearer ${setup.key}`, "content-type": "application/json" };
    // The tenant's rate quotas would answer most of this load with 429: lift them, the object is what is measured.
    const loose = { perSecond: 10_000, burst: 100_000 };
    const quotas = await service.fetch("/v1/settings/quotas", {
      method: "PUT",
      headers: feedbackHeaders,
      body: JSON.stringify({ rates: { reads: loose, writes: loose, routing: loose, toolCalls: loose, runs: loose, jobs: loose } }),
    });
    if (quotas.status !== 200) throw new Error(`PUT /v1/settings/quotas: ${quotas.status} ${await quotas.text()}`);
    let offset = 0;
    // Every path goes in the same way as the floor's request: Miniflare's dispatchFetch, the answer read whole.
    const dispatch = (path: string, init: RequestInit): Promise<Response> =>
      service.mf.dispatchFetch(`http://atc.test${path}`, init as never) as unknown as Promise<Response>;
    const sendFeedback = async (i: number): Promise<{ ok: boolean; updates: number }> => {
      const evaluation = evaluationAt(offset + i);
      const response = await dispatch("/v1/feedback", { method: "POST", headers: feedbackHeaders, body: JSON.stringify(evaluation) });
      const text = await response.text();
      if (response.status !== 200) return { ok: false, updates: 0 };
      applyFeedback(replay, evaluation);
      return { ok: true, updates: (JSON.parse(text) as { updated: unknown[] }).updated.length };
    };
    const sendBatch = async (i: number): Promise<{ ok: boolean; updates: number }> => {
      const batch = Array.from({ length: BATCH_SIZE }, (_, j) => evaluationAt(offset + i * BATCH_SIZE + j));
      const response = await dispatch("/v1/feedback/batch", { method: "POST", headers: feedbackHeaders, body: JSON.stringify({ updates: batch }) });
      const text = await response.text();
      if (response.status !== 200) return { ok: false, updates: 0 };
      for (const evaluation of batch) applyFeedback(replay, evaluation);
      return { ok: true, updates: (JSON.parse(text) as { applied: number }).applied };
    };
    const sendFloor = async (): Promise<{ ok: boolean; updates: number }> => ({ ok: (await sendToFloor(service)) > 0, updates: 1 });
    // The floor sent what a single update sends (its key header and body), to tell the service's work from the request's size.
    const sendFloorSameBytes = async (i: number): Promise<{ ok: boolean; updates: number }> => ({
      ok: (await sendToFloor(service, { headers: feedbackHeaders, body: JSON.stringify(evaluationAt(offset + i)) })) > 0,
      updates: 1,
    });
    const sendAuth = async (): Promise<{ ok: boolean; updates: number }> => {
      const response = await dispatch("/v1/tenant", { headers: { authorization: feedbackHeaders.authorization } });
      await response.arrayBuffer();
      return { ok: response.status === 200, updates: 0 };
    };
    const warm = await load(8, 2_000, sendFeedback);
    offset += warm.requests;
    await load(8, 1_000, sendAuth);
    await load(8, 1_000, sendFloor);
    offset += BATCH_SIZE * (await load(8, 1_000, sendBatch)).requests;
    const object = await tenantObject(service, setup.tenantId);
    for (const concurrency of CONCURRENCY) {
      // The four paths alternate in short slices, in a fresh order each round, so that the
      // machine's drift (other work on the 2 cores) falls on all of them alike.
      const phases = { feedback: emptyPhase(), batched: emptyPhase(), floor: emptyPhase(), floorSameBytes: emptyPhase(), auth: emptyPhase() };
      let rows = 0;
      let flushes = 0;
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const kind of shuffle(["feedback", "batched", "floor", "floorSameBytes", "auth"] as const, order)) {
          const sliceMs = durationMs / ROUNDS;
          if (kind === "feedback") {
            const writesBefore = await object.routingScoreWrites();
            const slice = await load(concurrency, sliceMs, sendFeedback);
            const writesAfter = await object.routingScoreWrites();
            rows += writesAfter.rows - writesBefore.rows;
            flushes += writesAfter.flushes - writesBefore.flushes;
            offset += slice.requests;
            addPhase(phases.feedback, slice);
          } else if (kind === "batched") {
            const slice = await load(concurrency, sliceMs, sendBatch);
            offset += BATCH_SIZE * slice.requests;
            addPhase(phases.batched, slice);
          } else {
            addPhase(phases[kind], await load(concurrency, sliceMs, kind === "floor" ? sendFloor : kind === "floorSameBytes" ? sendFloorSameBytes : sendAuth));
          }
        }
      }
      http.push({ concurrency, ...phases, scoreWrites: { rows, flushes } });
    }
    const snapshot = await service.json<{ nodes: { tool: string; score: number }[] }>("GET", "/v1/graph", { key: setup.key });
    if (snapshot.status !== 200) throw new Error(`GET /v1/graph: ${snapshot.status}`);
    exported = snapshot.body;
  } finally {
    await service.dispose();
  }

  // Same evaluations, pure function, same-sized graph: in-process updates per second.
  const graph = createGraph();
  addTools(graph, names);
  addTrajectories(graph, trajectories, { unknownTools: "skip" });
  for (let i = 0; i < 20_000; i += 1) applyFeedback(graph, evaluationAt(i)); // warm-up (JIT)
  const pure = { requests: 0, scoreUpdates: 0, elapsedMs: 0 };
  const t0 = performance.now();
  while (performance.now() - t0 < 2_000 && pure.requests < 50_000_000) {
    for (let j = 0; j < 1_000; j += 1) {
      pure.scoreUpdates += applyFeedback(graph, evaluationAt(pure.requests)).updated.length;
      pure.requests += 1;
    }
  }
  pure.elapsedMs = performance.now() - t0;

  let mismatched = 0;
  let maxDiff = 0;
  for (const node of exported?.nodes ?? []) {
    const expected = replay.tools.get(node.tool)?.score ?? Number.NaN;
    const diff = Math.abs(expected - node.score);
    maxDiff = Math.max(maxDiff, diff);
    if (!(diff < 1e-6)) mismatched += 1;
  }
  const accepted = http.reduce((sum, h) => sum + h.feedback.requests - h.feedback.errors + h.batched.scoreUpdates, 0);
  console.log(
    `consistency: ${exported?.nodes.length ?? 0} tool scores after ${int(accepted)}+ accepted updates (all phases and warm-up): ${mismatched} differ from the local replay (max |diff| ${maxDiff.toExponential(1)})`,
  );

  const perSecond = (count: number, elapsedMs: number): string => int((1000 * count) / elapsedMs);
  const rows: string[][] = [];
  const cpu = (phase: Phase, of: "nodeCpuMs" | "workerdCpuMs"): string => `${(phase[of] / Math.max(1, phase.requests)).toFixed(2)} ms`;
  const row = (path: string, concurrency: number, phase: Phase, updates: number, scores: string): string[] => {
    const latency = summary(phase.latencies);
    return [
      path,
      String(concurrency),
      perSecond(updates, phase.elapsedMs),
      scores,
      ms(latency.p50),
      ms(latency.p99),
      cpu(phase, "workerdCpuMs"),
      cpu(phase, "nodeCpuMs"),
      String(phase.errors),
      `${int(phase.requests)} in ${seconds(phase.elapsedMs)}`,
    ];
  };
  for (const { concurrency, feedback, batched, floor, floorSameBytes, auth } of http) {
    rows.push(row("HTTP POST /v1/feedback", concurrency, feedback, feedback.requests - feedback.errors, perSecond(feedback.scoreUpdates, feedback.elapsedMs)));
    rows.push(row(`HTTP POST /v1/feedback/batch (${BATCH_SIZE}/request)`, concurrency, batched, batched.scoreUpdates, "—"));
    rows.push(row("one-RPC floor (HTTP, 1 RPC, +1 in SQLite)", concurrency, floor, floor.requests - floor.errors, "—"));
    rows.push(row("  the same, sent a single update's bytes", concurrency, floorSameBytes, floorSameBytes.requests - floorSameBytes.errors, "—"));
    rows.push(row("HTTP GET /v1/tenant", concurrency, auth, auth.requests - auth.errors, "—"));
  }
  const pureMicros = (1000 * pure.elapsedMs) / pure.requests;
  rows.push([
    "pure applyFeedback",
    "1",
    perSecond(pure.requests, pure.elapsedMs),
    perSecond(pure.scoreUpdates, pure.elapsedMs),
    `${pureMicros.toFixed(2)} µs mean`,
    "",
    "—",
    `${pureMicros.toFixed(2)} µs`,
    "0",
    `${int(pure.requests)} in ${seconds(pure.elapsedMs)}`,
  ]);
  console.log(
    `\nThroughput (an update = one evaluated trajectory; a score = one tool's s_i changed; CPU = CPU time per request of workerd and of this Node process, from /proc and process.cpuUsage)`,
  );
  console.log(table(["path", "in flight", "updates/s", "scores/s", "p50", "p99", "workerd CPU", "Node CPU", "errors", "requests"], rows));
  console.log("\nAgainst the one-RPC floor at the same concurrency (targets: batched ≥ 2,000 updates/s; single within 1.3× the floor):");
  for (const { concurrency, feedback, batched, floor, floorSameBytes } of http) {
    const floorRate = (1000 * (floor.requests - floor.errors)) / floor.elapsedMs;
    const sameBytesRate = (1000 * (floorSameBytes.requests - floorSameBytes.errors)) / floorSameBytes.elapsedMs;
    const singleRate = (1000 * (feedback.requests - feedback.errors)) / feedback.elapsedMs;
    const batchedRate = (1000 * batched.scoreUpdates) / batched.elapsedMs;
    console.log(
      `  ${String(concurrency).padStart(2)} in flight: floor ${int(floorRate)}/s; single ${int(singleRate)}/s (floor/single ${(floorRate / singleRate).toFixed(2)}; floor sent the same bytes ${int(sameBytesRate)}/s, ÷ single ${(sameBytesRate / singleRate).toFixed(2)}); batched ${int(batchedRate)} updates/s (${(batchedRate / floorRate).toFixed(1)}× the floor)`,
    );
  }
  console.log("\nSingle updates as written (coalesced: updates that reach the object together share one transaction and write each re-scored tool once):");
  for (const { concurrency, feedback, scoreWrites } of http) {
    const updates = feedback.requests - feedback.errors;
    console.log(
      `  ${String(concurrency).padStart(2)} in flight: ${int(updates)} updates in ${int(scoreWrites.flushes)} transactions (${(updates / Math.max(1, scoreWrites.flushes)).toFixed(1)} per transaction); ` +
        `${int(scoreWrites.rows)} rows for ${int(feedback.scoreUpdates)} tool scores changed (${(scoreWrites.rows / Math.max(1, feedback.scoreUpdates)).toFixed(2)} rows per score)`,
    );
  }
  const best = Math.max(...http.map((h) => (1000 * (h.feedback.requests - h.feedback.errors)) / h.feedback.elapsedMs));
  const bestAuth = Math.max(...http.map((h) => (1000 * (h.auth.requests - h.auth.errors)) / h.auth.elapsedMs));
  console.log(
    `\nbest HTTP feedback ${int(best)}/s = ${((100 * best) / bestAuth).toFixed(0)} % of the best GET /v1/tenant rate (${int(bestAuth)}/s); pure applyFeedback is ${int((1000 * pure.requests) / pure.elapsedMs / best)}× the best HTTP rate`,
  );
  console.log(`\n${machineLine()}\ndone in ${seconds(performance.now() - started)}`);
}

await main();
