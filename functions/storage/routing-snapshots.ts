import { attachTrajectories, decodeGraph, encodeGraph, GRAPH_CODEC_FORMAT } from "../toolnet/graph/graph-codec";
import { addTrajectories, type GraphSettings, type ToolGraph, type Trajectory } from "../toolnet/graph";
import { INDEX_FORMAT, ToolIndex, type ToolDoc } from "../toolnet/retrieval";
import { partsInPieces, type SavePiece } from "../toolnet/retrieval/impact-save";
import type { CountsReader, PartReader } from "../toolnet/retrieval/stored-counts";
import { DATA_FLOW_LINKS_FORMAT, DataFlowLinks } from "../toolnet/data-flow-links";
import { decodeFlowState, encodeFlowState, FLOW_SAMPLES_FORMAT, type FlowState } from "../toolnet/flow-samples-codec";
import { oneRow } from "./sql";
import { type StoredBlob, StoredBlobs } from "./stored-blobs";

/**
 * The routing state a restarted tenant object loads instead of rebuilding: the retrieval index
 * (impact-index.ts, ~8 MB at 10,000 tools) and the graph's edge counts (graph-codec.ts), stored
 * as chunked blobs. Loading is synchronous inside the object's method, so no request can observe
 * a half-loaded state (a Durable Object runs one synchronous stretch at a time).
 *
 * Keeping them current costs little per change:
 * - index: a tool whose document changed (registered, replaced, removed, new protocol) is noted
 *   by name; loading re-indexes the noted tools on top of the stored index. Once more than
 *   MAX_PENDING_TOOLS are noted while the index is in memory, it is saved in pieces by the alarm
 *   (`saveIndexInPieces`, impact-save.ts: a big index's whole save held the object 0.4–1.4 s in
 *   the middle of an import's batch), tools noted meanwhile staying noted after it; whole at once
 *   only past MAX_NOTED_TOOLS, when the index is not in memory (dropped then), or rebuilt.
 * - graph: the stored edges name the last trajectory row they count (`rowid`); trajectories
 *   imported since are counted on top at load. When the set of tools changes the stored edges
 *   are dropped, and written again by the preparation after the change; they are also rewritten
 *   once MAX_PENDING_TRAJECTORIES rows have piled up.
 * - data-flow links (data-flow-links.ts): every tool's data-flow successors and producers,
 *   dropped by any change of the tools or their protocols (inside that change's transaction),
 *   which notes a preparation as due: the tenant object's alarm computes them again, once, after
 *   the change (loaded-routing.ts `prepare`); a step that comes first computes them itself.
 *   A catalog with more links than the table holds stores instead what its per-request index is
 *   made of (flow-samples-codec.ts), dropped and prepared again with the links.
 * A format change (INDEX_FORMAT, GRAPH_CODEC_FORMAT, DATA_FLOW_LINKS_FORMAT) makes the stored value
 * unreadable: it is rebuilt once from the rows and stored again.
 *
 * Which tools the stored index and graph hold is checked against the tool-names version
 * (`tool_names_version`, bumped by SQLite triggers in the transaction of every insert or delete of
 * a tool row), not against every name: the index (or its noted tools) and the graph carry the
 * version they were written at. Every write of the tool rows tells the routing state in its
 * transaction (TenantEvents.toolsChanged), which rewrites these stamps after the rows; a value
 * whose version is not the current one (written before the triggers, or by a path that forgot to)
 * is checked name by name as before, and stamped again when it holds.
 */

const INDEX_BLOB = "routing-index";
/** The index's raw term counts, stored apart (ToolIndex.toParts): read when a change is merged, not by a first search. */
const INDEX_COUNTS_BLOB = "routing-index:counts";
const GRAPH_BLOB = "routing-graph";
const PENDING_BLOB = "routing-index:pending";
const DATA_FLOW_BLOB = "routing-data-flow";
const FLOW_SAMPLES_BLOB = "routing-flow-samples";
/** A preparation of the routing state is due (stamp: when, in ms since the epoch); no bytes. */
const PREPARE_BLOB = "routing-prepare";
const PREPARE_FORMAT = "due-at/1";
const PENDING_FORMAT = "tool-names/1";
const NAMES_VERSION = "SELECT version FROM tool_names_version WHERE id = 1";
/**
 * The index's parts are read by byte ranges (a query term's postings, a repeated word's counts),
 * and a range reads the chunks that hold it whole: stored in small chunks, a range costs about
 * what it reads, not a megabyte (more rows to write per save). INDEX_FORMAT names this layout.
 */
