import type { StoredNames } from "../retrieval/stored-names";
import type { Edge, GraphNode } from "./tool-graph";

/**
 * A decoded graph's nodes (graph-codec.ts), made when first asked for: a cold route reads a few
 * of a big tenant's 10,000 tools, and making every node and decoding every name at load was most
 * of the graph's load. The stored tables are views into the stored bytes: where each node's
 * record starts, the records (out-edge count, out-total, then (target, count) pairs), and the
 * tools' names (retrieval/stored-names.ts: decoded one at a time).
 */

/** The stored graph's tables, as graph-codec.ts reads them out of its bytes. */
export interface NodeTables {
  /** Word offset of each node's record: start first, then each tool. */
  readonly starts: Int32Array;
  readonly records: Int32Array;
  /** The tools' names, by position. */
  readonly names: StoredNames;
}

/** The tool nodes of one decoded graph by position, each made (and its name decoded) on first use. */
export class NodeTable {
  readonly count: number;
  readonly #tables: NodeTables;
  readonly #end: GraphNode;
  readonly #nodes: (StoredNode | undefined)[] = [];
  /** Tool nodes made so far (tests: a cold route makes the ones it reads). */
  made = 0;

  constructor(tables: NodeTables, end: GraphNode) {
    this.#tables = tables;
    this.#end = end;
    this.count = tables.names.count;
  }

  startNode(id: string): GraphNode {
    return new StoredNode(id, this, this.#tables.starts[0] ?? 0);
  }

  nameAt(position: number): string {
    return this.#tables.names.at(position);
  }

  /** A tool's position; -1 when the stored graph does not have it. */
  positionOf(name: string): number {
    return this.#tables.names.positionOf(name);
  }

  nodeAt(position: number): GraphNode {
    let node = this.#nodes[position];
    if (node === undefined) {
      node = new StoredNode(this.nameAt(position), this, this.#tables.starts[position + 1] ?? 0);
      this.#nodes[position] = node;
      this.made += 1;
    }
    return node;
  }

  /** An out-edge's target as stored: 0 is end, i + 1 the tool at position i. */
  target(stored: number): GraphNode | undefined {
    if (stored === 0) return this.#end;
    return stored > 0 && stored <= this.count ? this.nodeAt(stored - 1) : undefined;
  }

  get records(): Int32Array {
    return this.#tables.records;
  }
}

/**
 * A node whose out-edges are read from the records when first asked for. A class, so every
 * node shares one shape.
 */
class StoredNode implements GraphNode {
  readonly id: string;
  score = 0;
  outTotal: number;
  readonly #table: NodeTable;
  readonly #at: number;
  #out: Map<string, Edge> | undefined;

  constructor(id: string, table: NodeTable, at: number) {
    this.id = id;
    this.#table = table;
    this.#at = at;
    this.outTotal = table.records[at + 1] ?? 0;
  }

  get out(): Map<string, Edge> {
    if (this.#out !== undefined) return this.#out;
    const records = this.#table.records;
    const at = this.#at;
    const size = records[at] ?? 0;
    const out = new Map<string, Edge>();
    for (let i = 0; i < size; i += 1) {
      const target = this.#table.target(records[at + 2 + 2 * i] ?? -1);
      if (target !== undefined) out.set(target.id, { target, count: records[at + 3 + 2 * i] ?? 0 });
    }
    this.#out = out;
    return out;
  }
}

/**
 * A decoded graph's tools by name: `get`, `has` and `size` answer from the stored tables, making
 * only the nodes asked for. Anything else (a change, a walk over every tool) first makes every
 * node, in the stored order, into the map itself, which then behaves as any Map: the graph's
 * code is the same for a decoded and a built graph.
 */
export class StoredTools extends Map<string, GraphNode> {
  readonly #table: NodeTable;
  /** True until every node is in the map. */
  #lazy = true;

  constructor(table: NodeTable) {
    super();
    this.#table = table;
  }

  /** Tool nodes made so far from the stored tables. */
  get made(): number {
    return this.#table.made;
  }

  override get(name: string): GraphNode | undefined {
    if (!this.#lazy) return super.get(name);
    const position = this.#table.positionOf(name);
    return position < 0 ? undefined : this.#table.nodeAt(position);
  }

  override has(name: string): boolean {
    return this.#lazy ? this.#table.positionOf(name) >= 0 : super.has(name);
  }

  override get size(): number {
    return this.#lazy ? this.#table.count : super.size;
  }

  /** Every node into the map, in the stored order; the tables are not asked again. */
  #whole(): this {
    if (!this.#lazy) return this;
    const table = this.#table;
    for (let position = 0; position < table.count; position += 1) super.set(table.nameAt(position), table.nodeAt(position));
    this.#lazy = false;
    return this;
  }

  override set(name: string, node: GraphNode): this {
    this.#whole();
    return super.set(name, node);
  }

  override delete(name: string): boolean {
    this.#whole();
    return super.delete(name);
  }

  override clear(): void {
    this.#whole();
    super.clear();
  }

  override forEach(each: (node: GraphNode, name: string, map: Map<string, GraphNode>) => void, thisArg?: unknown): void {
    this.#whole();
    super.forEach(each, thisArg);
  }

  override keys(): MapIterator<string> {
    return this.#whole() && super.keys();
  }

  override values(): MapIterator<GraphNode> {
    return this.#whole() && super.values();
  }

  override entries(): MapIterator<[string, GraphNode]> {
    return this.#whole() && super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, GraphNode]> {
    return this.#whole() && super[Symbol.iterator]();
  }
}
