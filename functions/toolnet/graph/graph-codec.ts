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
 * Layout: a JSON header { format, tools }, then Int32 words: for start and then each tool, the
 * number of out-edges followed by (target, count) pairs; target 0 is end, i + 1 is tools[i].
 */

export const GRAPH_CODEC_FORMAT = "atc-graph-edges/1";

export function encodeGraph(graph: ToolGraph): Uint8Array {
  const tools = [...graph.tools.keys()];
  const position = new Map(tools.map((name, i) => [name, i + 1]));
  const words: number[] = [];
  for (const node of [graph.start, ...graph.tools.values()]) {
    words.push(node.out.size);
    for (const [to, edge] of node.out) {
      words.push(to === END ? 0 : (position.get(to) ?? -1), edge.count);
    }
  }
  const header = new TextEncoder().encode(JSON.stringify({ format: GRAPH_CODEC_FORMAT, tools }));
  const offset = Math.ceil((4 + header.length) / 4) * 4;
  const bytes = new Uint8Array(offset + words.length * 4);
  new DataView(bytes.buffer).setUint32(0, header.length, true);
  bytes.set(header, 4);
  new Int32Array(bytes.buffer, offset, words.length).set(words);
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
  const words = new Int32Array(bytes.buffer, bytes.byteOffset + offset, (bytes.byteLength - offset) >> 2);
  const empty = createGraph(settings);
  const nodes: GraphNode[] = [empty.end];
  // Where each source's edges start in `words` (start first, then each tool). Out maps are built
  // on first use, so a load allocates one object per tool instead of one per edge (≈ 130,000 at
  // 10,000 tools); a route touches the out-edges of one node.
  const starts: number[] = [];
  let at = 0;
  for (let source = 0; source <= tools.length; source += 1) {
    const size = words[at];
    if (size === undefined || size < 0 || at + 1 + 2 * size > words.length) return undefined;
    for (let i = 0; i < size; i += 1) {
      const target = words[at + 1 + 2 * i] ?? -1;
      if (target < 0 || target > tools.length) return undefined;
    }
    starts.push(at);
    at += 1 + 2 * size;
  }
  if (at !== words.length) return undefined;
  const graph: ToolGraph = { ...empty, start: lazyNode(empty.start.id, words, starts[0] ?? 0, nodes) };
  for (const [i, name] of tools.entries()) {
    const node = lazyNode(name, words, starts[i + 1] ?? 0, nodes);
    graph.tools.set(name, node);
    nodes.push(node);
  }
  return graph;
}

/** A node whose out-edges are read from `words` at `at` when first asked for. */
function lazyNode(id: string, words: Int32Array, at: number, nodes: readonly GraphNode[]): GraphNode {
  const size = words[at] ?? 0;
  let outTotal = 0;
  for (let i = 0; i < size; i += 1) outTotal += words[at + 2 + 2 * i] ?? 0;
  let out: Map<string, Edge> | undefined;
  return {
    id,
    score: 0,
    outTotal,
    get out(): Map<string, Edge> {
      if (out === undefined) {
        out = new Map();
        for (let i = 0; i < size; i += 1) {
          const target = nodes[words[at + 1 + 2 * i] ?? -1];
          if (target !== undefined) out.set(target.id, { target, count: words[at + 2 + 2 * i] ?? 0 });
        }
      }
      return out;
    },
  };
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