const INDEX_CHUNK_BYTES = 32 << 10;
export const MAX_PENDING_TOOLS = 64;
/** Noted tools past which the index in memory is saved whole at once, its save in pieces not done yet (a load re-adds every noted tool). */
export const MAX_NOTED_TOOLS = 16 * MAX_PENDING_TOOLS;

/** A save of the index in pieces (`saveIndexInPieces`): its pieces once begun, with the names version then and the tools noted since. */
interface IndexSave {
  index: ToolIndex;
  begun?: { pieces: Generator<SavePiece, { search: Uint8Array; counts: Uint8Array }>; version: string; notedSince: Set<string> };
}
export const MAX_PENDING_TRAJECTORIES = 512;
/** The index saves' pieces remembered for tests and benchmarks (Microsoft Graph's import makes ≈ 1,800). */
const MAX_SAVE_PIECES_KEPT = 10_000;

export interface LoadedGraph {
  graph: ToolGraph;
  /** False while stored trajectories are not attached (see completeGraph). */
  complete: boolean;
  /** Trajectory rows imported since the stored edges were written. */
  pendingTrajectories: number;
}

/** How a load went, for tests and benchmarks. */
export interface LoadReport {
  index: "stored" | "stored+pending" | "rebuilt";
  graph: "stored" | "rebuilt";
  /** Data-flow links: read back, computed (and stored), found per request (more than the table holds), or not needed yet. */
  dataFlow: "stored" | "computed" | "per request" | "not loaded";
}

/** The graph's trajectory rows, as the routing store needs them (the routing store (tenant-routing.ts, its SQL in routing-learning.ts) owns the table). */
export interface TrajectoryRows {
  /** Trajectories stored after row `rowid`, in row order. */
  after(rowid: number): Trajectory[];
  /** The last row's id (0 when none). */
  lastRow(): number;
}

export class RoutingSnapshots {
  readonly #sql: SqlStorage;
  readonly #blobs: StoredBlobs;
  readonly #trajectories: TrajectoryRows;
  /** Whole graphs and indexes written since the object started: each grows with the catalog (tests count them). */
  readonly #writes = { graph: 0, index: 0, indexInPieces: 0 };
  /** The save of the index in pieces due or under way. */
  #indexSave: IndexSave | undefined;
  /** The index the last load handed out: one loaded from stored parts reads them lazily, and a save of another must not replace them. */
  #lastLoaded: ToolIndex | undefined;
  /** What each piece of the saves in pieces did, counted (tests and benchmarks), the latest MAX_SAVE_PIECES_KEPT. */
  readonly #savePieces: (SavePiece | { piece: "state" | "write"; work: number })[] = [];
  /** Tools' names read to check a stored value whose version was not current (tests count them). */
  #nameChecks = 0;
  /** Reads of the stored index's raw term counts, whole and by byte range (tests count them). */
  #countReads = 0;
  #countRangeReads = 0;

  constructor(sql: SqlStorage, trajectories: TrajectoryRows) {
    this.#sql = sql;
    this.#blobs = new StoredBlobs(sql);
    this.#trajectories = trajectories;
  }

  /** How many loads checked a stored value name by name since this store was made (tests and benchmarks). */
  get nameChecks(): number {
    return this.#nameChecks;
  }

  /** How many times the stored index's raw term counts were read whole since this store was made (tests and benchmarks). */
  get countReads(): number {
    return this.#countReads;
  }

  /** How many byte ranges of the stored raw term counts were read (a term's counts alone) since this store was made. */
  get countRangeReads(): number {
    return this.#countRangeReads;
  }

