import { addTool, addTools, addTrajectories, createGraph, removeTool, type GraphSettings, type ToolGraph } from "../toolnet/graph";
import { toolDocument, type Ranked, type SiblingsOf, type ToolIndex } from "../toolnet/retrieval";
import { DataFlowIndex, FlowSamples, flowTool, OutputIndex, outputFields, type FlowTool } from "../toolnet/data-flow";
import { DataFlowLinks, MAX_TABLE_OFFERS, MAX_TABLED_LINKS, type DataFlowLookup } from "../toolnet/data-flow-links";
import { TaskMemory } from "../toolnet/task-memory";
import { ApiFamilies, apiSiblings, withSiblings } from "../toolnet/api-siblings";
import type { SampleValue } from "../probing/protocol";
import type { ToolDefinition } from "../tools/definition";
import type { TenantEvents, ToolsChange } from "./tenant-events";
import type { TenantSettings } from "./tenant-settings";
import type { LoadedGraph, LoadReport, RoutingSnapshots } from "./routing-snapshots";
import { allRows, run } from "./sql";
import { LazyDefinitions } from "./lazy-definitions";
import type { FlowState } from "../toolnet/flow-samples-codec";
import type { ToolVectors } from "./tool-vectors";
import { SaidNumberTools, type ParametersOf } from "./said-number-tools";
import { RelevanceMemo } from "./relevance-memo";

/** What use has taught about a tool: queries it answered, fields it returned (current protocol). */
export interface RoutingHints {
  queries: string[];
  outputs: SampleValue[];
}

/** What the routing state reads from the tenant's other stores. */
export interface StateSources {
  /** The registry's tools: names, stored definitions (one, or all one at a time), and each tool's server and summary. */
  catalog: {
    toolNames(): string[];
    definitionText(name: string): string | undefined;
    eachDefinitionText(): Iterable<string>;
    apiRows(): Pick<ToolDefinition, "name" | "serverUrl" | "summary">[];
    summaries(names: readonly string[]): Map<string, string>;
    flowRows(): FlowTool[];
    parametersOf: ParametersOf;
  };
  /** Routing hints (JSON) of current protocols made for the tools' current definitions. */
  routingHints: () => Map<string, string>;
  settings: TenantSettings;
  events: TenantEvents;
  /** A preparation of the routing state was noted as due (the tenant object arms its alarm). */
  preparationNoted?: () => void;
}

/**
 * How long after a catalog change its preparation waits: changes that come together (a list of
 * imports, a probe job's protocols) are prepared for once, and a step that follows at once
 * computes what it needs itself.
 */
export const PREPARE_DELAY_MS = 1_000;

/** The state one object lifetime works on; parts load on first use. */
/** A task's relevance: a later step's ranking, a first step's (with API evidence) and whether the task was embedded. */
export interface TaskRelevance {
  ranked: Ranked[];
  firstStep: Ranked[];
  embedded: boolean;
}

export interface Loaded {
  graph: ToolGraph;
  /** The graph as loaded: from stored edges (trajectories attached on demand) or rebuilt. */
  stored: LoadedGraph;
  /** How this state was loaded (for tests and benchmarks). */
  report: LoadReport;
  /** Loaded on first use (a graph step or feedback never needs it). */
  readonly index: ToolIndex;
  /** The index if it has been loaded, else undefined (changes are then noted for its load). */
  readonly loadedIndex: ToolIndex | undefined;
  /** Parsed on demand, the most recently used kept: an answer parses the tools it shows; computing data flow streams them all. */
  defs: LazyDefinitions;
  /** Every tool's data-flow successors and producers: read back or computed on first use, once per catalog change. */
  readonly flow: DataFlowLookup;
  /** The links if they are in memory (dropped when tools or protocols change), else undefined. */
  loadedFlow: DataFlowLookup | undefined;
  /** Every tool's compact form, when data flow is served per request and loaded (dropped with it). */
  flowTools: ReadonlyMap<string, FlowTool> | undefined;
  /** Built from the stored tasks on first use. */
  readonly memory: TaskMemory;
  readonly loadedMemory: TaskMemory | undefined;
  hints: Map<string, RoutingHints>;
  /** Other operations of each tool's API (small APIs only), read from light rows; rebuilt when tools change. */
  families: ApiFamilies | undefined;
  /** Recent task-relevance rankings by task text, depth and embeddings model, each for the index version it was computed against. */
  relevance: RelevanceMemo<TaskRelevance>;
  /** Which tools need a number the task must say, as asked so far (forgotten when they change). */
  saidNumbers: SaidNumberTools;
}

