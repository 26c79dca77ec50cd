import type { SampleValue } from "../probing/protocol";
import type { Consumer, ConsumerLookup, StoredFlowLookups } from "./data-flow";
import type { FlowTool } from "./flow-rules";
import type { OutputLookup, ToolNames } from "./output-index";
import type { StoredNames } from "./retrieval/stored-names";

/**
 * A stored flow state (flow-samples-codec.ts) read a tool at a time: the first route after an
 * eviction of a catalog whose data flow is served per request (Microsoft Graph: 11,422 tools of
 * one API) asks for the producers of the few tools it ranks, and parsing every tool's stored form
 * and making the output index from every tool's samples was most of that route (≈ 260 ms of CPU
 * and the garbage after it). Here a tool's form and samples are parsed when first asked for, the
 * output index's keys are looked up in the stored hash table, and a key's producers are named
 * from stored positions; each tool's start rank is read without the tool, and a tool's successors
 * read the consumers its outputs name, not every tool.
 */

const utf8 = new TextDecoder();

/** Texts stored one after another: where each starts in the bytes, and where the last ends. */
export interface TextTable {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
}

/** Key → tools as stored: the keys' name tables, where each key's positions start (keys + 1), the positions. */
export interface ToolSetTables {
  readonly keys: StoredNames;
  readonly starts: Int32Array;
  readonly positions: Int32Array;
}

/** The tables of a stored flow state, as views into its bytes (flow-samples-codec.ts). */
export interface FlowStateTables {
  readonly names: StoredNames;
  /** Per tool, its record: `[EncodedTool, sample ids]` as JSON. */
  readonly records: TextTable;
  /** Per distinct sample, `[path, value]` as JSON. */
  readonly samples: TextTable;
  readonly startRanks: Int32Array;
  /** How many tools offer samples (the samples map's size). */
  readonly offering: number;
  readonly byLeaf: ToolSetTables;
  readonly byOwner: ToolSetTables;
  /** Consumer indexes (data-flow.ts `consumerIndex`): entries are (tool position, input index) pairs. */
  readonly byName: ToolSetTables;
  readonly byEntity: ToolSetTables;
}

/** A tool as stored, with its samples, made from its record. */
export interface ToolRecord {
  tool: FlowTool;
  samples: readonly SampleValue[];
}

function textAt(table: TextTable, at: number): string {
  return utf8.decode(table.bytes.subarray(table.offsets[at] ?? 0, table.offsets[at + 1] ?? 0));
}

/** The tools of one key, counted from the stored positions and named (all, once) when first read. */
class StoredToolNames implements ToolNames {
  readonly size: number;
  readonly #names: StoredNames;
  readonly #positions: Int32Array;
  #named: readonly string[] | undefined;

  constructor(names: StoredNames, positions: Int32Array) {
    this.#names = names;
    this.#positions = positions;
    this.size = positions.length;
  }

  [Symbol.iterator](): Iterator<string> {
    this.#named ??= Array.from(this.#positions, (position) => this.#names.at(position));
    return this.#named[Symbol.iterator]();
  }
}

/** One stored key → tools table (an output index's `byLeaf` or `byOwner`). */
class StoredToolSets {
  readonly #tables: ToolSetTables;
  readonly #names: StoredNames;

  constructor(tables: ToolSetTables, names: StoredNames) {
    this.#tables = tables;
    this.#names = names;
  }

  /** Made once per key: a route asks for the same few keys (an API's `id`, `user`) for every tool it ranks. */
  readonly #made = new Map<string, ToolNames | undefined>();