  /** The tool-names version now (see the class comment); "none" before the migration that counts it. */
  #namesVersion(): string {
    return String(oneRow<{ version: number }>(this.#sql, NAMES_VERSION)?.version ?? "none");
  }

  /** Whether `held` (a stored value's tools) are `names()`, which is read only when the value's version is not current. */
  #holdsCurrentNames(stamped: string, held: () => Iterable<string>, names: () => ReadonlySet<string>): boolean {
    if (stamped === this.#namesVersion()) return true;
    this.#nameChecks += 1;
    return sameNames(held(), names());
  }

  /**
   * The index for the current tools: the stored one with noted tools re-indexed, else a fresh
   * build (then stored). `names` gives the registered tools (read only when the stored version is
   * not current); `documentOf` gives a tool's current
   * document (undefined when it is gone), `documents` every tool's (for a rebuild); `dependents`
   * the tools whose documents include a tool's.
   */
  loadIndex(
    names: () => ReadonlySet<string>,
    documentOf: (name: string) => ToolDoc | undefined,
    documents: () => ToolDoc[],
    dependents: (name: string) => readonly string[] = () => [],
  ): { index: ToolIndex; how: LoadReport["index"] } {
    const storedStamp = this.#blobs.stamp(INDEX_BLOB, INDEX_FORMAT);
    if (storedStamp !== undefined) {
      try {
        const [token = "", version = ""] = storedStamp.split("/");
        if (this.#blobs.stamp(INDEX_COUNTS_BLOB, INDEX_FORMAT) !== token) throw new Error("the stored index's term counts are missing or of another index");
        const index = ToolIndex.fromParts(this.#searchPartOf(token), this.#countsOf(token));
        const noted = this.#blobs.read(PENDING_BLOB, PENDING_FORMAT);
        const pending = noted === undefined ? [] : (JSON.parse(new TextDecoder().decode(noted.bytes)) as string[]);
        // A noted tool's document is part of others' (its API's other operations): those follow it.
        for (const name of new Set(pending.flatMap((name) => [name, ...dependents(name)]))) {
          const doc = documentOf(name);
          if (doc === undefined) index.remove(name);
          else index.add(doc);
        }
        // The noted tools' list is rewritten with every change after the index: its version is the latest.
        const stamped = noted?.stamp ?? version;
        if (this.#holdsCurrentNames(stamped, () => index.names(), names)) {
          this.#restamp(noted === undefined ? INDEX_BLOB : PENDING_BLOB, noted?.stamp ?? storedStamp);
          this.#lastLoaded = index;
          return { index, how: pending.length > 0 ? "stored+pending" : "stored" };
        }
      } catch {
        // unreadable: rebuilt below
      }
    }
    const index = ToolIndex.build(documents());
    this.saveIndex(index);
    this.#lastLoaded = index;
    return { index, how: "rebuilt" };
  }

  /**
   * Notes tools whose documents changed; when many are noted, rewrites the stored index (`index`
   * given) or drops it (not given: the next load rebuilds and stores a whole one).
   */
  indexChanged(names: readonly string[], index: ToolIndex | undefined): "noted" | "due" | "saved" | "dropped" {
    if (names.length === 0) return "noted";
    const pending = new Set(this.#pendingTools());
    for (const name of names) pending.add(name);
    const save = this.#indexSave;
    if (save?.begun !== undefined) for (const name of names) save.begun.notedSince.add(name);
    // A save not begun reads the index when it begins: one that stopped following the changes cannot be read then.
    else if (save !== undefined && save.index !== index) this.#indexSave = index === undefined ? undefined : { index };
    if (pending.size <= MAX_PENDING_TOOLS || (index !== undefined && pending.size <= MAX_NOTED_TOOLS)) {
      this.#blobs.write(PENDING_BLOB, PENDING_FORMAT, new TextEncoder().encode(JSON.stringify([...pending])), this.#namesVersion());
      if (pending.size <= MAX_PENDING_TOOLS || index === undefined) return "noted";
      this.#indexSave ??= { index };
      return "due";
    }
    if (index !== undefined) {
      this.saveIndex(index);
      return "saved";
    }
    // Rebuilding once at the next load beats growing the list.
    this.dropIndex();
    return "dropped";
  }

  /** Asks for a save of `index` in pieces (the preparation's, when tools were noted since the index was stored): `saveIndexInPieces` runs it. */
  saveIndexLater(index: ToolIndex): void {
    if (this.#indexSave?.index !== index && this.#indexSave?.begun === undefined) this.#indexSave = { index };
  }

  /** Whether a save of the index in pieces is due or under way (the alarm runs it: saveIndexInPieces). */
  indexSaveDue(): boolean {
    return this.#indexSave !== undefined;
  }

  /**
   * Saves the index in pieces (impact-save.ts), awaiting `next` between two (false: the slice is
   * over, the next call goes on); true once no save is left. The index is read as it is when the
   * save begins; tools noted after that stay noted once it is stored. Stored at once in the last
   * piece (the search part and the counts must name the same index), in the order saveIndex does.
   */
  async saveIndexInPieces(next: () => Promise<boolean>): Promise<boolean> {
    for (;;) {
      const save = this.#indexSave;
      if (save === undefined) return true;
      try {
        if (this.#saveOnePiece(save)) return true;
      } catch (error) {
        // The noted tools stay noted (the stored index and list are as they were): the next save or load goes on from them.
        if (this.#indexSave === save) this.#indexSave = undefined;
        throw error;
      }
      if (!(await next())) return false;
    }
  }

  /** One piece of `save`: true when it was the last (the index stored). */
  #saveOnePiece(save: IndexSave): boolean {
    if (save.begun === undefined) {
      // What the index holds now, its changes merged by the pieces: a piece of its own (a loaded index reads its stored part and counts first).
      const state = save.index.savedState();
      save.begun = { pieces: partsInPieces(state), version: this.#namesVersion(), notedSince: new Set() };
      this.#notePiece({ piece: "state", work: state.unmerged.names.length });
    } else {
      const step = save.begun.pieces.next();
      if (step.done) {
        // Loaded again since (an eviction, a preparation's forget): that index reads the stored parts this would replace.
        if (this.#lastLoaded === save.index) this.#storeSaved(step.value, save.begun);
        else this.#indexSave = undefined;
        return true;
      }
      this.#notePiece(step.value);
    }
    return false;
  }

  #storeSaved(parts: { search: Uint8Array; counts: Uint8Array }, begun: NonNullable<IndexSave["begun"]>): void {
    this.#indexSave = undefined;
    this.#writes.indexInPieces += 1;
    const token = crypto.randomUUID();
    this.#blobs.write(INDEX_BLOB, INDEX_FORMAT, parts.search, `${token}/${begun.version}`, INDEX_CHUNK_BYTES);
    this.#blobs.write(INDEX_COUNTS_BLOB, INDEX_FORMAT, parts.counts, token, INDEX_CHUNK_BYTES);
    if (begun.notedSince.size === 0) this.#blobs.delete(PENDING_BLOB);
    else this.#blobs.write(PENDING_BLOB, PENDING_FORMAT, new TextEncoder().encode(JSON.stringify([...begun.notedSince])), this.#namesVersion());
    this.#notePiece({ piece: "write", work: parts.search.byteLength + parts.counts.byteLength });
  }

  /** Kept for tests and benchmarks, bounded: an object imports for as long as it lives. */
  #notePiece(piece: SavePiece | { piece: "state" | "write"; work: number }): void {
    if (this.#savePieces.length >= MAX_SAVE_PIECES_KEPT) this.#savePieces.splice(0, this.#savePieces.length / 2);
    this.#savePieces.push(piece);
  }

  /** What each piece of the saves in pieces did since the object started, counted (tests and benchmarks). */
  indexSavePieces(): (SavePiece | { piece: "state" | "write"; work: number })[] {
    return [...this.#savePieces];
  }

  dropIndex(): void {
    this.#indexSave = undefined;
    this.#blobs.delete(INDEX_BLOB);
    this.#blobs.delete(INDEX_COUNTS_BLOB);
    this.#blobs.delete(PENDING_BLOB);
  }

  /**
   * The one writer of the stored retrieval index: whoever prepares routing (the alarm's
   * preparation, a rebuild at load) stores the index it made with this, in the transaction of
   * the change it was made for; the load path reads it back (loadIndex) and never uses one made
   * for other tools.
   */
  saveIndex(index: ToolIndex): void {
    this.#indexSave = undefined;
    this.#writes.index += 1;
    const { search, counts } = index.toParts();
    // A token of their own: an index loaded before a later save never reads the postings or counts saved then.
    const token = crypto.randomUUID();
    this.#blobs.write(INDEX_BLOB, INDEX_FORMAT, search, `${token}/${this.#namesVersion()}`, INDEX_CHUNK_BYTES);
    this.#blobs.write(INDEX_COUNTS_BLOB, INDEX_FORMAT, counts, token, INDEX_CHUNK_BYTES);
    this.#blobs.delete(PENDING_BLOB);
  }

  /**
   * Reads the stored index's search part by byte ranges (its head at load, a query term's postings
   * when a search first has it), refusing a part stored since the index was loaded (`token`, the
   * first half of its stamp, is that of the part loaded).
   */
  #searchPartOf(token: string): PartReader {
    const checked = (stored: StoredBlob | undefined): Uint8Array => {
      if (stored === undefined || stored.stamp.split("/")[0] !== token) throw new Error("the stored index's search part is missing or of another index");
      return stored.bytes;
    };
    return {
      all: () => checked(this.#blobs.read(INDEX_BLOB, INDEX_FORMAT)),
      range: (start, length) => checked(this.#blobs.readRange(INDEX_BLOB, INDEX_FORMAT, start, length, INDEX_CHUNK_BYTES)),
    };
  }

  /**
   * Reads the stored index's raw term counts when first asked, whole or a term's byte ranges,
   * refusing counts saved since the index was loaded (`token` is theirs at load).
   */
  #countsOf(token: string): CountsReader {
    const checked = (stored: StoredBlob | undefined): Uint8Array => {
      if (stored === undefined || stored.stamp !== token) throw new Error("the stored index's term counts are missing or of another index");
      return stored.bytes;
    };
    return {
      all: () => {
        this.#countReads += 1;
        return checked(this.#blobs.read(INDEX_COUNTS_BLOB, INDEX_FORMAT));
      },
      range: (start, length) => {
        this.#countRangeReads += 1;
        return checked(this.#blobs.readRange(INDEX_COUNTS_BLOB, INDEX_FORMAT, start, length, INDEX_CHUNK_BYTES));
      },
    };
  }

  /** Whether tools were noted since the stored index was written (a load then re-adds them, and their API's other operations). */
  hasNotedIndexChanges(): boolean {
    return this.#blobs.stamp(PENDING_BLOB, PENDING_FORMAT) !== undefined;
  }

  #pendingTools(): string[] {
    const stored = this.#blobs.read(PENDING_BLOB, PENDING_FORMAT);
    return stored === undefined ? [] : (JSON.parse(new TextDecoder().decode(stored.bytes)) as string[]);
  }

  /** A value checked name by name holds the current tools: stamped with the current version, so the next load trusts it. */
  #restamp(name: string, stamped: string): void {
    const version = this.#namesVersion();
    // The graph's stamp is "<last row>/<version>", the index's "<token>/<version>": the first half is kept.
    if (name === GRAPH_BLOB || name === INDEX_BLOB) {
      const [kept] = stamped.split("/");
      if (stamped !== `${kept}/${version}`) this.#blobs.setStamp(name, `${kept}/${version}`);
    } else if (stamped !== version) this.#blobs.setStamp(name, version);
  }

  /**
   * The graph from stored edges plus trajectories imported since; undefined when nothing usable
   * is stored (another format, or other tools than `names`, read only when the stored version is
   * not current). The stamp is "last trajectory row counted/tool-names version".
   */
  loadGraph(names: () => ReadonlySet<string>, settings: GraphSettings | undefined): LoadedGraph | undefined {
    const stored = this.#blobs.read(GRAPH_BLOB, GRAPH_CODEC_FORMAT);
    if (stored === undefined) return undefined;
    const [lastRow = "", version = ""] = stored.stamp.split("/");
    const graph = decodeGraph(stored.bytes, settings);
    if (graph === undefined || !this.#holdsCurrentNames(version, () => graph.tools.keys(), names)) return undefined;
    this.#restamp(GRAPH_BLOB, stored.stamp);
    const recent = this.#trajectories.after(Number(lastRow));
    addTrajectories(graph, recent, { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER });
    return { graph, complete: false, pendingTrajectories: recent.length };
  }

  /** Stores the graph's edges as counting every trajectory row there is now. */
  saveGraph(graph: ToolGraph): void {
    this.#writes.graph += 1;
    this.#blobs.write(GRAPH_BLOB, GRAPH_CODEC_FORMAT, encodeGraph(graph), `${this.#trajectories.lastRow()}/${this.#namesVersion()}`);
  }

  /** Attaches the stored trajectories to a graph loaded from edges, so it can change. */
  completeGraph(loaded: LoadedGraph): void {
    if (loaded.complete) return;
    attachTrajectories(loaded.graph, this.#trajectories.after(0));
    loaded.complete = true;
  }

  /**
   * The stored data-flow links, when they were computed for a catalog of `tools` tools and
   * nothing changed since; "too many" when that catalog had more links than the table holds.
   */
  loadDataFlow(tools: number): DataFlowLinks | "too many" | undefined {
    const stored = this.#blobs.read(DATA_FLOW_BLOB, DATA_FLOW_LINKS_FORMAT);
    if (stored === undefined) return undefined;
    if (stored.stamp === `${tools}:too-many`) return "too many";
    return stored.stamp !== String(tools) ? undefined : DataFlowLinks.fromBytes(stored.bytes);
  }

  /** Stores the data-flow links of the current catalog (`tools` tools), or that it has more than the table holds. */
  saveDataFlow(links: DataFlowLinks | "too many", tools: number): void {
    if (links === "too many") this.#blobs.write(DATA_FLOW_BLOB, DATA_FLOW_LINKS_FORMAT, new Uint8Array(), `${tools}:too-many`);
    else this.#blobs.write(DATA_FLOW_BLOB, DATA_FLOW_LINKS_FORMAT, links.toBytes(), String(tools));
  }

  /** What the per-request data-flow index of a catalog of `tools` tools past the table's bounds is made of, when stored since its last change. */
  loadFlowState(tools: number): FlowState | undefined {
    const stored = this.#blobs.read(FLOW_SAMPLES_BLOB, FLOW_SAMPLES_FORMAT);
    return stored === undefined || stored.stamp !== String(tools) ? undefined : decodeFlowState(stored.bytes);
  }

  saveFlowState(state: FlowState, tools: number): void {
    this.#blobs.write(FLOW_SAMPLES_BLOB, FLOW_SAMPLES_FORMAT, encodeFlowState(state), String(tools));
  }

  /** The tools or their outputs changed: the stored links (and samples) no longer hold, and a preparation is due at `prepareAt` (kept if one is due earlier). */
  dropDataFlow(prepareAt: number): void {
    this.#blobs.delete(DATA_FLOW_BLOB);
    this.#blobs.delete(FLOW_SAMPLES_BLOB);
    const due = this.preparationDue();
    if (due === null || due > prepareAt) this.notePreparation(prepareAt);
  }

  /** When the routing state's preparation is due (ms since the epoch), or null when none is. */
  preparationDue(): number | null {
    const stamp = this.#blobs.stamp(PREPARE_BLOB, PREPARE_FORMAT);
    const at = stamp === undefined ? Number.NaN : Number(stamp);
    return Number.isFinite(at) ? at : null;
  }

  /** Notes a preparation as due at `at` (also to retry a failed one later). */
  notePreparation(at: number): void {
    this.#blobs.write(PREPARE_BLOB, PREPARE_FORMAT, new Uint8Array(), String(at));
  }

  /** The preparation is done. */
  preparationDone(): void {
    this.#blobs.delete(PREPARE_BLOB);
  }

  /** Test hook: marks the stored values as written by an older format, as after an upgrade. */
  ageFormats(): void {
    this.#blobs.setFormat(INDEX_BLOB, "older-format/0");
    this.#blobs.setFormat(INDEX_COUNTS_BLOB, "older-format/0");
    this.#blobs.setFormat(GRAPH_BLOB, "older-format/0");
    this.#blobs.setFormat(DATA_FLOW_BLOB, "older-format/0");
    this.#blobs.setFormat(FLOW_SAMPLES_BLOB, "older-format/0");
  }

  /** Whole graphs and indexes written since the object started, and indexes saved in pieces (tests and benchmarks). */
  writes(): { graph: number; index: number; indexInPieces: number } {
    return { ...this.#writes };
  }

  /** Forget the stored graph (its trajectories or its tools changed); the next load rebuilds it. */
  dropGraph(): void {
    this.#blobs.delete(GRAPH_BLOB);
  }
}

function sameNames(a: Iterable<string>, b: ReadonlySet<string>): boolean {
  let count = 0;
  for (const name of a) {
    if (!b.has(name)) return false;
    count += 1;
  }
  return count === b.size;
}