/**
 * A tenant's ToolNet state in memory — graph, retrieval index, data flow, task memory — loaded
 * once per object lifetime from its stored form (routing-snapshots.ts) or rebuilt from the rows, and
 * kept in step with the registry and the protocols as they change. Every method is synchronous,
 * so within the Durable Object no request sees a half-loaded or half-changed state.
 */
export class LoadedRouting {
  readonly #sql: SqlStorage;
  readonly #sources: StateSources;
  readonly #store: RoutingSnapshots;
  readonly #vectors: ToolVectors;
  #state: Loaded | undefined;

  constructor(sql: SqlStorage, sources: StateSources, store: RoutingSnapshots, vectors: ToolVectors) {
    this.#sql = sql;
    this.#sources = sources;
    this.#store = store;
    this.#vectors = vectors;
    sources.events.onToolsChanged((change) => this.#toolsChanged(change));
    sources.events.onProtocolChanged((tool) => this.#protocolChanged(tool));
  }

  /** The state if it is in memory, without loading it. */
  get current(): Loaded | undefined {
    return this.#state;
  }

  /** Drops the state: the next `load` reads it again from the rows (after they were replaced). */
  forget(): void {
    this.#state = undefined;
  }

  #settings(): GraphSettings | undefined {
    const json = this.#sources.settings.get("graph");
    return json === undefined ? undefined : (JSON.parse(json) as GraphSettings);
  }

  /** Routing hints of current protocols made for the tools' current definitions. */
  #hints(): Map<string, RoutingHints> {
    return new Map([...this.#sources.routingHints()].map(([tool, json]) => [tool, parseHints(json)]));
  }

  #document(def: ToolDefinition, hints: Map<string, RoutingHints>, families: ApiFamilies) {
    return toolDocument(def, { queries: hints.get(def.name)?.queries ?? [], siblings: families.of(def.name) });
  }

  /**
   * The in-memory state, once per object lifetime: the stored graph edges when they are current
   * (routing-snapshots.ts), else rebuilt from the rows and stored. The retrieval index and the task
   * memory are loaded on first use, and definitions parsed as they are needed, so a graph step or
   * feedback after an eviction pays for the graph alone. Every method is synchronous, so each
   * part loads within one call and no request sees a half-loaded state.
   */
  load(): Loaded {
    if (this.#state !== undefined) return this.#state;
    const catalog = this.#sources.catalog;
    const defs = new LazyDefinitions({
      names: () => catalog.toolNames(),
      text: (name) => catalog.definitionText(name),
      eachText: () => catalog.eachDefinitionText(),
    });
    const report: LoadReport = { graph: "stored", index: "rebuilt", dataFlow: "not loaded" };
    const stored = this.#storedOrRebuiltGraph(new Set(defs.keys()), report);
    this.#applyStoredScores(stored.graph);
    this.#state = this.#lazyState(stored, report, defs, this.#hints());
    return this.#state;
  }

  /** The stored graph edges when they are current, else the graph rebuilt from the trajectory rows, and stored. */
  #storedOrRebuiltGraph(names: Set<string>, report: LoadReport): LoadedGraph {
    const settings = this.#settings();
    const stored = this.#store.loadGraph(names, settings);
    if (stored !== undefined) return stored;
    report.graph = "rebuilt";
    const graph = createGraph(settings);
    addTools(graph, [...names]);
    const rows = allRows<{ id: string; tools: string }>(this.#sql, "SELECT id, tools FROM graph_trajectories ORDER BY rowid");
    // Stored trajectories may name tools deleted since; their transitions simply do not count.
    addTrajectories(
      graph,
      rows.map((row) => ({ id: row.id, tools: JSON.parse(row.tools) as string[] })),
      { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER },
    );
    this.#store.saveGraph(graph);
    return { graph, complete: true, pendingTrajectories: 0 };
  }

  #applyStoredScores(graph: ToolGraph): void {
    for (const row of allRows<{ tool: string; score: number }>(this.#sql, "SELECT tool, score FROM graph_scores")) {
      const node = graph.tools.get(row.tool);
      if (node !== undefined) node.score = row.score;
    }
  }

  /** The state whose index, task memory and data flow load on first use. */
  #lazyState(stored: LoadedGraph, report: LoadReport, defs: LazyDefinitions, hints: Map<string, RoutingHints>): Loaded {
    let index: ToolIndex | undefined;
    let memory: TaskMemory | undefined;
    const loadIndex = () => this.#loadIndex(state);
    const loadFlow = () => this.#loadFlow(state);
    const loadMemory = () => this.#loadMemory();
    const state: Loaded = {
      graph: stored.graph,
      stored,
      report,
      defs,
      loadedFlow: undefined,
      flowTools: undefined,
      get flow(): DataFlowLookup {
        state.loadedFlow ??= loadFlow();
        return state.loadedFlow;
      },
      hints,
      families: undefined,
      relevance: new RelevanceMemo(),
      saidNumbers: new SaidNumberTools((names) => this.#sources.catalog.parametersOf(names)),
      get index(): ToolIndex {
        index ??= loadIndex();
        return index;
      },
      get loadedIndex(): ToolIndex | undefined {
        return index;
      },
      get memory(): TaskMemory {
        memory ??= loadMemory();
        return memory;
      },
      get loadedMemory(): TaskMemory | undefined {
        return memory;
      },
    };
    return state;
  }

  /**
   * The retrieval index over the tools registered when it is first needed (changes since this
   * load included). A document holds its API's other operations, so the siblings are read only
   * when a document must be made: a stored index with nothing noted needs none. A rebuild streams
   * the definitions, each parsed, made a document and dropped.
   */
  #loadIndex(state: Loaded): ToolIndex {
    const { defs, hints } = state;
    const loaded = this.#store.loadIndex(
      new Set(defs.keys()),
      (name) => {
        const def = defs.get(name);
        return def === undefined ? undefined : this.#document(def, hints, this.families(state));
      },
      () => {
        const families = this.families(state);
        return Array.from(defs.values(), (def) => this.#document(def, hints, families));
      },
      (name) => this.siblings(state).get(name) ?? [],
    );
    state.report.index = loaded.how;
    return loaded.index;
  }

  #loadMemory(): TaskMemory {
    const tasks = allRows<{ id: string; tools: string; task: string }>(
      this.#sql,
      "SELECT id, tools, task FROM graph_trajectories WHERE task IS NOT NULL ORDER BY rowid",
    );
    return TaskMemory.build(tasks.map((row) => ({ id: row.id, task: row.task, tools: JSON.parse(row.tools) as string[] })));
  }