  get(key: string): ToolNames | undefined {
    if (this.#made.has(key)) return this.#made.get(key);
    const { keys, starts, positions } = this.#tables;
    const at = keys.positionOf(key);
    const names = at < 0 ? undefined : new StoredToolNames(this.#names, positions.subarray(starts[at] ?? 0, starts[at + 1] ?? 0));
    this.#made.set(key, names);
    return names;
  }
}

/** One stored consumer index (`byName` or `byEntity`): a key's consumers made when first asked for, each once. */
class StoredConsumers {
  readonly #tables: ToolSetTables;
  readonly #state: StoredFlowState;
  readonly #lists = new Map<string, readonly Consumer[] | undefined>();

  constructor(tables: ToolSetTables, state: StoredFlowState) {
    this.#tables = tables;
    this.#state = state;
  }

  get(key: string): readonly Consumer[] | undefined {
    if (this.#lists.has(key)) return this.#lists.get(key);
    const { keys, starts, positions } = this.#tables;
    const at = keys.positionOf(key);
    let list: Consumer[] | undefined;
    if (at >= 0) {
      list = [];
      for (let i = starts[at] ?? 0; i < (starts[at + 1] ?? 0); i += 2) list.push(this.#state.consumerAt(positions[i] ?? -1, positions[i + 1] ?? -1));
    }
    this.#lists.set(key, list);
    return list;
  }
}

/**
 * A read-only map over the stored tools by name, each value made from its record on first use.
 * Iterating reads every record (only a preparation or a rebuild of every sibling does).
 */
class StoredToolMap<V> implements ReadonlyMap<string, V> {
  readonly size: number;
  readonly #state: StoredFlowState;
  readonly #value: (record: ToolRecord) => V | undefined;

  constructor(state: StoredFlowState, size: number, value: (record: ToolRecord) => V | undefined) {
    this.#state = state;
    this.size = size;
    this.#value = value;
  }

  get(name: string): V | undefined {
    const record = this.#state.recordOf(name);
    return record === undefined ? undefined : this.#value(record);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  *entries(): MapIterator<[string, V]> {
    for (let at = 0; at < this.#state.tables.names.count; at += 1) {
      const value = this.#value(this.#state.recordAt(at));
      if (value !== undefined) yield [this.#state.tables.names.at(at), value];
    }
  }

  *keys(): MapIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }
}

/** A stored flow state (FlowState, flow-samples-codec.ts) whose tools and samples are read when asked for. */
export class StoredFlowState {
  readonly tables: FlowStateTables;
  readonly tools: ReadonlyMap<string, FlowTool>;
  readonly samples: ReadonlyMap<string, readonly SampleValue[]>;
  readonly outputs: OutputLookup;
  readonly lookups: StoredFlowLookups;
  /** Tool records parsed so far (tests and benchmarks: a cold route reads the tools it asks about). */
  recordsRead = 0;
  readonly #records: (ToolRecord | undefined)[] = [];
  readonly #samples: (SampleValue | undefined)[] = [];
  /** Consumers made so far by tool position and input index: one object each, as the in-memory index shares them. */
  readonly #consumers = new Map<number, Consumer>();
  readonly #ranks = new Map<string, number>();
  readonly #readRecord: (text: string, sampleAt: (id: number) => SampleValue) => ToolRecord;

  constructor(tables: FlowStateTables, readRecord: (text: string, sampleAt: (id: number) => SampleValue) => ToolRecord) {
    this.tables = tables;
    this.#readRecord = readRecord;
    this.tools = new StoredToolMap(this, tables.names.count, (record) => record.tool);
    this.samples = new StoredToolMap(this, tables.offering, (record) => (record.samples.length > 0 ? record.samples : undefined));
    this.outputs = { byLeaf: new StoredToolSets(tables.byLeaf, tables.names), byOwner: new StoredToolSets(tables.byOwner, tables.names) };
    const consumers: ConsumerLookup = { byName: new StoredConsumers(tables.byName, this), byEntity: new StoredConsumers(tables.byEntity, this) };
    this.lookups = { startRank: (tool) => this.#startRank(tool), consumers };
  }

  /**
   * A tool's start rank (flow-rules.ts `startRank`) without reading it; undefined when the state has
   * no such tool. Kept by name once looked up: a route orders the same thousands of candidates once
   * per rank and per ranked tool, and hashing each name again into the stored table cost more than the rest.
   */
  #startRank(tool: string): number | undefined {
    let rank = this.#ranks.get(tool);
    if (rank === undefined) {
      const at = this.tables.names.positionOf(tool);
      rank = at < 0 ? -1 : (this.tables.startRanks[at] ?? -1);
      this.#ranks.set(tool, rank);
    }
    return rank < 0 ? undefined : rank;
  }

  /** The consumer of the tool at `position` through its input at `input`. */
  consumerAt(position: number, input: number): Consumer {
    const key = position * 65_536 + input;
    let consumer = this.#consumers.get(key);
    if (consumer === undefined) {
      const tool = this.recordAt(position).tool;
      const parameter = tool.parameters[input];
      if (parameter === undefined || input >= 65_536) throw new Error("flow state: bad consumer");
      consumer = { tool, parameter };
      this.#consumers.set(key, consumer);
    }
    return consumer;
  }

  recordOf(name: string): ToolRecord | undefined {
    const at = this.tables.names.positionOf(name);
    return at < 0 ? undefined : this.recordAt(at);
  }

  recordAt(at: number): ToolRecord {
    let record = this.#records[at];
    if (record === undefined) {
      record = this.#readRecord(textAt(this.tables.records, at), (id) => this.#sampleAt(id));
      this.#records[at] = record;
      this.recordsRead += 1;
    }
    return record;
  }

  /** A distinct sample, made once however many tools offer it (as FlowSamples shares them). */
  #sampleAt(id: number): SampleValue {
    let sample = this.#samples[id];
    if (sample === undefined) {
      if (!Number.isInteger(id) || id < 0 || id + 1 >= this.tables.samples.offsets.length) throw new Error("flow state: bad reference");
      const [path, value] = JSON.parse(textAt(this.tables.samples, id)) as [unknown, unknown];
      if (typeof path !== "string" || !(typeof value === "string" || typeof value === "number" || typeof value === "boolean"))
        throw new Error("flow state: bad sample");
      sample = { path, value };
      this.#samples[id] = sample;
    }
    return sample;
  }
}
