import { END } from "./node-ids";
import { createGraph, type Edge, type GraphNode, type ToolGraph } from "./tool-graph";
import type { GraphSettings } from "./settings";
import type { Trajectory } from "./trajectory";

/**
 * The graph's nodes and edge counts as bytes, so a Durable Object loads its graph without
 * recounting every stored trajectory (the recount is most of a cold start at 10,000 tools).
 * Nodes and each node's out-edges keep their in-memory order, so rankings that meet ties read
 * them exactly as before. Scores and settings are stored as rows elsewhere; the trajectories
 * themselves are attached later, only when a change needs them (attachTrajectories).
 *
 * Layout: a JSON header { format, tools }, then Int32 words: first where each node's record
 * starts (start, then each tool; word offsets after this table), then the records: a node's
 * number of out-edges, its out-total, and (target, count) pairs; target 0 is end, i + 1 is
 * tools[i]. The table and the stored totals let a load walk the nodes, not the ≈ 130,000 edges
 * of 10,000 tools: a node's out-edges are read when a route first asks for them.
 */

export const GRAPH_CODEC_FORMAT = "atc-graph-edges/2";

export function encodeGraph(graph: ToolGraph): Uint8Array {
  const tools = [...graph.tools.keys()];
  const position = new Map(tools.map((name, i) => [name, i + 1]));
  const nodes = [graph.start, ...graph.tools.values()];
  const starts: number[] = [];
  const records: number[] = [];
  for (const node of nodes) {
    starts.push(records.length);
    records.push(node.out.size, node.outTotal);
    for (const [to, edge] of node.out) records.push(to === END ? 0 : (position.get(to) ?? -1), edge.count);
  }
  const header = new TextEncoder().encode(JSON.stringify({ format: GRAPH_CODEC_FORMAT, tools }));
  const offset = Math.ceil((4 + header.length) / 4) * 4;
  const bytes = new Uint8Array(offset + (starts.length + records.length) * 4);
  new DataView(bytes.buffer).setUint32(0, header.length, true);
  bytes.set(header, 4);
  const words = new Int32Array(bytes.buffer, offset, starts.length + records.length);
  words.set(starts);
  words.set(records, starts.length);
  return bytes;
}

/** The graph encoded by encodeGraph, with the given settings, no scores and no trajectories attached; undefined when the bytes are of another format. */
export function decodeGraph(input: Uint8Array, settings: Partial<GraphSettings> = {}): ToolGraph | undefined {
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  if (bytes.byteLength < 4) return undefined;
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  let header: { format?: unknown; tools?: unknown };
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as typeof header;
  } catch {
    return undefined;
  }
  if (header.format !== GRAPH_CODEC_FORMAT || !Array.isArray(header.tools)) return undefined;
  const tools = header.tools as string[];
  const offset = Math.ceil((4 + headerLength) / 4) * 4;
  const all = new Int32Array(bytes.buffer, bytes.byteOffset + offset, (bytes.byteLength - offset) >> 2);
  const starts = all.subarray(0, tools.length + 1);
  const records = all.subarray(tools.length + 1);
  if (starts.length !== tools.length + 1 || !wellFormed(starts, records)) return undefined;
  const empty = createGraph(settings);
  const nodes: GraphNode[] = [empty.end];
  const edges: EdgeRecords = { records, nodes, toolCount: tools.length };
  const graph: ToolGraph = { ...empty, start: new StoredNode(empty.start.id, edges, starts[0] ?? 0) };
  for (const [i, name] of tools.entries()) {
    const node = new StoredNode(name, edges, starts[i + 1] ?? 0);
    graph.tools.set(name, node);
    nodes.push(node);
  }
  return graph;
}

/** Every record starts where the previous one ends and the last ends with the words: a truncated or damaged value is refused. */
function wellFormed(starts: Int32Array, records: Int32Array): boolean {
  let at = 0;
  for (const start of starts) {
    const size = records[at] ?? -1;
    if (start !== at || size < 0 || at + 2 + 2 * size > records.length) return false;
    at += 2 + 2 * size;
  }
  return at === records.length;
}

/** What a stored node reads its out-edges from: the records, and the nodes by target (0 end, i + 1 the i-th tool). */
interface EdgeRecords {
  records: Int32Array;
  nodes: readonly GraphNode[];
  toolCount: number;
}

/**
 * A node whose out-edges are read from the records when first asked for: one object per tool
 * at load, none per edge (a route reads the out-edges of the few nodes it touches). A class, so
 * every node shares one shape.
 */
class StoredNode implements GraphNode {
  readonly id: string;
  score = 0;
  outTotal: number;
  readonly #edges: EdgeRecords;
  readonly #at: number;
  #out: Map<string, Edge> | undefined;

  constructor(id: string, edges: EdgeRecords, at: number) {
    this.id = id;
    this.#edges = edges;
    this.#at = at;
    this.outTotal = edges.records[at + 1] ?? 0;
  }

  get out(): Map<string, Edge> {
    if (this.#out !== undefined) return this.#out;
    const { records, nodes, toolCount } = this.#edges;
    const at = this.#at;
    const size = records[at] ?? 0;
    const out = new Map<string, Edge>();
    for (let i = 0; i < size; i += 1) {
      const index = records[at + 2 + 2 * i] ?? -1;
      const target = index >= 0 && index <= toolCount ? nodes[index] : undefined;
      if (target !== undefined) out.set(target.id, { target, count: records[at + 3 + 2 * i] ?? 0 });
    }
    this.#out = out;
    return out;
  }
}

/**
 * Registers stored trajectories with a graph whose counts already include them (a decoded
 * graph): nothing is counted again. After this the graph is as if built by addTrajectories.
 */
export function attachTrajectories(graph: ToolGraph, trajectories: readonly Trajectory[]): void {
  for (const { id, tools } of trajectories) {
    if (graph.trajectories.has(id)) continue;
    graph.trajectories.set(id, tools);
    for (const tool of new Set(tools)) {
      let ids = graph.trajectoriesByTool.get(tool);
      if (ids === undefined) graph.trajectoriesByTool.set(tool, (ids = new Set()));
      ids.add(id);
    }
  }
}
