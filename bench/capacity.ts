/**
 * How far one tenant goes: storage, memory and the whole-set token cost at 1,000 and 10,000 tools.
 *
 *   node bench/run.mjs capacity [--skip-build] [--sizes=1000,10000] [--runs=200]
 *
 * Storage: a fresh tenant per size gets that many tools (POST /v1/tools/import, StableToolBench's
 * operations then renamed copies, as route-latency does) and ≈ 10 observed successors per tool
 * (POST /v1/graph/trajectories); the tenant object's SQLite size (`sql.databaseSize`, what the
 * per-object storage limit counts) is read before and after each step. Runs: `--runs` stored ATC
 * runs of the README's two-tool task (a recorded run record: program, trace with the tool
 * responses, usage) are written through the object's own saveRun, then the size is read again.
 * Memory: what the object holds at that size once routing has loaded, made three times in this
 * Node process with the functions the object uses and the heap growth per copy measured (after a
 * forced GC: bench/run.mjs runs node with --expose-gc): the graph decoded from its stored edges
 * and the BM25 impact index read from its stored bytes (as after an eviction), and the
 * definitions it keeps parsed after every tool was asked for once (LazyDefinitions: the most
 * recently used, within MAX_KEPT_DEFINITION_CHARS of JSON; the rest stay rows). Not counted
 * here: the tools' views (read in the background, within VIEWS_MEMORY_CHARS; route-latency
 * prints them) and the data-flow table (route-latency). The starting-tools fallback reads its
 * stored list per call and holds nothing. Beside any tenant's state, an isolate that counts tokens
 * holds the o200k_base encoder once (built on its first count, text/o200k-encoder.ts): its heap
 * growth is measured the same way and printed under the table.
 * Tokens: the whole set as an OpenAI tools array (GET /v1/export/tools), o200k_base.
 */
import { addTools, addTrajectories, createGraph } from "../functions/toolnet/graph";
import { decodeGraph, encodeGraph } from "../functions/toolnet/graph/graph-codec";
import { LazyDefinitions } from "../functions/routing/lazy-definitions";
import { toolDocument, ToolIndex } from "../functions/toolnet/retrieval";
import { importToolList } from "../functions/tools/list-import";
import { o200kPieceCounter } from "../functions/text/o200k-encoder";
import { setUpTenant, startBenchService, tenantObject } from "./lib/bench-service";
import { machineLine, table } from "./lib/stats";
import { corpusItems, recordedTrajectories, syntheticWalks, toolItems } from "./lib/tool-corpus";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const sizes = option("sizes", "1000,10000").split(",").map(Number);
const runs = Number(option("runs", "200"));
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A run record of the README's task, shaped as functions/services/start-run.ts stores it (two sent tool calls). */
function runRecord(id: string): string {
  const result = JSON.stringify({
    results: Array.from({ length: 20 }, (_, i) => ({ id: 51329 + i, name: `Person ${i}`, known_for: [{ title: "A movie title", overview: "x".repeat(300) }] })),
  });
  return JSON.stringify({
    id,
    task: "How many movies has Bradley Cooper acted in?",
    candidates: ["getSearchPerson", "getPersonPersonIdMovieCredits"],
    status: "succeeded",
    answer: "42 movies",
    finalProgram:
      'const found = await tools.getSearchPerson({ query: "Bradley Cooper" });\nconst credits = await tools.getPersonPersonIdMovieCredits({ person_id: found.results[0].id });\nreturn `${credits.cast.length} movies`;',
    attempts: [
      {
        attempt: 1,
        ok: true,
        trace: [
          { tool: "getSearchPerson", arguments: { query: "Bradley Cooper" }, sent: true, ok: true, status: 200, bytes: result.length, result },
          { tool: "getPersonPersonIdMovieCredits", arguments: { person_id: 51329 }, sent: true, ok: true, status: 200, bytes: result.length, result },
        ],
      },
    ],
    modelCalls: [{ purpose: "generate", usage: { promptTokens: 2350, completionTokens: 51, totalTokens: 2401 } }],
    trajectory: ["getSearchPerson", "getPersonPersonIdMovieCredits"],
  });
}

/** The JS heap and the array buffers outside it: a stored index read back is typed arrays over its bytes. */
function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed: heap, arrayBuffers } = process.memoryUsage();
  return heap + arrayBuffers;
}

