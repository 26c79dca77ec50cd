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
 */
import { addTools, addTrajectories, createGraph, END, formatPromptBlock, START, successors, type ToolGraph, type Trajectory } from "../functions/toolnet/graph";
import { openAiTool } from "../functions/toolnet/openai-tools";
import { decodeGraph, encodeGraph } from "../functions/toolnet/graph/graph-codec";
import { DataFlowIndex } from "../functions/toolnet/data-flow";
import { DataFlowLinks } from "../functions/toolnet/data-flow-links";
import { laterStepPriorRanks } from "../functions/toolnet/later-step-prior";
import { apiSiblings } from "../functions/toolnet/api-siblings";
import { toolDocument, ToolIndex } from "../functions/toolnet/retrieval";
import { toolCosts, viewsFromText } from "../functions/storage/tenant-tool-views";
import { ViewsMemory } from "../functions/storage/views-memory";
import { coverTaskWords, searchCoveringWords } from "../functions/toolnet/retrieval/term-coverage";
import { buildEngine, DEFAULT_TUNING, engineSearch, toSearchOptions } from "../functions/toolnet/retrieval/minisearch-engine";
import { importToolList } from "../functions/tools/list-import";
import type { ToolDefinition } from "../functions/tools/definition";
import type { TestService } from "../test/helpers/service";
import { setUpTenant, startBenchService, tenantObject } from "./lib/bench-service";
import { FLOOR_ORIGIN, rpcFloorWorker } from "./lib/rpc-floor";
import { withContentLength } from "./lib/sized-request";
import { corpusItems, readData, recordedTrajectories, syntheticWalks, taskCycle, toolItems, type ListItem } from "./lib/tool-corpus";
import { descendantCpuMs, int, machineLine, ms, ownCpuMs, randomInt, seconds, seededRandom, shuffle, summary, table } from "./lib/stats";

const DEGREE = 10;
const WARMUP_ROUNDS = 100;
const EVICTIONS = 5;

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Observed tool → tool edges (self-loops excluded) of the graph the tenant should now hold. */
function edgeCount(names: readonly string[], trajectories: readonly Trajectory[]): { edges: number; transitions: number } {
  const graph = createGraph();
  addTools(graph, names);
  const result = addTrajectories(graph, trajectories, { unknownTools: "skip" });
  let edges = 0;
  for (const [from, node] of graph.tools) {
    for (const [to, edge] of node.out) if (to !== from && to !== END && edge.count > 0) edges += 1;
  }
  return { edges, transitions: result.transitions };
}

type Kind = "graph" | "fused" | "fused, same chat" | "retrieval" | "auth only" | "floor" | "floor, route's bytes" | "floor, fused bytes";

/** The object's load steps (tenant-routing.ts #load) timed in Node, median of 3, in ms; heap in MB. */
interface ReloadParts {
  parseDefinitions: number;
  decodeGraph: number;
  loadIndex: number;
  /** Rebuilding instead (one run each): graph from trajectories, index from tool documents. */
  rebuildGraph: number;
  rebuildIndex: number;
  indexBytes: number;
  graphBytes: number;
  heap: { definitions: number; graph: number; index: number };
  /** What a later step reads precomputed: data-flow links (computed once per catalog, stored) and the prior's positions. */
  laterStep: {
    links: number;
    computeLinks: number;
    loadLinks: number;
    linksBytes: number;
    linksHeap: number;
    priorRanks: number;
    priorHeap: number;
    /** The tool views memory of a tenant object holding every tool's views: tools, characters counted, heap. */
    views: number;
    viewsChars: number;
    viewsHeap: number;
  };
}

/** Search alone at the object's relevance depth: impact index vs MiniSearch, same queries, ms. */
interface SearchTimes {
  impact: number[];
  covering: number[];
  minisearch: number[];
  /** searchCoveringWords without API evidence, and with it (the APIs of apiSiblings). */
  routing: number[];
  withApis: number[];
}

/**
 * The work of one route call inside the object (tenant-routing.ts `route`, after #load), redone
 * here with the same pure functions: successors or BM25 search, the prompt block, the OpenAI
 * tools entries. No HTTP, no RPC, no serialisation. Returns per-call times in ms.
 */
