// route-latency (bench/route-latency.ts): the object's load steps and what a later step reads precomputed, timed and weighed in this Node process.
import { addTools, addTrajectories, createGraph, type ToolGraph, type Trajectory } from "../../../functions/toolnet/graph";
import { decodeGraph, encodeGraph } from "../../../functions/toolnet/graph/graph-codec";
import { DataFlowIndex } from "../../../functions/toolnet/data-flow";
import { DataFlowLinks } from "../../../functions/toolnet/data-flow-links";
import { laterStepPriorRanks } from "../../../functions/toolnet/later-step-prior";
import { toolDocument, ToolIndex } from "../../../functions/toolnet/retrieval";
import { toolCosts, viewsFromText } from "../../../functions/storage/tenant-tool-views";
import { ViewsMemory } from "../../../functions/storage/views-memory";
import { importToolList } from "../../../functions/tools/list-import";
import type { ToolDefinition } from "../../../functions/tools/definition";
import { LazyDefinitions } from "../../../functions/routing/lazy-definitions";
import type { ListItem } from "../tool-corpus";
import { ownCpuMs, summary } from "../stats";

/** The object's load steps (tenant-routing.ts #load) timed in Node, median of 3, in ms; heap in MB. */
export interface ReloadParts {
  /** Parsing every definition: only a rebuild of the index or data flow does it (streamed); a load parses none. */
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

export function heapMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.arrayBuffers) / 1e6;
}

export function reloadParts(items: readonly ListItem[], trajectories: readonly Trajectory[]): ReloadParts {
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
  // What the object keeps parsed once every tool was asked for: the most recently used within
  // MAX_KEPT_DEFINITION_CHARS of JSON (lazy-definitions.ts); the rest stay rows.
  const texts = new Map(defs.map((d, i) => [d.name, definitionRows[i] ?? ""]));
  const lazy = new LazyDefinitions({ names: () => [...texts.keys()], text: (name) => texts.get(name), eachText: () => texts.values(), startingList: () => [] });
  for (const name of texts.keys()) lazy.get(name);
  kept.push(lazy);
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
export function laterStepParts(defs: readonly ToolDefinition[], graph: ToolGraph): ReloadParts["laterStep"] {
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
