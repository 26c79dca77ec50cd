import { effectiveSchema } from "../probing";
import type { SampleValue } from "../probing/protocol";
import type { ToolParameter } from "../tools/definition";
import { type Consumer, consumerIndex, type StoredFlowLookups } from "./data-flow";
import { type FlowTool, isFillable, startRank } from "./flow-rules";
import { OutputIndex, type OutputLookup } from "./output-index";
import { nameTables, StoredNames, wellFormedNames, type NameTables } from "./retrieval/stored-names";
import { type FlowStateTables, StoredFlowState, type TextTable, type ToolRecord, type ToolSetTables } from "./stored-flow-state";

/**
 * What a per-request data-flow index is made of — every tool's compact form (FlowTool) and the
 * output samples it can offer (FlowSamples: per tool, shared between tools) — stored, so that the
 * index of a catalog past the table's bounds is made again after an eviction from these alone,
 * without SQLite reading and parsing every definition (Microsoft Graph's are 266 MB of JSON).
 * Equal samples are stored once; an input's schema only as far as data flow reads it (`flowSchema`).
 *
 * Layout (format 3): a JSON header { format, offering, words, bytes } (`words`, `bytes`: the
 * lengths of the sections below, in their order), then Int32 words: the tool names' offsets and
 * hash table (retrieval/stored-names.ts), where each tool's record starts, each tool's start rank,
 * where each distinct sample starts, then the output index's two tables (leaf → tools, owner word
 * → tools) and the consumer indexes (input name → consumers, entity word → consumers; data-flow.ts
 * `consumerIndex`), each as its keys' offsets and hash table, where each key's entries start, and
 * the entries (a tool's position; for a consumer, its position and its input's index); then the
 * bytes: the tool names, the records (`[compact tool, sample ids]` as JSON), the samples
 * (`[path, value]` as JSON), the four tables' keys. A load makes views of these and reads
 * a tool, a sample or a key's tools only when asked (stored-flow-state.ts).
 */

/** Bumped when the encoding or what FlowSamples and FlowTool keep changes: older stored states are made again. */
export const FLOW_SAMPLES_FORMAT = "flow-samples/3";

/**
 * What a per-request data-flow index is made of. Made in memory with plain maps; read back from
 * storage, tools and samples are read per tool and the output index and start ranks come stored
 * (stored-flow-state.ts), so that a load asks only for the tools it needs.
 */
export interface FlowState {
  tools: ReadonlyMap<string, FlowTool>;
  samples: ReadonlyMap<string, readonly SampleValue[]>;
  /** The output index over `samples` (OutputIndex), when made or stored with them; else a load makes it. */
  outputs?: OutputLookup;
  /** Each tool's start rank and the consumer indexes, read without the tools, when stored. */
  lookups?: StoredFlowLookups;
}

/**
 * An input data flow reads by its name alone (not fillable, flow-rules.ts `isFillable`: optional, or a
 * header), as [name, in, required]: Microsoft Graph's operations' many optional query inputs
 * (`$select`, `$filter`, …) as objects with a schema were most of a stored tool's bytes.
 */
type NamedOnly = [string, ToolParameter["in"], boolean];

type EncodedTool = Omit<FlowTool, "parameters"> & { parameters: (ToolParameter | NamedOnly)[] };

/** A tool's stored record: its compact form and the ids of the distinct samples it offers. */
type EncodedRecord = [EncodedTool, number[]];

const READ_KEYS = ["type", "default", "example", "const"] as const;

/**
 * What data flow reads of an input's schema, in a form that reads the same: its own `type` (a
 * by-name lookup takes text inputs only), and the type, default, example and constant of the
 * schema its variants make (instance discovery's `effectiveSchema`, read for the value's type).
 * A request body's schema of thousands of nodes becomes a few bytes.
 */