function inProcessRoute(
  items: readonly ListItem[],
  trajectories: readonly Trajectory[],
  queries: readonly string[],
  calls: number,
): { graph: number[]; retrieval: number[]; search: SearchTimes } {
  const { tools: defs } = importToolList(items);
  const byName = new Map(defs.map((d) => [d.name, d]));
  const graph = createGraph();
  addTools(
    graph,
    defs.map((d) => d.name),
  );
  addTrajectories(graph, trajectories, { unknownTools: "skip" });
  const docs = defs.map((def) => toolDocument(def));
  const index = ToolIndex.build(docs);
  const describe = (tool: string): string => (byName.get(tool)?.summary ?? byName.get(tool)?.description ?? "").replace(/\s+/g, " ").trim().slice(0, 160);
  const random = seededRandom(calls);
  const one = (previous: string | null, task: string): number => {
    const t = performance.now();
    let ranked: { tool: string; weight: number }[];
    if (previous === null) {
      const hits = index.search(task, 8);
      const top = hits[0]?.score ?? 1;
      ranked = hits.map((hit) => ({ tool: hit.name, weight: Math.round((hit.score / top) * 1000) }));
    } else {
      ranked = successors(graph, previous, 8, { includeEnd: true });
    }
    const prompt = formatPromptBlock({ previous: previous ?? START, candidates: ranked.map((r) => ({ ...r, exact: r.weight / 1000 })), describe });
    const tools = ranked.flatMap((r) => {
      const def = r.tool === END ? undefined : byName.get(r.tool);
      return def === undefined ? [] : [openAiTool(def)];
    });
    if (prompt.length === 0 || tools.length > 8) throw new Error("unexpected route result");
    return performance.now() - t;
  };
  const out = {
    graph: [] as number[],
    retrieval: [] as number[],
    search: { impact: [] as number[], covering: [] as number[], minisearch: [] as number[], routing: [] as number[], withApis: [] as number[] },
  };
  const siblings = apiSiblings(defs);
  const siblingsOf = (tool: string) => siblings.get(tool) ?? [];
  for (let i = 0; i < 100 + calls; i += 1) {
    const task = queries[randomInt(random, queries.length)] ?? "";
    const g = one(defs[randomInt(random, defs.length)]?.name ?? null, task);
    const r = one(null, task);
    if (i >= 100) {
      out.graph.push(g);
      out.retrieval.push(r);
    }
  }
  // The search alone at the object's depth, against MiniSearch (same scores) on the same queries.
  const engine = buildEngine(docs);
  const options = toSearchOptions(DEFAULT_TUNING);
  for (let i = 0; i < 50 + calls; i += 1) {
    const task = queries[randomInt(random, queries.length)] ?? "";
    // CPU time: on a shared machine, wall-clock p99 is mostly waiting for a core.
    let t = ownCpuMs();
    index.search(task, SEARCH_DEPTH);
    const impact = ownCpuMs() - t;
    // What routing adds to the search: its best re-ranked to cover the task's words (term-coverage.ts).
    const matching = index.searchMatching(task, SEARCH_DEPTH);
    t = ownCpuMs();
    coverTaskWords(matching.ranked, matching.impacts);
    const covering = ownCpuMs() - t;
    t = ownCpuMs();
    engineSearch(engine, task, SEARCH_DEPTH, options);
    const minisearch = ownCpuMs() - t;
    // Routing's whole lexical search (search and coverage), and with API evidence (api-evidence.ts: a deeper search, then the APIs' backing).
    t = ownCpuMs();
    searchCoveringWords(index, task, SEARCH_DEPTH);
    const routing = ownCpuMs() - t;
    t = ownCpuMs();
    searchCoveringWords(index, task, SEARCH_DEPTH, { siblingsOf });
    const withApis = ownCpuMs() - t;
    if (i >= 50) {
      out.search.impact.push(impact);
      out.search.covering.push(covering);
      out.search.minisearch.push(minisearch);
      out.search.routing.push(routing);
      out.search.withApis.push(withApis);
    }
  }
  return out;
}

/** The object's relevance depth (tenant-routing.ts RELEVANCE_DEPTH). */
const SEARCH_DEPTH = 30;

function heapMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.arrayBuffers) / 1e6;
}