/** Heap per copy of what the object holds once routing has loaded (see the header): the graph and index read back, the kept definitions. */
function heldMemory(items: ReturnType<typeof toolItems>, names: string[], trajectories: ReturnType<typeof syntheticWalks>) {
  const definitions = importToolList(items).tools;
  const graph = createGraph();
  addTools(graph, names);
  addTrajectories(graph, trajectories, { unknownTools: "skip" });
  const graphBytes = encodeGraph(graph);
  const indexBytes = ToolIndex.build(definitions.map((def) => toolDocument(def))).toBytes();
  const texts = new Map(definitions.map((def) => [def.name, JSON.stringify(def)]));
  // Three copies kept alive at once, so collector noise is small against what is measured.
  let before = heapUsed();
  const loaded = Array.from({ length: 3 }, () => {
    const index = ToolIndex.fromBytes(indexBytes.slice());
    index.search("warm up", 1);
    return { graph: decodeGraph(graphBytes.slice()), index };
  });
  const graphAndIndex = (heapUsed() - before) / loaded.length;
  before = heapUsed();
  const kept = Array.from({ length: 3 }, () => {
    const defs = new LazyDefinitions({
      names: () => [...texts.keys()],
      text: (name) => texts.get(name),
      eachText: () => texts.values(),
      startingList: () => [],
    });
    for (const name of texts.keys()) defs.get(name);
    return defs;
  });
  const definitionsHeap = (heapUsed() - before) / kept.length;
  return { graphAndIndex, definitions: definitionsHeap, tools: loaded[0]?.graph?.tools.size ?? 0, keptParsed: kept[0]?.parsedCount ?? 0 };
}

/** Heap of the token encoder an isolate builds on its first count (its ranks' source string is module code, not counted). */
function encoderHeap(): number {
  const before = heapUsed();
  const count = o200kPieceCounter();
  if (count("tokens") !== 1) throw new Error("unexpected token count");
  return heapUsed() - before;
}

const { service } = await startBenchService();
const corpus = corpusItems();
const rows: string[][] = [];
const held: { items: ReturnType<typeof toolItems>; names: string[]; trajectories: ReturnType<typeof syntheticWalks> }[] = [];
try {
  for (const size of sizes) {
    const items = toolItems(size, corpus);
    const names = items.map((i) => i.name);
    const trajectories = [...recordedTrajectories(new Set(names)), ...syntheticWalks(names, 10, size)];
    const tenantId = `capacity-${size}`;
    const object = await tenantObject(service, tenantId);

    const setup = await setUpTenant(service, tenantId, items, []);
    const afterTools = await object.storageBytes();
    await setUpTenant(service, `${tenantId}-graph`, items, trajectories);
    const graphObject = await tenantObject(service, `${tenantId}-graph`);
    const afterGraph = await graphObject.storageBytes();
    const record = runRecord("run_x");
    for (let i = 0; i < runs; i += 1)
      await graphObject.store("runs").save(`run_capacity_${i}`, "How many movies has Bradley Cooper acted in?", "succeeded", runRecord(`run_capacity_${i}`));
    const afterRuns = await graphObject.storageBytes();

    const exported = await service.json<{ tokens: { count: number } }>("GET", "/v1/export/tools", { key: setup.key });

    held.push({ items, names, trajectories });
    rows.push([
      size.toLocaleString("en"),
      mib(afterTools),
      `${(((afterTools / size) * 10_000) / 1024 / 1024).toFixed(1)} MiB`,
      mib(afterGraph - afterTools),
      `${((afterRuns - afterGraph) / runs / 1024).toFixed(1)} KiB (record ${(record.length / 1024).toFixed(1)} KiB)`,
      "", // what the object holds, measured below once the service has stopped
      exported.body.tokens.count.toLocaleString("en"),
      `${(setup.toolImportMs / 1000).toFixed(1)} s`,
    ]);
  }
} finally {
  await service.dispose();
}
// Measured with the service stopped: its requests' garbage would otherwise blur the heap figures.
for (const [i, { items, names, trajectories }] of held.entries()) {
  const memory = heldMemory(items, names, trajectories);
  if (memory.tools !== items.length) throw new Error("unexpected in-memory state");
  const row = rows[i] as string[];
  row[5] = `${mib(memory.graphAndIndex)} + ${mib(memory.definitions)}`;
}
console.log(machineLine());
console.log(`held once per isolate that counts tokens: the o200k_base encoder, ${mib(encoderHeap())}`);
console.log(
  table(
    [
      "tools",
      "SQLite after tools",
      "per 10,000 tools",
      "+ graph (≈10 successors/tool)",
      "per stored run",
      "held: graph + index (stored) + kept definitions",
      "whole set, tokens",
      "tool import",
    ],
    rows,
  ),
);