export function flowSchema(schema: unknown): ToolParameter["schema"] {
  const own = typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as Record<string, unknown>).type : undefined;
  const effective = effectiveSchema(schema);
  const read: Record<string, unknown> = {};
  for (const key of READ_KEYS) {
    const value = effective[key];
    // Instance discovery reads a default, example or constant only for its type when it is a plain value.
    if (value !== undefined && (key === "type" || ["string", "number", "boolean"].includes(typeof value))) read[key] = value;
  }
  // The variant's keys override the own type, as effectiveSchema merges them.
  return { ...(own === undefined ? {} : { type: own }), anyOf: [read] } as ToolParameter["schema"];
}

function compactTool(tool: FlowTool): EncodedTool {
  return {
    ...tool,
    parameters: tool.parameters.map((p): ToolParameter | NamedOnly => (isFillable(p) ? { ...p, schema: flowSchema(p.schema) } : [p.name, p.in, p.required])),
  };
}

/** A stored tool as data flow reads it: an input stored by name again with the empty schema `flowTool` gives it. */
function readTool(tool: EncodedTool): FlowTool {
  if (typeof tool.name !== "string" || !Array.isArray(tool.parameters)) throw new Error("flow state: bad tool");
  const parameters = tool.parameters.map((p): ToolParameter => (Array.isArray(p) ? { name: p[0], in: p[1], required: p[2], schema: {} } : p));
  return { ...tool, parameters };
}

interface Header {
  format: string;
  offering: number;
  words: number[];
  bytes: number[];
}

/** Texts one after another, with where each starts (TextTable). */
function textTable(texts: readonly string[]): TextTable {
  const encoder = new TextEncoder();
  const encoded = texts.map((text) => encoder.encode(text));
  const offsets = new Int32Array(texts.length + 1);
  encoded.forEach((bytes, i) => (offsets[i + 1] = (offsets[i] ?? 0) + bytes.length));
  const bytes = new Uint8Array(offsets[texts.length] ?? 0);
  encoded.forEach((text, i) => bytes.set(text, offsets[i] ?? 0));
  return { offsets, bytes };
}

/** Key → tools as positions of `position`'s tools, keys in the map's order, tools in each set's. */
function toolSetTables(
  map: ReadonlyMap<string, ReadonlySet<string>>,
  position: ReadonlyMap<string, number>,
): { keys: NameTables; starts: Int32Array; positions: Int32Array } {
  const keys = [...map.keys()];
  const starts = new Int32Array(keys.length + 1);
  const positions: number[] = [];
  keys.forEach((key, i) => {
    for (const tool of map.get(key) ?? []) {
      const at = position.get(tool);
      if (at !== undefined) positions.push(at);
    }
    starts[i + 1] = positions.length;
  });
  return { keys: nameTables(keys), starts, positions: Int32Array.from(positions) };
}

/** Key → consumers as (tool position, input index) pairs, keys in the map's order, consumers in each list's. */
function consumerTables(
  map: ReadonlyMap<string, readonly Consumer[]>,
  position: ReadonlyMap<string, number>,
): { keys: NameTables; starts: Int32Array; positions: Int32Array } {
  const keys = [...map.keys()];
  const starts = new Int32Array(keys.length + 1);
  const pairs: number[] = [];
  keys.forEach((key, i) => {
    for (const { tool, parameter } of map.get(key) ?? []) pairs.push(position.get(tool.name) ?? -1, tool.parameters.indexOf(parameter));
    starts[i + 1] = pairs.length;
  });
  return { keys: nameTables(keys), starts, positions: Int32Array.from(pairs) };
}

/** The output index over the state's samples: the one it holds when made in memory, else made now (a preparation's). */
function outputIndexOf(state: FlowState): OutputIndex {
  return state.outputs instanceof OutputIndex ? state.outputs : OutputIndex.over(state.tools, state.samples);
}