function reloadParts(items: readonly ListItem[], trajectories: readonly Trajectory[]): ReloadParts {
  const { tools: defs } = importToolList(items);
  const definitionRows = defs.map((d) => JSON.stringify(d));
  let t = ownCpuMs();
  const built = createGraph();
  addTools(
    built,
    defs.map((d) => d.name),
  );
  addTrajectories(built, trajectories, { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER });
  const rebuildGraph = ownCpuMs() - t;
  t = ownCpuMs();
  const index = ToolIndex.build(defs.map((def) => toolDocument(def)));
  index.search("warm up", 1); // merges and computes impacts
  const rebuildIndex = ownCpuMs() - t;
  const graphBytes = encodeGraph(built);
  const indexBytes = index.toBytes();
  const runs: { parseDefinitions: number; decodeGraph: number; loadIndex: number }[] = [];
  // CPU time of this process, not wall time: the machine is shared, and a step that waits for a
  // core would look slower than it is.
  for (let i = 0; i < 3; i += 1) {
    let t0 = ownCpuMs();
    const parsed = new Map(definitionRows.map((row) => JSON.parse(row) as (typeof defs)[number]).map((d) => [d.name, d]));
    const parseDefinitions = ownCpuMs() - t0;
    // From copies of the stored bytes, as the object reads them from SQLite rows.
    t0 = ownCpuMs();
    const graph = decodeGraph(graphBytes.slice());
    const decodeMs = ownCpuMs() - t0;
    t0 = ownCpuMs();
    const loaded = ToolIndex.fromBytes(indexBytes.slice());
    loaded.search("warm up", 1);
    const loadMs = ownCpuMs() - t0;
    if (parsed.size !== defs.length || graph === undefined || loaded.size !== defs.length) throw new Error("load parts: wrong sizes");
    runs.push({ parseDefinitions, decodeGraph: decodeMs, loadIndex: loadMs });
  }
  // Heap after load: each part kept alive while the next is measured.
  const heap = { definitions: 0, graph: 0, index: 0 };
  const kept: unknown[] = [];
  let before = heapMb();
  kept.push(new Map(definitionRows.map((row) => JSON.parse(row) as (typeof defs)[number]).map((d) => [d.name, d])));
  let after = heapMb();
  heap.definitions = after - before;
  before = after;
  kept.push(decodeGraph(graphBytes.slice()));
  after = heapMb();
  heap.graph = after - before;
  before = after;
  const loadedIndex = ToolIndex.fromBytes(indexBytes.slice());
  loadedIndex.search("warm up", 1);
  kept.push(loadedIndex);
  after = heapMb();
  heap.index = after - before;
  if (kept.length !== 3) throw new Error("unreachable");
  const median = (pick: (r: (typeof runs)[number]) => number): number => summary(runs.map(pick)).p50;
  const laterStep = laterStepParts(defs, built);
  return {
    laterStep,
    parseDefinitions: median((r) => r.parseDefinitions),
    decodeGraph: median((r) => r.decodeGraph),
    loadIndex: median((r) => r.loadIndex),
    rebuildGraph,
    rebuildIndex,
    indexBytes: indexBytes.byteLength,
    graphBytes: graphBytes.byteLength,
    heap,
  };
}

/** The data-flow links (compute, stored bytes, load, heap) and the prior's positions (heap) for one catalog and graph. */
function laterStepParts(defs: readonly ToolDefinition[], graph: ToolGraph): ReloadParts["laterStep"] {
  const byName = new Map(defs.map((d) => [d.name, d]));
  let t = ownCpuMs();
  const links = DataFlowLinks.compute(new DataFlowIndex(byName), byName.keys());
  const computeLinks = ownCpuMs() - t;
  if (links === undefined) throw new Error("data-flow links: more than the table holds");
  const bytes = links.toBytes();
  t = ownCpuMs();
  const loaded = DataFlowLinks.fromBytes(bytes.slice());
  const loadLinks = ownCpuMs() - t;
  if (loaded === undefined || loaded.linkCount !== links.linkCount) throw new Error("data-flow links: not read back");
  const kept: unknown[] = [];
  let before = heapMb();
  kept.push(DataFlowLinks.fromBytes(bytes.slice()));
  const linksHeap = heapMb() - before;
  before = heapMb();
  const ranks = laterStepPriorRanks(graph);
  kept.push(ranks);
  const priorHeap = heapMb() - before;
  // The tool views a tenant object holds (views-memory.ts), as read back from their stored text.
  const stored = defs.map((d) => {
    const v = toolCosts(d);
    return [
      d.name,
      v.compactJson ?? JSON.stringify(v.compact),
      v.compactTokens,
      v.requiredOnlyJson ?? JSON.stringify(v.requiredOnly),
      v.requiredOnlyTokens,
      v.runTokens,
      v.line,
    ] as const;
  });
  before = heapMb();
  const memory = new ViewsMemory();
  for (const [name, compact, compactTokens, requiredOnly, requiredOnlyTokens, runTokens, line] of stored) {
    memory.set(name, { description: null, views: viewsFromText(compact, compactTokens, requiredOnly, requiredOnlyTokens, runTokens, line) });
  }
  stored.length = 0;
  const viewsHeap = heapMb() - before;
  kept.push(memory);
  return {
    links: links.linkCount,
    computeLinks,
    loadLinks,
    linksBytes: bytes.byteLength,
    linksHeap,
    priorRanks: ranks.size,
    priorHeap,
    views: memory.size,
    viewsChars: memory.chars,
    viewsHeap,
  };
}