  /**
   * The stored links when nothing changed since they were computed, else computed from every
   * definition (outputs include probed samples) and stored for the next load. A catalog with
   * more links than the table holds is served per request by the index, as before the table;
   * what that index is made of is stored instead, so it is made again without the definitions.
   */
  #loadFlow(state: Loaded): DataFlowLookup {
    const { defs, report } = state;
    const stored = this.#store.loadDataFlow(defs.size);
    if (stored !== undefined && stored !== "too many") {
      report.dataFlow = "stored";
      return stored;
    }
    const storedState = stored === "too many" ? this.#store.loadFlowState(defs.size) : undefined;
    const { index, flowState } = this.#flowIndex(state, storedState);
    // Past the bound once: noted, so later loads of the same catalog do not look again.
    const links = stored === "too many" ? undefined : DataFlowLinks.compute(index, defs.keys(), MAX_TABLED_LINKS, () => index.offers > MAX_TABLE_OFFERS);
    if (links === undefined) {
      state.flowTools = flowState.tools;
      if (stored === undefined) this.#store.saveDataFlow("too many", defs.size);
      if (storedState === undefined) this.#store.saveFlowState(flowState, defs.size);
      report.dataFlow = "per request";
      return index;
    }
    this.#store.saveDataFlow(links, defs.size);
    report.dataFlow = "computed";
    return links;
  }

  /**
   * The data-flow index over every tool's compact form (name, path, server and parameters, read
   * by SQLite from the stored JSON) and per tool only the output samples data flow can offer
   * (FlowSamples), the definitions streamed once, one at a time, for them; or both as `stored`.
   * No definition is kept, and none is parsed again to link a tool. The output index is made from
   * the offerable samples alone: it is read only for fields named like a required input, and
   * identifiers, which are exactly the ones FlowSamples keeps.
   */
  #flowIndex(state: Loaded, stored: FlowState | undefined): { index: DataFlowIndex<FlowTool>; flowState: FlowState } {
    const flowState = stored ?? this.#streamedFlowState(state);
    const { tools, samples } = flowState;
    const outputs = new OutputIndex();
    for (const [name, kept] of samples) {
      const tool = tools.get(name);
      if (tool !== undefined) outputs.add(tool, kept);
    }
    return { index: new DataFlowIndex(tools, (tool) => samples.get(tool.name) ?? [], outputs), flowState };
  }

  #streamedFlowState(state: Loaded): FlowState {
    const { defs, hints } = state;
    const tools = new Map<string, FlowTool>();
    for (const row of this.#sources.catalog.flowRows()) if (defs.has(row.name)) tools.set(row.name, flowTool(row));
    const offerable = new FlowSamples(tools.values());
    const samples = new Map<string, SampleValue[]>();
    for (const def of defs.values()) {
      const kept = offerable.offerable(outputFields(def, hints.get(def.name)?.outputs));
      if (kept.length > 0) samples.set(def.name, kept);
    }
    return { tools, samples };
  }

  /** Other operations of each tool's API (small APIs only), made once per state. */
  siblings(state: Loaded): Map<string, readonly string[]> {
    return this.families(state).siblings;
  }

  /** A tool's other operations (small APIs only); undefined when no tool has any, so a search weighs no API evidence. */
  apiSiblingsOf(state: Loaded): SiblingsOf | undefined {
    const siblings = this.siblings(state);
    return siblings.size === 0 ? undefined : (tool) => siblings.get(tool) ?? [];
  }

  /** Same-API siblings and their summaries, from light rows (no definition parsed), once per state. */
  families(state: Loaded): ApiFamilies {
    state.families ??= new ApiFamilies(this.#apiRows(state));
    return state.families;
  }

  /**
   * The light rows same-API siblings are made of (name, server, summary), by name. With data flow
   * served per request, its tools' compact forms give every server, and SQLite reads only the
   * siblings' summaries: reading every server out of a big catalog's definitions took 0.7–0.8 s of
   * Microsoft Graph's first step, whose one API has no siblings (too large to say much).
   */
  #apiRows(state: Loaded): Pick<ToolDefinition, "name" | "serverUrl" | "summary">[] {
    const tools = state.flowTools;
    if (tools === undefined) return this.#sources.catalog.apiRows();
    const rows = [...tools.values()].map((tool) => ({ name: tool.name, serverUrl: tool.serverUrl }));
    const summaries = this.#sources.catalog.summaries([...apiSiblings(rows).keys()]);
    return rows.map((row) => {
      const summary = summaries.get(row.name);
      return summary === undefined ? row : { ...row, summary };
    });
  }

  /**
   * What a later step needs, made now rather than by the first request after a catalog change
   * (the tenant object's alarm calls this once the change's work is done): the retrieval index,
   * rebuilt and stored if it must be, and the data-flow table, computed and stored. A state that
   * was not in memory before is dropped again afterwards (what was made is stored; the next
   * request loads only what it needs), unless its data flow is served per request (more links
   * than the table holds): that index is not stored, and the first request would make it again.
   */
  prepare(): LoadReport {
    const wasLoaded = this.#state !== undefined;
    const state = this.load();
    void state.index;
    void state.flow;
    const report = { ...state.report };
    if (!wasLoaded && report.dataFlow !== "per request") this.#state = undefined;
    return report;
  }

  /** The state with every stored trajectory attached to the graph (exports list them). */
  complete(): Loaded {
    const state = this.load();
    this.#store.completeGraph(state.stored);
    return state;
  }

  /** Keep graph and index in step with the registry (runs inside the registry's transaction). */
  #toolsChanged({ upserted, removed }: ToolsChange): void {
    const state = this.#state;
    const changed = [...upserted.map(({ definition }) => definition.name), ...removed];
    let reindexed: readonly string[] = changed;
    if (state !== undefined) {
      // Loaded before the change is mirrored: the stored index and its noted tools match the rows as
      // they were, and so do the APIs' operations whose documents the change touches.
      const index = state.index;
      const before = this.siblings(state);
      const namesChange = upserted.some(({ definition }) => !state.graph.tools.has(definition.name)) || removed.some((name) => state.graph.tools.has(name));
      // Adding or removing a node recounts its stored transitions: the trajectories must be attached.
      if (namesChange) this.#store.completeGraph(state.stored);
      for (const { definition: def } of upserted) {
        addTool(state.graph, def.name);
        state.defs.set(def.name, def);
        // A changed definition has no current protocol yet: its hints no longer apply.
        state.hints.delete(def.name);
      }
      for (const name of removed) {
        removeTool(state.graph, name);
        index.remove(name);
        state.defs.delete(name);
        state.hints.delete(name);
      }
      state.saidNumbers.forget(changed);
      if (namesChange) this.#store.saveGraph(state.graph);
      state.loadedFlow = undefined;
      state.flowTools = undefined;
      // Documents include their API's other operations: the changed tools' APIs, before and after, are re-indexed.
      const after = new ApiFamilies(this.#sources.catalog.apiRows());
      state.families = after;
      reindexed = [...withSiblings(changed, before, after.siblings)];
      for (const name of reindexed) {
        const def = state.defs.get(name);
        if (def !== undefined) index.add(this.#document(def, state.hints, after));
      }
      state.relevance.clear();
    }
    this.#store.indexChanged(reindexed, state?.loadedIndex);
    // Any change of the tools may change links anywhere (a field's producers decide whether it is generic).
    this.#dropDataFlow();
    // Not loaded: the next load re-indexes noted tools' current APIs, but a removed tool's API is
    // no longer known, so its operations' stored documents would keep it; rebuild instead.
    if (state === undefined && removed.length > 0) this.#store.dropIndex();
    for (const name of removed) run(this.#sql, "DELETE FROM graph_scores WHERE tool = ?", name);
    // Also drops the vectors read so far: changed definitions have new hashes.
    this.#vectors.remove(removed);
  }

  /** The stored links no longer hold: dropped, and their preparation noted as due. */
  #dropDataFlow(): void {
    this.#store.dropDataFlow(Date.now() + PREPARE_DELAY_MS);
    this.#sources.preparationNoted?.();
  }

  /** A tool's current protocol changed: its document (example queries) and outputs (data flow) follow. */
  #protocolChanged(tool: string): void {
    const state = this.#state;
    // Its probed outputs are what it offers as data flow.
    this.#dropDataFlow();
    if (state === undefined) {
      this.#store.indexChanged([tool], undefined);
      return;
    }
    const hints = this.#hints();
    const def = state.defs.get(tool);
    state.hints.clear();
    for (const [name, hint] of hints) state.hints.set(name, hint);
    if (def !== undefined) state.index.add(this.#document(def, state.hints, this.families(state)));
    this.#store.indexChanged([tool], state.index);
    state.loadedFlow = undefined;
    state.flowTools = undefined;
    state.relevance.clear();
  }
}

function parseHints(json: string): RoutingHints {
  try {
    const value = JSON.parse(json) as Partial<RoutingHints>;
    const queries = Array.isArray(value.queries) ? value.queries.filter((q): q is string => typeof q === "string") : [];
    const outputs = Array.isArray(value.outputs)
      ? value.outputs.filter(
          (o): o is SampleValue =>
            typeof o === "object" && o !== null && typeof o.path === "string" && ["string", "number", "boolean"].includes(typeof o.value),
        )
      : [];
    return { queries, outputs };
  } catch {
    return { queries: [], outputs: [] };
  }
}
