import { END } from "./node-ids";
import { createGraph, type ToolGraph } from "./tool-graph";
import type { GraphSettings } from "./settings";
import type { Trajectory } from "./trajectory";
import { NodeTable, type NodeTables, StoredTools } from "./stored-nodes";
import { nameTables, StoredNames, wellFormedNames } from "../retrieval/stored-names";

/**
 * The graph's nodes and edge counts as bytes, so a Durable Object loads its graph without
 * recounting every stored trajectory (the recount is most of a cold start at 10,000 tools).
 * Nodes and each node's out-edges keep their in-memory order, so rankings that meet ties read
 * them exactly as before. Scores and settings are stored as rows elsewhere; the trajectories
 * themselves are attached later, only when a change needs them (attachTrajectories).
 *
 * Layout: a JSON header { format, tools, records, slots, nameBytes } (counts), then Int32 words:
 * where each node's record starts (start, then each tool; word offsets into the records), the
 * records (a node's number of out-edges, its out-total, and (target, count) pairs; target 0 is
 * end, i + 1 the i-th tool), where each tool's name starts in the name bytes (and where the last
 * ends), a hash table of the names, then the names' UTF-8 bytes (retrieval/stored-names.ts). A
 * load reads these as views and makes a node, and decodes its name, only when a route asks for
 * it (stored-nodes.ts): one cold route touches a few of 10,000 tools.
 */

export const GRAPH_CODEC_FORMAT = "atc-graph-edges/3";

interface Header {
  format: string;
  tools: number;
  records: number;
  slots: number;
  nameBytes: number;
}

export function encodeGraph(graph: ToolGraph): Uint8Array {
  const tools = [...graph.tools.keys()];
  const position = new Map(tools.map((name, i) => [name, i + 1]));
  const starts: number[] = [];
  const records: number[] = [];
  for (const node of [graph.start, ...graph.tools.values()]) {
    starts.push(records.length);
    records.push(node.out.size, node.outTotal);
    for (const [to, edge] of node.out) records.push(to === END ? 0 : (position.get(to) ?? -1), edge.count);
  }
  const names = nameTables(tools);
  const header: Header = { format: GRAPH_CODEC_FORMAT, tools: tools.length, records: records.length, slots: names.slots.length, nameBytes: names.bytes.length };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const offset = Math.ceil((4 + headerBytes.length) / 4) * 4;
  const wordCount = starts.length + records.length + names.offsets.length + names.slots.length;
  const bytes = new Uint8Array(offset + wordCount * 4 + names.bytes.length);
  new DataView(bytes.buffer).setUint32(0, headerBytes.length, true);
  bytes.set(headerBytes, 4);
  const words = new Int32Array(bytes.buffer, offset, wordCount);
  let at = 0;
  for (const part of [starts, records, names.offsets, names.slots]) {
    words.set(part, at);
    at += part.length;
  }
  bytes.set(names.bytes, offset + wordCount * 4);
  return bytes;
}

/** The graph encoded by encodeGraph, with the given settings, no scores and no trajectories attached; undefined when the bytes are of another format. */
export function decodeGraph(input: Uint8Array, settings: Partial<GraphSettings> = {}): ToolGraph | undefined {
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  const tables = tablesOf(bytes);
  if (tables === undefined) return undefined;
  const empty = createGraph(settings);
  const table = new NodeTable(tables, empty.end);
  return { ...empty, start: table.startNode(empty.start.id), tools: new StoredTools(table) };
}

/** The stored tables of `bytes` (4-byte aligned), as views; undefined when of another format, truncated or damaged. */
function tablesOf(bytes: Uint8Array): NodeTables | undefined {
  if (bytes.byteLength < 4) return undefined;
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  let header: Partial<Header>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as Partial<Header>;
  } catch {
    return undefined;
  }
  const { format, tools = -1, records: recordCount = -1, slots = -1, nameBytes = -1 } = header;
  if (format !== GRAPH_CODEC_FORMAT || ![tools, recordCount, slots, nameBytes].every((n) => Number.isInteger(n) && n >= 0)) return undefined;
  const offset = Math.ceil((4 + headerLength) / 4) * 4;
  const wordCount = tools + 1 + recordCount + tools + 1 + slots;
  if (offset + wordCount * 4 + nameBytes !== bytes.byteLength) return undefined;
  const words = new Int32Array(bytes.buffer, bytes.byteOffset + offset, wordCount);
  const starts = words.subarray(0, tools + 1);
  const records = words.subarray(tools + 1, tools + 1 + recordCount);
  const names = {
    offsets: words.subarray(tools + 1 + recordCount, 2 * tools + 2 + recordCount),
    slots: words.subarray(2 * tools + 2 + recordCount),
    bytes: bytes.subarray(offset + wordCount * 4),
  };
  return recordsWellFormed(starts, records) && wellFormedNames(names) ? { starts, records, names: new StoredNames(names) } : undefined;
}

/** Every record starts where the previous one ends and the last ends with the records: a damaged value is refused. */
function recordsWellFormed(starts: Int32Array, records: Int32Array): boolean {
  let at = 0;
  for (const start of starts) {
    const size = records[at] ?? -1;
    if (start !== at || size < 0 || at + 2 + 2 * size > records.length) return false;
    at += 2 + 2 * size;
  }
  return at === records.length;
}

/** Tool nodes a decoded graph has made so far (tests: a cold route makes only those it reads); undefined for a graph not decoded. */
export function storedNodesMade(graph: ToolGraph): number | undefined {
  return graph.tools instanceof StoredTools ? graph.tools.made : undefined;
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