interface Tenant {
  size: number;
  items: ListItem[];
  trajectoryList: Trajectory[];
  names: string[];
  edges: number;
  trajectories: number;
  setup: Awaited<ReturnType<typeof setUpTenant>>;
  headers: Record<string, string>;
  /** Length of the last retrieval answer, which the floor sent the route's bytes answers with. */
  lastRouteAnswerBytes: number;
  /** The same for the last fused later step. */
  lastFusedAnswerBytes: number;
  /** The task of the last first (retrieval) step: a chat's later steps route the task of its first step. */
  lastFirstStepTask: string | undefined;
  /** Tasks this tenant never routed recently (its object's memo of task rankings let them go), for first and fused steps. */
  freshTask: () => string;
}

interface SizeResult {
  tools: number;
  edges: number;
  trajectories: number;
  setup: Awaited<ReturnType<typeof setUpTenant>>;
  latencies: Map<Kind, number[]>;
  bytes: Map<Kind, number>;
  reload: {
    graph: number[];
    retrieval: number[];
    fused: number[];
    next: number[];
    rebuilt: number;
    reports: string[];
    graphStepLoads: string;
    cpu: { graph: number[]; retrieval: number[]; fused: number[]; rebuilt: number };
    fusedReports: string[];
  };
  parts: ReloadParts;
  /** The object's tool views in memory after the timed rounds (read in the background after an answer's first read). */
  viewsMemory: { remembered: number; chars: number; complete: boolean };
  inProcess: { graph: number[]; retrieval: number[]; search: SearchTimes };
}

const KINDS: readonly Kind[] = ["graph", "fused", "fused, same chat", "retrieval", "auth only", "floor", "floor, route's bytes", "floor, fused bytes"];

/** One request timed from sending it to having read its whole answer, as a client does (no copy of the response). */
async function timed(service: TestService, url: string, init: RequestInit): Promise<{ ms: number; status: number; text: string }> {
  const t0 = performance.now();
  const response = await service.mf.dispatchFetch(url, withContentLength(init) as never);
  const text = await response.text();
  return { ms: performance.now() - t0, status: response.status, text };
}

const SERVICE_ORIGIN = "http://atc.test";

async function setUpSize(service: TestService, size: number, queries: readonly string[]): Promise<Tenant> {
  const items = toolItems(size, corpusItems());
  const names = items.map((i) => i.name);
  const trajectories = [...recordedTrajectories(new Set(names)), ...syntheticWalks(names, DEGREE, size)];
  const expected = edgeCount(names, trajectories);
  console.log(
    `[${size} tools] ${int(trajectories.length)} trajectories, ${int(expected.transitions)} counted transitions, ${int(expected.edges)} observed tool→tool edges (${(expected.edges / size).toFixed(1)} per tool); importing…`,
  );
  const setup = await setUpTenant(service, `bench-${size}`, items, trajectories);
  if (setup.transitions !== expected.transitions) throw new Error(`service counted ${setup.transitions} transitions, expected ${expected.transitions}`);
  console.log(
    `[${size} tools] tools ${seconds(setup.toolImportMs)} (${setup.toolBatches} requests), trajectories ${seconds(setup.trajectoryImportMs)} (${setup.trajectoryBatches} requests)`,
  );
  const headers = { authorization: `Bearer ${setup.key}`, "content-type": "application/json" };
  return {
    size,
    items,
    trajectoryList: trajectories,
    names,
    edges: expected.edges,
    trajectories: trajectories.length,
    setup,
    headers,
    lastRouteAnswerBytes: 4_000,
    lastFusedAnswerBytes: 4_000,
    lastFirstStepTask: undefined,
    freshTask: taskCycle(queries, seededRandom(size)),
  };
}