/** Each tool's record (JSON) and the distinct samples they name, each once. */
function recordsOf(state: FlowState, names: readonly string[]): { records: string[]; samples: string[]; offering: number } {
  const ids = new Map<SampleValue, number>();
  const samples: string[] = [];
  let offering = 0;
  const records = names.map((name) => {
    const offered = (state.samples.get(name) ?? []).map((sample) => {
      let id = ids.get(sample);
      if (id === undefined) {
        ids.set(sample, (id = samples.length));
        samples.push(JSON.stringify([sample.path, sample.value]));
      }
      return id;
    });
    if (offered.length > 0) offering += 1;
    const record: EncodedRecord = [compactTool(state.tools.get(name) as FlowTool), offered];
    return JSON.stringify(record);
  });
  return { records, samples, offering };
}

export function encodeFlowState(state: FlowState): Uint8Array {
  const names = [...state.tools.keys()];
  const position = new Map(names.map((name, i) => [name, i]));
  const { records, samples, offering } = recordsOf(state, names);
  const outputs = outputIndexOf(state);
  const [nameTable, recordTable, sampleTable] = [nameTables(names), textTable(records), textTable(samples)];
  const [leaves, owners] = [toolSetTables(outputs.byLeaf, position), toolSetTables(outputs.byOwner, position)];
  const consumers = consumerIndex(state.tools.values());
  const [byName, byEntity] = [consumerTables(consumers.byName, position), consumerTables(consumers.byEntity, position)];
  const ranks = Int32Array.from(names, (name) => startRank(state.tools.get(name) as FlowTool));
  const words = [nameTable.offsets, nameTable.slots, recordTable.offsets, ranks, sampleTable.offsets];
  for (const set of [leaves, owners, byName, byEntity]) words.push(set.keys.offsets, set.keys.slots, set.starts, set.positions);
  const byteParts = [nameTable.bytes, recordTable.bytes, sampleTable.bytes, ...[leaves, owners, byName, byEntity].map((set) => set.keys.bytes)];
  const header: Header = { format: FLOW_SAMPLES_FORMAT, offering, words: words.map((w) => w.length), bytes: byteParts.map((b) => b.length) };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const offset = Math.ceil((4 + headerBytes.length) / 4) * 4;
  const wordCount = words.reduce((sum, part) => sum + part.length, 0);
  const bytes = new Uint8Array(offset + wordCount * 4 + byteParts.reduce((sum, part) => sum + part.length, 0));
  new DataView(bytes.buffer).setUint32(0, headerBytes.length, true);
  bytes.set(headerBytes, 4);
  let at = offset;
  for (const part of words) {
    new Int32Array(bytes.buffer, at, part.length).set(part);
    at += part.length * 4;
  }
  for (const part of byteParts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** The header of stored bytes, when they are of this format and their sections fill them exactly. */
function headerOf(bytes: Uint8Array): { header: Header; offset: number } | undefined {
  if (bytes.byteLength < 4) return undefined;
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  let header: Partial<Header>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as Partial<Header>;
  } catch {
    return undefined;
  }
  const { format, offering, words, bytes: byteParts } = header;
  const counts = (list: unknown): list is number[] => Array.isArray(list) && list.every((n) => Number.isInteger(n) && n >= 0);
  if (format !== FLOW_SAMPLES_FORMAT || !Number.isInteger(offering) || !counts(words) || !counts(byteParts)) return undefined;
  if (words.length !== 21 || byteParts.length !== 7) return undefined;
  const offset = Math.ceil((4 + headerLength) / 4) * 4;
  const size = offset + 4 * words.reduce((sum, n) => sum + n, 0) + byteParts.reduce((sum, n) => sum + n, 0);
  return size === bytes.byteLength ? { header: header as Header, offset } : undefined;
}

/** Offsets that start at 0, never go back, and end at `length`: a damaged value is refused. */
function wellFormedOffsets(offsets: Int32Array, length: number): boolean {
  for (let i = 1; i < offsets.length; i += 1) if ((offsets[i] ?? 0) < (offsets[i - 1] ?? 0)) return false;
  return offsets.length >= 1 && offsets[0] === 0 && offsets[offsets.length - 1] === length;
}

/** The sections of `bytes` (4-byte aligned) as views, in the header's order. */
function sectionsOf(bytes: Uint8Array, header: Header, offset: number): { words: Int32Array[]; bytes: Uint8Array[] } {
  let at = bytes.byteOffset + offset;
  const words = header.words.map((length) => {
    const view = new Int32Array(bytes.buffer, at, length);
    at += length * 4;
    return view;
  });
  const byteParts = header.bytes.map((length) => {
    const view = new Uint8Array(bytes.buffer, at, length);
    at += length;
    return view;
  });
  return { words, bytes: byteParts };
}

/** The tables of stored bytes, as views; undefined when of another format, truncated or damaged. */
function tablesOf(input: Uint8Array): FlowStateTables | undefined {
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  const read = headerOf(bytes);
  if (read === undefined) return undefined;
  const { words, bytes: parts } = sectionsOf(bytes, read.header, read.offset);
  const [nameOffsets, nameSlots, recordOffsets, startRanks, sampleOffsets, ...sets] = words as [
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    ...Int32Array[],
  ];
  const [nameBytes, recordBytes, sampleBytes, ...keyBytes] = parts as [Uint8Array, Uint8Array, Uint8Array, ...Uint8Array[]];
  const names: NameTables = { offsets: nameOffsets, slots: nameSlots, bytes: nameBytes };
  const records = { offsets: recordOffsets, bytes: recordBytes };
  const samples = { offsets: sampleOffsets, bytes: sampleBytes };
  const count = nameOffsets.length - 1;
  const [byLeaf, byOwner, byName, byEntity] = [0, 1, 2, 3].map((i) => toolSetsOf(sets.slice(4 * i, 4 * i + 4), keyBytes[i] ?? new Uint8Array(), count, i >= 2));
  const sound =
    wellFormedNames(names) &&
    wellFormedOffsets(recordOffsets, recordBytes.length) &&
    wellFormedOffsets(sampleOffsets, sampleBytes.length) &&
    recordOffsets.length === count + 1 &&
    startRanks.length === count;
  if (!sound || byLeaf === undefined || byOwner === undefined || byName === undefined || byEntity === undefined) return undefined;
  return { names: new StoredNames(names), records, samples, startRanks, offering: read.header.offering, byLeaf, byOwner, byName, byEntity };
}

/** One key → tools table (`pairs`: of tool position and input index) from its four word sections and its keys' bytes, when it holds together. */
function toolSetsOf(words: Int32Array[], keyBytes: Uint8Array, tools: number, pairs: boolean): ToolSetTables | undefined {
  const [offsets, slots, starts, positions] = words as [Int32Array, Int32Array, Int32Array, Int32Array];
  const keys: NameTables = { offsets, slots, bytes: keyBytes };
  if (!wellFormedNames(keys) || starts.length !== offsets.length || !wellFormedOffsets(starts, positions.length)) return undefined;
  if (positions.some((at, i) => at < 0 || (at >= tools && !(pairs && i % 2 === 1)))) return undefined;
  if (pairs && starts.some((start) => start % 2 !== 0)) return undefined;
  return { keys: new StoredNames(keys), starts, positions };
}

/** A tool's record as data flow reads it: its compact form, and its samples by id. */
function readRecord(text: string, sampleAt: (id: number) => SampleValue): ToolRecord {
  const [stored, ids] = JSON.parse(text) as EncodedRecord;
  if (!Array.isArray(ids)) throw new Error("flow state: bad tool");
  return { tool: readTool(stored), samples: ids.map(sampleAt) };
}

/**
 * The state stored by `encodeFlowState`, read lazily (stored-flow-state.ts): tools and samples
 * when asked for (equal samples shared again), the output index and start ranks as stored;
 * undefined when the bytes are not one.
 */
export function decodeFlowState(bytes: Uint8Array): StoredFlowState | undefined {
  const tables = tablesOf(bytes);
  return tables === undefined ? undefined : new StoredFlowState(tables, readRecord);
}

/** Tool records a decoded state has read so far (tests and benchmarks); undefined for a state made in memory. */
export function flowRecordsRead(state: FlowState): number | undefined {
  return state instanceof StoredFlowState ? state.recordsRead : undefined;
}
