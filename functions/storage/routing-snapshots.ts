import { attachTrajectories, decodeGraph, encodeGraph, GRAPH_CODEC_FORMAT } from "../toolnet/graph/graph-codec";
import { addTrajectories, type GraphSettings, type ToolGraph, type Trajectory } from "../toolnet/graph";
import { INDEX_FORMAT, ToolIndex, type ToolDoc } from "../toolnet/retrieval";
import { DATA_FLOW_LINKS_FORMAT, DataFlowLinks } from "../toolnet/data-flow-links";
import { decodeFlowState, encodeFlowState, FLOW_SAMPLES_FORMAT, type FlowState } from "../toolnet/flow-samples-codec";
import { StoredBlobs } from "./stored-blobs";

/**
 * The routing state a restarted tenant object loads instead of rebuilding: the retrieval index
 * (impact-index.ts, ~8 MB at 10,000 tools) and the graph's edge counts (graph-codec.ts), stored
 * as chunked blobs. Loading is synchronous inside the object's method, so no request can observe
 * a half-loaded state (a Durable Object runs one synchronous stretch at a time).
 *
 * Keeping them current costs little per change:
 * - index: a tool whose document changed (registered, replaced, removed, new protocol) is noted
 *   by name; loading re-indexes the noted tools on top of the stored index. Once MAX_PENDING_TOOLS
 *   are noted by catalog changes, the stored index is dropped and the preparation after the
 *   change stores the whole one (a big import's every batch would rewrite it otherwise), and it
 *   is stored whenever it had to be rebuilt.
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
 */

const INDEX_BLOB = "routing-index";
const GRAPH_BLOB = "routing-graph";
const PENDING_BLOB = "routing-index:pending";
const DATA_FLOW_BLOB = "routing-data-flow";
const FLOW_SAMPLES_BLOB = "routing-flow-samples";
/** A preparation of the routing state is due (stamp: when, in ms since the epoch); no bytes. */
const PREPARE_BLOB = "routing-prepare";
const PREPARE_FORMAT = "due-at/1";
const PENDING_FORMAT = "tool-names/1";
export const MAX_PENDING_TOOLS = 64;
export const MAX_PENDING_TRAJECTORIES = 512;

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
  readonly #blobs: StoredBlobs;
  readonly #trajectories: TrajectoryRows;
  /** Whole graphs and indexes written since the object started: each grows with the catalog (tests count them). */
  readonly #writes = { graph: 0, index: 0 };

  constructor(sql: SqlStorage, trajectories: TrajectoryRows) {
    this.#blobs = new StoredBlobs(sql);
    this.#trajectories = trajectories;
  }

  /**
   * The index for the current tools: the stored one with noted tools re-indexed, else a fresh
   * build (then stored). `names` are the registered tools; `documentOf` gives a tool's current
   * document (undefined when it is gone), `documents` every tool's (for a rebuild); `dependents`
   * the tools whose documents include a tool's.
   */
  loadIndex(
    names: ReadonlySet<string>,
    documentOf: (name: string) => ToolDoc | undefined,
    documents: () => ToolDoc[],
    dependents: (name: string) => readonly string[] = () => [],
  ): { index: ToolIndex; how: LoadReport["index"] } {
    const stored = this.#blobs.read(INDEX_BLOB, INDEX_FORMAT);
    if (stored !== undefined) {
      try {
        const index = ToolIndex.fromBytes(stored.bytes);
        const pending = this.#pendingTools();
        // A noted tool's document is part of others' (its API's other operations): those follow it.
        for (const name of new Set(pending.flatMap((name) => [name, ...dependents(name)]))) {
          const doc = documentOf(name);
          if (doc === undefined) index.remove(name);
          else index.add(doc);
        }
        if (sameNames(index.names(), names)) return { index, how: pending.length > 0 ? "stored+pending" : "stored" };
      } catch {
        // unreadable: rebuilt below
      }
    }
    const index = ToolIndex.build(documents());
    this.saveIndex(index);
    return { index, how: "rebuilt" };
  }

  /**
   * Notes tools whose documents changed; when many are noted, rewrites the stored index (`index`
   * given) or drops it (not given: the next load, or the preparation, stores a whole one).
   */
  indexChanged(names: readonly string[], index: ToolIndex | undefined): "noted" | "saved" | "dropped" {
    if (names.length === 0) return "noted";
    const pending = new Set(this.#pendingTools());
    for (const name of names) pending.add(name);
    if (pending.size <= MAX_PENDING_TOOLS) {
      this.#blobs.write(PENDING_BLOB, PENDING_FORMAT, new TextEncoder().encode(JSON.stringify([...pending])), "");
      return "noted";
    }
    if (index !== undefined) {
      this.saveIndex(index);
      return "saved";
    }
    // Rebuilding once at the next load beats growing the list.
    this.dropIndex();
    return "dropped";
  }

  dropIndex(): void {
    this.#blobs.delete(INDEX_BLOB);
    this.#blobs.delete(PENDING_BLOB);
  }

  /**
   * The one writer of the stored retrieval index: whoever prepares routing (the alarm's
   * preparation, a rebuild at load) stores the index it made with this, in the transaction of
   * the change it was made for; the load path reads it back (loadIndex) and never uses one made
   * for other tools.
   */
  saveIndex(index: ToolIndex): void {
    this.#writes.index += 1;
    this.#blobs.write(INDEX_BLOB, INDEX_FORMAT, index.toBytes(), "");
    this.#blobs.delete(PENDING_BLOB);
  }

  #pendingTools(): string[] {
    const stored = this.#blobs.read(PENDING_BLOB, PENDING_FORMAT);
    return stored === undefined ? [] : (JSON.parse(new TextDecoder().decode(stored.bytes)) as string[]);
  }

  /**
   * The graph from stored edges plus trajectories imported since; undefined when nothing usable
   * is stored (another format, or other tools than `names`).
   */
  loadGraph(names: ReadonlySet<string>, settings: GraphSettings | undefined): LoadedGraph | undefined {
    const stored = this.#blobs.read(GRAPH_BLOB, GRAPH_CODEC_FORMAT);
    if (stored === undefined) return undefined;
    const graph = decodeGraph(stored.bytes, settings);
    if (graph === undefined || !sameNames(graph.tools.keys(), names)) return undefined;
    const recent = this.#trajectories.after(Number(stored.stamp));
    addTrajectories(graph, recent, { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER });
    return { graph, complete: false, pendingTrajectories: recent.length };
  }

  /** Stores the graph's edges as counting every trajectory row there is now. */
  saveGraph(graph: ToolGraph): void {
    this.#writes.graph += 1;
    this.#blobs.write(GRAPH_BLOB, GRAPH_CODEC_FORMAT, encodeGraph(graph), String(this.#trajectories.lastRow()));
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
    this.#blobs.setFormat(GRAPH_BLOB, "older-format/0");
    this.#blobs.setFormat(DATA_FLOW_BLOB, "older-format/0");
    this.#blobs.setFormat(FLOW_SAMPLES_BLOB, "older-format/0");
  }

  /** Whole graphs and indexes written since the object started (tests and benchmarks). */
  writes(): { graph: number; index: number } {
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