/** One request of `kind` to `tenant`'s service, timed; anything but the expected answer throws. */
async function request(
  service: TestService,
  tenant: Tenant,
  kind: Kind,
  random: () => number,
  queries: readonly string[],
): Promise<{ ms: number; bytes: number }> {
  let result: Awaited<ReturnType<typeof timed>>;
  // First and fused steps route a task not routed recently; a later step of a chat routes the task
  // of its first step (here the last first step's), after a random tool as "fused" does.
  const task =
    kind === "retrieval" || kind === "fused"
      ? tenant.freshTask()
      : kind === "fused, same chat"
        ? (tenant.lastFirstStepTask ?? tenant.freshTask())
        : (queries[randomInt(random, queries.length)] ?? "weather");
  if (kind === "auth only") {
    result = await timed(service, `${SERVICE_ORIGIN}/v1/tenant`, { headers: { authorization: tenant.headers.authorization ?? "" } });
  } else if (kind === "floor") {
    result = await timed(service, `${FLOOR_ORIGIN}/`, { method: "POST" });
  } else if (kind === "floor, route's bytes") {
    const headers = { ...tenant.headers, "x-floor-answer-bytes": String(tenant.lastRouteAnswerBytes) };
    result = await timed(service, `${FLOOR_ORIGIN}/`, { method: "POST", headers, body: JSON.stringify({ task, k: 8 }) });
  } else if (kind === "floor, fused bytes") {
    const headers = { ...tenant.headers, "x-floor-answer-bytes": String(tenant.lastFusedAnswerBytes) };
    const previousTool = tenant.names[randomInt(random, tenant.names.length)];
    result = await timed(service, `${FLOOR_ORIGIN}/`, { method: "POST", headers, body: JSON.stringify({ task, previousTool, k: 8 }) });
  } else {
    // graph: the paper's eq. 4 alone (today's later step); fused: learned transitions, task relevance and data flow.
    const previousTool = tenant.names[randomInt(random, tenant.names.length)];
    const body = kind === "graph" ? { task, previousTool, k: 8, mode: "graph" } : kind === "retrieval" ? { task, k: 8 } : { task, previousTool, k: 8 };
    result = await timed(service, `${SERVICE_ORIGIN}/v1/route`, { method: "POST", headers: tenant.headers, body: JSON.stringify(body) });
  }
  if (result.status !== 200) throw new Error(`${kind}: HTTP ${result.status} ${result.text.slice(0, 300)}`);
  if (kind === "graph" || kind === "fused" || kind === "fused, same chat" || kind === "retrieval") {
    const via = (JSON.parse(result.text) as { via?: string }).via;
    if (via !== (kind === "fused, same chat" ? "fused" : kind)) throw new Error(`${kind}: answered via ${String(via)}`);
  }
  const bytes = Buffer.byteLength(result.text);
  if (kind === "retrieval") {
    tenant.lastRouteAnswerBytes = bytes;
    tenant.lastFirstStepTask = task;
  }
  if (kind === "fused") tenant.lastFusedAnswerBytes = bytes;
  return { ms: result.ms, bytes };
}

/**
 * Every (size, kind) pair once per round, in a fresh random order each round, so that load drift
 * and workerd's JIT warming up affect all sizes alike.
 */
