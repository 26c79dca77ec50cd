/**
 * Route latency in workerd, through HTTP, at 100, 1,000 and 10,000 tools (or --sizes, up to 20,000: the tenant limit).
 *
 *   node bench/run.mjs route-latency [--skip-build] [--sizes=100,1000,10000] [--rounds=300]
 *
 * The service runs exactly as the integration tests run it: wrangler bundles (test/helpers/
 * global-setup.ts; --skip-build reuses .test-build/ when present) in Miniflare with SQLite Durable
 * Objects (test/helpers/service.ts). For each size, a fresh tenant gets that many tools through
 * `POST /v1/tools/import` (format "list"; StableToolBench's 2,479 operations, then renamed
 * copies) and ≈ 10 observed successors per tool through `POST /v1/graph/trajectories` (the
 * completed gpt-3.5 runs of StableToolBench plus seeded random walks; see lib/tool-corpus.ts).
 *
 * Then, sequentially (one request in flight), timed on the Node side with performance.now()
 * around Miniflare's dispatchFetch (request out with its Content-Length, as clients send JSON,
 * lib/sized-request.ts; whole body read as text; every kind alike):
 *   graph      POST /v1/route with previousTool = a random registered tool, mode "graph" (eq. 4 successors)
 *   fused      the same in the default mode (learned successors, task relevance, data flow fused), for a
 *              task the tenant did not route recently (each query once per cycle of them all: lib/tool-corpus.ts taskCycle)
 *   fused, same chat  the same for the task of the last first step, as a chat's later steps route
 *              the task of its first step (the object remembers recent tasks' rankings: relevance-memo.ts)
 *   retrieval  POST /v1/route without previousTool (BM25 over tool documents), a task as "fused" gets
 *   auth only  GET /v1/tenant: the fixed cost of the HTTP path, auth and one Durable Object RPC
 *   floor      an empty POST to the one-RPC floor (lib/rpc-floor.ts, a Worker in the same workerd:
 *              one Durable Object RPC adding 1 to a SQLite row), short answer
 *   floor, route's bytes  the floor sent exactly what a retrieval step sends (key header, JSON
 *              body) and answering as many bytes as the last retrieval answer: what carrying a
 *              route's request and answer costs before any work
 *   floor, fused bytes  the same for a fused later step: its request body, as many bytes as the last fused answer
 * All tenants are set up first; then each round sends every (size, request) pair once, in a
 * fresh random order, so drift in machine load and workerd's JIT warming up hit every size and
 * kind alike; compare them within one run. 100 warm-up rounds are not counted.
 *
 * Cold start: `simulateEviction()` (RPC on the tenant object) drops the in-memory state; the
 * next route request loads what it needs: the stored graph edges (routing-snapshots.ts), the stored
 * index and task memory only for a step that uses them (a retrieval step; not a graph step), and
 * the definitions it shows (the most recently used kept; same-API siblings are read by SQLite, and
 * data flow's stored table parses none). After
 * `simulateEviction({ olderFormats: true })` they are rebuilt from the rows (as after a format
 * change; a graph step rebuilds the graph only). Timed 5 times per size for a graph step, a retrieval step (first step) and a
 * fused later step (which reads the stored data-flow links, data-flow-links.ts), with
 * the request right after it for comparison. (A real eviction also re-runs the object's
 * constructor; that part is not included.) To see what the HTTP path adds, the route work itself
 * (successors or BM25 search, prompt block, tools entries) is timed in this Node process on the
 * same data with the same pure functions, and the search alone at the object's depth (30) with
 * the impact index and with MiniSearch (the scoring reference it replaced), same queries. The
 * load steps (parse definitions, decode the stored graph, load the stored index) and the heap
 * they occupy (after a forced collection; typed arrays counted as array buffers) are measured in
 * this Node process with the same functions and data, and so are the parts a later step reads
 * precomputed: the data-flow links (computed once per catalog change, stored) and the prior's
 * positions (once per graph version).
 *
 * Its parts are in bench/lib/route-latency/: options, tenants (set-up and one timed request),
 * measure (the rounds and cold starts), in-process (the route work in Node), load-parts, report.
 */
import { startBenchService } from "./lib/bench-service";
import { rpcFloorWorker } from "./lib/rpc-floor";
import { readData } from "./lib/tool-corpus";
import { machineLine, seconds } from "./lib/stats";
import { KINDS, option, WARMUP_ROUNDS } from "./lib/route-latency/options";
import { setUpSize, type Tenant } from "./lib/route-latency/tenants";
import { measure, type SizeResult } from "./lib/route-latency/measure";
import {
  printColdStart,
  printFused,
  printFloor,
  printInProcess,
  printLaterStep,
  printLatency,
  printLoadSteps,
  printRatios,
  printSetup,
} from "./lib/route-latency/report";

async function main(): Promise<void> {
  const started = performance.now();
  const sizes = option("sizes", "100,1000,10000").split(",").map(Number);
  const rounds = Number(option("rounds", "300"));
  if (sizes.some((s) => !Number.isInteger(s) || s < 2 || s > 50_000) || !Number.isInteger(rounds) || rounds < 1 || rounds > 5_000) {
    throw new Error("--sizes: integers in 2..50000; --rounds: 1..5000");
  }
  console.log(`Route latency through HTTP in workerd (Miniflare) — ${machineLine()}`);
  const queries = (readData("stabletoolbench/retrieval_queries.json") as { query: string }[]).map((q) => q.query);
  const { service, buildMs, startMs } = await startBenchService({ extraWorkers: [rpcFloorWorker()] });
  console.log(`wrangler bundles ${buildMs === 0 ? "reused (--skip-build)" : seconds(buildMs)}, Miniflare start ${seconds(startMs)}`);
  let results: SizeResult[];
  try {
    const tenants: Tenant[] = [];
    for (const size of sizes) tenants.push(await setUpSize(service, size, queries));
    console.log(
      `measuring: ${WARMUP_ROUNDS} warm-up rounds, then ${rounds} rounds of ${tenants.length * KINDS.length} requests (every size × request kind, shuffled)…`,
    );
    results = await measure(service, tenants, rounds, queries);
  } finally {
    await service.dispose();
  }

  printSetup(results);
  printLatency(results, rounds);
  printInProcess(results, rounds);
  printRatios(results);
  printFloor(results);
  printFused(results);
  printColdStart(results);
  printLoadSteps(results);
  printLaterStep(results);
  console.log(`\n${machineLine()}`);
  console.log(`done in ${seconds(performance.now() - started)}`);
}

await main();