async function measure(service: TestService, tenants: readonly Tenant[], rounds: number, queries: readonly string[]): Promise<SizeResult[]> {
  const random = seededRandom(20240601);
  const pairs = tenants.flatMap((tenant) => KINDS.map((kind) => ({ tenant, kind })));
  for (let i = 0; i < WARMUP_ROUNDS; i += 1) {
    for (const { tenant, kind } of shuffle([...pairs], random)) await request(service, tenant, kind, random, queries);
  }
  const latencies = new Map(tenants.map((t) => [t, new Map<Kind, number[]>(KINDS.map((k) => [k, []]))]));
  const bytes = new Map(tenants.map((t) => [t, new Map<Kind, number>(KINDS.map((k) => [k, 0]))]));
  for (let i = 0; i < rounds; i += 1) {
    for (const { tenant, kind } of shuffle([...pairs], random)) {
      const r = await request(service, tenant, kind, random, queries);
      latencies.get(tenant)?.get(kind)?.push(r.ms);
      const b = bytes.get(tenant);
      b?.set(kind, (b.get(kind) ?? 0) + r.bytes);
    }
  }
  // Read right after the timed rounds: an object left idle while other tenants are measured may be evicted.
  const warmth = new Map<Tenant, SizeResult["viewsMemory"]>();
  for (const tenant of tenants) {
    const { remembered, chars, complete } = await (await tenantObject(service, tenant.setup.tenantId)).toolViewsWarmth();
    warmth.set(tenant, { remembered, chars, complete });
  }
  const results: SizeResult[] = [];
  for (const tenant of tenants) {
    const object = await tenantObject(service, tenant.setup.tenantId);
    const reload = {
      graph: [] as number[],
      retrieval: [] as number[],
      fused: [] as number[],
      next: [] as number[],
      rebuilt: 0,
      reports: [] as string[],
      graphStepLoads: "",
      cpu: { graph: [] as number[], retrieval: [] as number[], fused: [] as number[], rebuilt: 0 },
      fusedReports: [] as string[],
    };
    const viewsMemory = warmth.get(tenant) ?? { remembered: 0, chars: 0, complete: false };
    const fusedReports = new Set<string>();
    const reports = new Set<string>();
    // workerd's CPU time for the request (10 ms ticks), beside the wall time, which waits for a core.
    const cold = async (kind: Kind): Promise<{ ms: number; cpu: number }> => {
      const cpu = descendantCpuMs();
      const r = await request(service, tenant, kind, random, queries);
      return { ms: r.ms, cpu: descendantCpuMs() - cpu };
    };
    for (let i = 0; i < EVICTIONS; i += 1) {
      await object.simulateEviction();
      const graphStep = await cold("graph");
      reload.graph.push(graphStep.ms);
      reload.cpu.graph.push(graphStep.cpu);
      // What the graph step loaded (the index and task memory wait for a step that needs them).
      const parts = await object.routingLoadedParts();
      reload.graphStepLoads = `graph${parts.index ? ", index" : ""}${parts.memory ? ", task memory" : ""}, ${parts.definitions} definitions`;
      reports.add(JSON.stringify(await object.routingLoadReport()));
      reload.next.push((await request(service, tenant, "graph", random, queries)).ms);
      await object.simulateEviction();
      const retrievalStep = await cold("retrieval");
      reload.retrieval.push(retrievalStep.ms);
      reload.cpu.retrieval.push(retrievalStep.cpu);
      // A later step after an eviction: the stored data-flow links are read back, not recomputed.
      await object.simulateEviction();
      const fusedStep = await cold("fused");
      reload.fused.push(fusedStep.ms);
      reload.cpu.fused.push(fusedStep.cpu);
      fusedReports.add((await object.routingLoadReport()).dataFlow);
    }
    reload.fusedReports = [...fusedReports];
    // As after a format change: rebuilt from the rows (and stored again).
    await object.simulateEviction({ olderFormats: true });
    const rebuilt = await cold("graph");
    reload.rebuilt = rebuilt.ms;
    reload.cpu.rebuilt = rebuilt.cpu;
    reload.reports = [...reports];
    results.push({
      tools: tenant.size,
      edges: tenant.edges,
      trajectories: tenant.trajectories,
      setup: tenant.setup,
      latencies: latencies.get(tenant) ?? new Map(),
      bytes: bytes.get(tenant) ?? new Map(),
      reload,
      viewsMemory,
      parts: reloadParts(tenant.items, tenant.trajectoryList),
      inProcess: inProcessRoute(tenant.items, tenant.trajectoryList, queries, rounds),
    });
  }
  return results;
}

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

  console.log(`\nSetup (through the HTTP API)`);
  console.log(
    table(
      ["tools", "edges", "trajectories", "tool import", "requests", "trajectory import", "requests"],
      results.map((r) => [
        int(r.tools),
        int(r.edges),
        int(r.trajectories),
        seconds(r.setup.toolImportMs),
        String(r.setup.toolBatches),
        seconds(r.setup.trajectoryImportMs),
        String(r.setup.trajectoryBatches),
      ]),
    ),
  );

  console.log(`\nLatency, ${rounds} sequential requests each (after ${WARMUP_ROUNDS} warm-up rounds), k = 8; target: graph p99 < 10 ms at 10,000 tools`);
  const rows: string[][] = [];
  for (const r of results) {
    for (const kind of KINDS) {
      const s = summary(r.latencies.get(kind) ?? []);
      rows.push([int(r.tools), kind, ms(s.p50), ms(s.p99), ms(s.max), ms(s.mean), `${int((r.bytes.get(kind) ?? 0) / Math.max(1, s.n))} B`]);
    }
  }
  console.log(table(["tools", "request", "p50", "p99", "max", "mean", "response"], rows));

  console.log(
    `\nThe route work alone, in this Node process (successors or BM25 search + prompt block + tools entries; ${rounds} calls each after 100 warm-up calls; no HTTP, no RPC); search alone at depth ${SEARCH_DEPTH}, CPU time: impact index (term at a time, exact rescoring), the re-ranking that covers the task's words (what routing adds to it), and MiniSearch, same queries; routing's whole lexical search (searchCoveringWords) without and with API evidence`,
  );
  console.log(
    table(
      [
        "tools",
        "graph p50",
        "graph p99",
        "retrieval p50",
        "retrieval p99",
        "search p50",
        "search p99",
        "re-rank p50",
        "re-rank p99",
        "MiniSearch p50",
        "MiniSearch p99",
        "routing search p50",
        "with API evidence p50",
        "p99",
      ],
      results.map((r) => {
        const g = summary(r.inProcess.graph);
        const q = summary(r.inProcess.retrieval);
        const s = summary(r.inProcess.search.impact);
        const c = summary(r.inProcess.search.covering);
        const m = summary(r.inProcess.search.minisearch);
        const plain = summary(r.inProcess.search.routing);
        const apis = summary(r.inProcess.search.withApis);
        return [
          int(r.tools),
          ms(g.p50),
          ms(g.p99),
          ms(q.p50),
          ms(q.p99),
          ms(s.p50),
          ms(s.p99),
          ms(c.p50),
          ms(c.p99),
          ms(m.p50),
          ms(m.p99),
          ms(plain.p50),
          ms(apis.p50),
          ms(apis.p99),
        ];
      }),
    ),
  );

  console.log(`\nRatios within this run (p50 / p50 of "auth only" at the same size; p99 vs smallest size)`);
  const smallest = results[0];
  const p50Of = (res: SizeResult, kind: Kind) => summary(res.latencies.get(kind) ?? []).p50;
  console.log(
    table(
      ["tools", "graph/auth p50", "fused/auth p50", "retrieval/auth p50", "graph p99 ÷ smallest", "retrieval p99 ÷ smallest"],
      results.map((r) => {
        const p = (res: SizeResult, kind: Kind) => summary(res.latencies.get(kind) ?? []);
        const auth = p(r, "auth only").p50;
        return [
          int(r.tools),
          (p(r, "graph").p50 / auth).toFixed(2),
          (p(r, "fused").p50 / auth).toFixed(2),
          (p(r, "retrieval").p50 / auth).toFixed(2),
          smallest === undefined ? "" : (p(r, "graph").p99 / p(smallest, "graph").p99).toFixed(2),
          smallest === undefined ? "" : (p(r, "retrieval").p99 / p(smallest, "retrieval").p99).toFixed(2),
        ];
      }),
    ),
  );
  console.log(
    `\nAgainst the one-RPC floor in the same workerd (p50 ratios): the floor sent a retrieval step's request and answering as many bytes tells the route's work from the cost of carrying its bytes`,
  );
  console.log(
    table(
      ["tools", "auth only ÷ floor", "retrieval ÷ floor", "floor, route's bytes ÷ floor", "retrieval ÷ floor, route's bytes", "graph ÷ floor, route's bytes"],
      results.map((r) => [
        int(r.tools),
        (p50Of(r, "auth only") / p50Of(r, "floor")).toFixed(2),
        (p50Of(r, "retrieval") / p50Of(r, "floor")).toFixed(2),
        (p50Of(r, "floor, route's bytes") / p50Of(r, "floor")).toFixed(2),
        (p50Of(r, "retrieval") / p50Of(r, "floor, route's bytes")).toFixed(2),
        (p50Of(r, "graph") / p50Of(r, "floor, route's bytes")).toFixed(2),
      ]),
    ),
  );

  console.log(
    `\nThe fused later step (after a random tool, never one routed from before in most requests) against the no-op and the floor that carries its bytes: for a task not routed before ("fused"), and for the task of the chat's first step ("fused, same chat": its ranking is remembered)`,
  );
  console.log(
    table(
      ["tools", "request", "p50", "p99", "auth only p50", "÷ auth only", "floor, fused bytes p50", "÷ floor, fused bytes", "answer"],
      results.flatMap((r) =>
        (["fused", "fused, same chat"] as const).map((kind) => {
          const fused = summary(r.latencies.get(kind) ?? []);
          const floor = p50Of(r, "floor, fused bytes");
          return [
            int(r.tools),
            kind,
            ms(fused.p50),
            ms(fused.p99),
            ms(p50Of(r, "auth only")),
            (fused.p50 / p50Of(r, "auth only")).toFixed(2),
            ms(floor),
            (fused.p50 / floor).toFixed(2),
            `${int((r.bytes.get(kind) ?? 0) / Math.max(1, fused.n))} B`,
          ];
        }),
      ),
    ),
  );

  console.log(
    `\nCold start: first request after simulateEviction() (${EVICTIONS} times each; state loaded from the stored index and graph), and once rebuilt from the rows (format change)`,
  );
  console.log(
    table(
      [
        "tools",
        "graph step: median",
        "CPU",
        "loaded by it",
        "retrieval step: median",
        "CPU",
        "next request: median",
        "rebuilt from rows",
        "CPU",
        "fused step: median",
        "CPU",
        "its data flow",
        "load report",
      ],
      results.map((r) => {
        const g = summary(r.reload.graph);
        const q = summary(r.reload.retrieval);
        return [
          int(r.tools),
          ms(g.p50),
          ms(summary(r.reload.cpu.graph).p50),
          r.reload.graphStepLoads,
          ms(q.p50),
          ms(summary(r.reload.cpu.retrieval).p50),
          ms(summary(r.reload.next).p50),
          ms(r.reload.rebuilt),
          ms(r.reload.cpu.rebuilt),
          ms(summary(r.reload.fused).p50),
          ms(summary(r.reload.cpu.fused).p50),
          r.reload.fusedReports.join(", "),
          r.reload.reports.join(" "),
        ];
      }),
    ),
  );
  console.log(
    `\nThe load steps in this Node process (same functions and data; CPU time, median of 3), the rebuild they replace (one run), stored sizes and heap after load`,
  );
  console.log(
    table(
      [
        "tools",
        "parse definitions",
        "decode graph",
        "load index",
        "rebuild graph",
        "rebuild index",
        "stored graph",
        "stored index",
        "heap: definitions",
        "graph",
        "index",
        "sum",
      ],
      results.map((r) => [
        int(r.tools),
        ms(r.parts.parseDefinitions),
        ms(r.parts.decodeGraph),
        ms(r.parts.loadIndex),
        ms(r.parts.rebuildGraph),
        ms(r.parts.rebuildIndex),
        `${(r.parts.graphBytes / 1e6).toFixed(1)} MB`,
        `${(r.parts.indexBytes / 1e6).toFixed(1)} MB`,
        `${r.parts.heap.definitions.toFixed(1)} MB`,
        `${r.parts.heap.graph.toFixed(1)} MB`,
        `${r.parts.heap.index.toFixed(1)} MB`,
        `${(r.parts.heap.definitions + r.parts.heap.graph + r.parts.heap.index).toFixed(1)} MB`,
      ]),
    ),
  );
  console.log(
    `\nWhat a later step reads precomputed, in this Node process: data-flow links (every tool's successors and producers, computed once per catalog change, stored; CPU time) and the prior's positions (once per graph version); heap after a forced collection. Tool views: in the object's memory after the timed rounds (views-memory.ts counts characters of view text, 200 more per tool; read in the background after an answer's first read), and every tool's views held the same way in this process, with their heap`,
  );
  console.log(
    table(
      [
        "tools",
        "links",
        "compute",
        "stored",
        "read back",
        "heap: links",
        "prior positions",
        "heap",
        "views in the object",
        "characters",
        "views here",
        "characters",
        "heap",
      ],
      results.map((r) => {
        const l = r.parts.laterStep;
        return [
          int(r.tools),
          int(l.links),
          ms(l.computeLinks),
          `${int(l.linksBytes)} B`,
          ms(l.loadLinks),
          `${l.linksHeap.toFixed(2)} MB`,
          int(l.priorRanks),
          `${l.priorHeap.toFixed(2)} MB`,
          `${int(r.viewsMemory.remembered)}${r.viewsMemory.complete ? "" : " (reading)"}`,
          `${(r.viewsMemory.chars / 1e6).toFixed(1)} M`,
          int(l.views),
          `${(l.viewsChars / 1e6).toFixed(1)} M`,
          `${l.viewsHeap.toFixed(1)} MB`,
        ];
      }),
    ),
  );
  console.log(`\n${machineLine()}`);
  console.log(`done in ${seconds(performance.now() - started)}`);
}

await main();
