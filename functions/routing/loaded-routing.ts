import { addTool, removeTool, type GraphSettings } from "../toolnet/graph";
import { toolDocument, type SiblingsOf, type ToolIndex } from "../toolnet/retrieval";
import type { DataFlowLookup } from "../toolnet/data-flow-links";
import type { TaskMemory } from "../toolnet/task-memory";
import { ApiFamilies, apiSiblings, type SiblingSummary } from "../toolnet/api-siblings";
import type { ToolDefinition } from "../tools/definition";
import type { ToolsChange } from "../storage/tenant-events";
import type { LoadedGraph, LoadReport, RoutingSnapshots } from "../storage/routing-snapshots";
import type { GraphRows } from "../storage/graph-rows";
import { LazyDefinitions } from "./lazy-definitions";
import type { ToolVectors } from "../storage/tool-vectors";
import { SaidNumberTools } from "./said-number-tools";
import { RelevanceMemo } from "./relevance-memo";
import { type Loaded, parseHints, type RoutingHints, type StateSources } from "./routing-state";
import { applyStoredScores, loadTaskMemory, storedOrRebuiltGraph } from "./loaded-graph";
import { dataFlowInPieces, loadDataFlow, storedDataFlow } from "./loaded-data-flow";
import { ApiSiblingLookup } from "./api-sibling-lookup";
import { toolsTouchedBy } from "./changed-apis";
import { flowCheapToRecompute, lastGoodFlow, NO_FLOW } from "./last-good-flow";
import { DefinitionPass } from "./definition-pass";
import type { WorkSlice } from "../common/work-slice";

// The state's shape is routing-state.ts's; its callers import it from here with LoadedRouting.
export type { Loaded, RoutingHints, StateSources, TaskRelevance } from "./routing-state";

/**
 * How long after a catalog change its preparation waits: changes that come together (a list of
 * imports, a probe job's protocols) are prepared for once, and a step that follows at once
 * computes what it needs itself.
 */
export const PREPARE_DELAY_MS = 1_000;

/**
 * A tenant's ToolNet state in memory — graph, retrieval index, data flow, task memory — loaded
 * once per object lifetime from its stored form (routing-snapshots.ts) or rebuilt from the rows, and
 * kept in step with the registry and the protocols as they change. Every method is synchronous,
 * so within the Durable Object no request sees a half-loaded or half-changed state. The graph and
 * the task memory are made by loaded-graph.ts, data flow by loaded-data-flow.ts.
 */
export class LoadedRouting {
  readonly #rows: GraphRows;
  readonly #sources: StateSources;
  readonly #store: RoutingSnapshots;
  readonly #vectors: ToolVectors;
  #state: Loaded | undefined;
  /**
   * Whole values the in-memory state holds newer than storage, written by the preparation: a
   * change of the set of tools drops the stored graph rather than rewriting it (it grows with the
   * catalog, and a big import changes the catalog with every batch). The stored index is kept: a
   * loaded index reads its term counts from it.
   */
  #unsaved = { graph: false };
  /** Catalog and protocol changes seen: a preparation in pieces begun before one starts again. */
  #generation = 0;
  #pass: PreparationRun | undefined;

  constructor(rows: GraphRows, sources: StateSources, store: RoutingSnapshots, vectors: ToolVectors) {
    this.#rows = rows;
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
    this.#unsaved = { graph: false };
  }

  #settings(): GraphSettings | undefined {
    const json = this.#sources.settings.get("graph");
    return json === undefined ? undefined : (JSON.parse(json) as GraphSettings);
  }

  /** Routing hints of current protocols made for the tools' current definitions. */
  #hints(): Map<string, RoutingHints> {
    return new Map([...this.#sources.routingHints()].map(([tool, json]) => [tool, parseHints(json)]));
  }

  #document(def: ToolDefinition, hints: Map<string, RoutingHints>, siblings: SiblingSummary[]) {
    return toolDocument(def, { queries: hints.get(def.name)?.queries ?? [], siblings });
  }

  /** What a tool's document shows of its API's other operations: from the families when made, else read for that tool alone. */
  #siblingSummaries(state: Loaded, name: string): SiblingSummary[] {
    if (state.families !== undefined) return state.families.of(name);
    const siblings = state.apis.of(name);
    const summaries = siblings.length === 0 ? new Map<string, string>() : this.#sources.catalog.summaries(siblings);
    return siblings.map((sibling) => {
      const summary = summaries.get(sibling);
      return summary === undefined ? { name: sibling } : { name: sibling, summary };
    });
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
      count: () => catalog.toolCount(),
      text: (name) => catalog.definitionText(name),
      eachText: () => catalog.eachDefinitionText(),
      startingList: () => catalog.startingList(),
    });
    const report: LoadReport = { graph: "stored", index: "rebuilt", dataFlow: "not loaded" };
    const stored = storedOrRebuiltGraph(this.#rows, this.#store, () => new Set(defs.keys()), this.#settings(), report);
    applyStoredScores(this.#rows, stored.graph);
    this.#state = this.#lazyState(stored, report, defs, this.#hints());
    return this.#state;
  }

  /** The state whose index, task memory and data flow load on first use. */
  #lazyState(stored: LoadedGraph, report: LoadReport, defs: LazyDefinitions, hints: Map<string, RoutingHints>): Loaded {
    let index: ToolIndex | undefined;
    let memory: TaskMemory | undefined;
    const loadIndex = () => this.#loadIndex(state);
    const catalog = this.#sources.catalog;
    const loadFlow = () => loadDataFlow(state, this.#store, catalog);
    // A big catalog's route never streams every definition: what storage holds, else none until the preparation.
    const storedFlowOrPreparation = (): DataFlowLookup => {
      state.loadedFlow = storedDataFlow(state, this.#store);
      if (state.loadedFlow !== undefined) return state.loadedFlow;
      this.#flowPreparationWanted();
      return NO_FLOW;
    };
    const loadMemory = () => loadTaskMemory(this.#rows);
    const state: Loaded = {
      graph: stored.graph,
      stored,
      report,
      defs,
      loadedFlow: undefined,
      staleFlow: undefined,
      preparing: false,
      preparedDocuments: undefined,
      flowTools: undefined,
      get flow(): DataFlowLookup {
        if (state.loadedFlow !== undefined) return state.loadedFlow;
        // Recomputing streams every definition: a big catalog's route uses the last good links until the preparation,
        // else the stored ones, else none (the preparation, noted now, reads the catalog in pieces).
        const cheap = flowCheapToRecompute(defs.size, () => catalog.definitionChars());
        if (!cheap) return state.staleFlow ?? (state.preparing ? NO_FLOW : storedFlowOrPreparation());
        state.loadedFlow = loadFlow();
        state.staleFlow = undefined;
        return state.loadedFlow;
      },
      hints,
      families: undefined,
      apis: new ApiSiblingLookup(this.#sources.catalog),
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
      () => new Set(defs.keys()),
      (name) => {
        const prepared = state.preparedDocuments?.get(name);
        if (prepared !== undefined) return prepared;
        const def = defs.get(name);
        return def === undefined ? undefined : this.#document(def, hints, this.#siblingSummaries(state, name));
      },
      () => {
        const prepared = state.preparedDocuments;
        if (prepared !== undefined && prepared.size === defs.size) return [...prepared.values()];
        const families = this.families(state);
        return Array.from(defs.values(), (def) => this.#document(def, hints, families.of(def.name)));
      },
      this.siblingsOf(state),
    );
    state.report.index = loaded.how;
    return loaded.index;
  }

  /** Other operations of each tool's API (small APIs only), made once per state. */
  siblings(state: Loaded): Map<string, readonly string[]> {
    return this.families(state).siblings;
  }

  /**
   * A tool's other operations (small APIs only): from every tool's (the families) once they are
   * made, else read for that tool alone, so a route reads those of the tools it ranks only.
   */
  siblingsOf(state: Loaded): SiblingsOf {
    return (tool) => {
      const families = state.families;
      return families === undefined ? state.apis.of(tool) : (families.siblings.get(tool) ?? []);
    };
  }

  /** A tool's other operations (small APIs only); undefined when no tool has any, so a search weighs no API evidence. */
  apiSiblingsOf(state: Loaded): SiblingsOf | undefined {
    const families = state.families;
    if (families === undefined) return state.apis.any() ? this.siblingsOf(state) : undefined;
    return families.siblings.size === 0 ? undefined : (tool) => families.siblings.get(tool) ?? [];
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
    // Made now, whatever the catalog's size: the last good links served only until this.
    state.staleFlow = undefined;
    state.loadedFlow ??= loadDataFlow(state, this.#store, this.#sources.catalog);
    this.#saveDropped(state);
    const report = { ...state.report };
    if (!wasLoaded && report.dataFlow !== "per request") this.forget();
    return report;
  }

  /**
   * What catalog changes dropped from storage (`#unsaved`), written once from the state in memory;
   * and the index, when tools were noted since it was stored: every cold load would otherwise re-add
   * them with their API's other operations and recompute every impact (≈ 156 ms of CPU for
   * Microsoft Graph's first route after an eviction), where the preparation pays once.
   */
  #saveDropped(state: Loaded): void {
    if (this.#unsaved.graph) this.#store.saveGraph(state.graph);
    this.#unsaved = { graph: false };
    const index = state.loadedIndex;
    if (index !== undefined && this.#store.hasNotedIndexChanges()) this.#store.saveIndex(index);
  }

  /**
   * `#saveDropped` with the index saved in pieces within `slice` (routing-snapshots.ts
   * `saveIndexInPieces`: Microsoft Graph's whole index held the object ≈ 0.4 s, 1.4 s at load 17);
   * false when the slice ended first, or the catalog changed meanwhile (the next alarm goes on).
   */
  async #saveDroppedInPieces(state: Loaded, slice: WorkSlice): Promise<boolean> {
    const generation = this.#generation;
    // Twice at most: a save begun before this preparation leaves noted the tools noted since it began.
    const index = state.loadedIndex;
    while (index !== undefined && this.#store.hasNotedIndexChanges()) {
      this.#store.saveIndexLater(index);
      if (!(await this.#store.saveIndexInPieces(() => slice.next())) || generation !== this.#generation || this.#state !== state) return false;
    }
    this.#saveDropped(state);
    return true;
  }

  /**
   * `prepare` in pieces (the alarm's, issue 42): the catalog is read a piece at a time
   * (definition-pass.ts) with the object handed back between pieces (`slice`); routes meanwhile
   * answer from the state as it is (last-good-flow.ts). The index and data flow are then made
   * from what the pass kept. False when the slice ended first: the next alarm continues, or
   * starts again when the catalog changed meanwhile.
   */
  async prepareInPieces(slice: WorkSlice): Promise<boolean> {
    const wasLoaded = this.#state !== undefined;
    const state = this.load();
    if (state.loadedFlow !== undefined && state.loadedIndex !== undefined) return this.#saveDroppedInPieces(state, slice);
    const current = this.#pass;
    const run = current !== undefined && current.state === state && current.generation === this.#generation ? current : this.#newPass(state, wasLoaded);
    this.#pass = run;
    state.preparing = true;
    while (!run.pass.step()) if (!(await slice.next())) return false;
    run.flow ??= this.#afterPass(state, run);
    // Data flow's links are computed in pieces too, routes meanwhile using the last good links.
    let step = run.flow.next();
    for (; !step.done && state.loadedFlow === undefined; step = run.flow.next()) {
      if (!(await slice.next()) || run.generation !== this.#generation) return false;
    }
    if (this.#pass !== run || this.#state !== state || run.generation !== this.#generation) return false;
    this.#pass = undefined;
    state.preparing = false;
    if (step.done) state.loadedFlow ??= step.value;
    state.staleFlow = undefined;
    if (!(await this.#saveDroppedInPieces(state, slice))) return false;
    if (!run.wasLoaded && state.report.dataFlow !== "per request") this.forget();
    return true;
  }

  /** The index made (or read) from the documents the pass kept, not the catalog again; then data flow's pieces. */
  #afterPass(state: Loaded, run: PreparationRun): Generator<void, DataFlowLookup> {
    state.preparedDocuments = run.pass.documents;
    void state.index;
    state.preparedDocuments = undefined;
    return dataFlowInPieces(state, this.#store, this.#sources.catalog, run.pass.flowState());
  }

  #newPass(state: Loaded, wasLoaded: boolean): PreparationRun {
    const families = state.loadedIndex === undefined ? this.families(state) : undefined;
    const documentOf = families === undefined ? undefined : (def: ToolDefinition) => this.#document(def, state.hints, families.of(def.name));
    const pass = new DefinitionPass(this.#sources.catalog, new Set(state.defs.keys()), state.hints, documentOf);
    return { pass, state, generation: this.#generation, wasLoaded };
  }

  /** The state with every stored trajectory attached to the graph (exports list them). */
  complete(): Loaded {
    const state = this.load();
    this.#store.completeGraph(state.stored);
    return state;
  }

  /** Keep graph and index in step with the registry (runs inside the registry's transaction). */
  #toolsChanged(change: ToolsChange): void {
    this.#generation += 1;
    const { upserted, removed } = change;
    const state = this.#state;
    const changed = [...upserted.map(({ definition }) => definition.name), ...removed];
    let reindexed: readonly string[] = changed;
    if (state !== undefined) {
      // Loaded before the change is mirrored: the stored index and its noted tools match the rows as
      // they were.
      const index = state.index;
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
      if (namesChange) this.#dropStoredGraph();
      keepLastGoodFlow(state);
      // Siblings are read again per tool: making every tool's (the families) on each change was
      // quadratic over a big import's many batches.
      state.families = undefined;
      state.apis = new ApiSiblingLookup(this.#sources.catalog);
      // Documents include their API's other operations: the changed tools' APIs, before and after, are re-indexed.
      reindexed = [...toolsTouchedBy(change, this.#sources.catalog)];
      for (const name of reindexed) {
        const def = state.defs.get(name);
        if (def !== undefined) index.add(this.#document(def, state.hints, this.#siblingSummaries(state, name)));
      }
      state.relevance.clear();
    }
    this.#store.indexChanged(reindexed, state?.loadedIndex);
    // Any change of the tools may change links anywhere (a field's producers decide whether it is generic).
    this.#dropDataFlow();
    // Not loaded: the next load re-indexes noted tools' current APIs, but a removed tool's API is
    // no longer known, so its operations' stored documents would keep it; rebuild instead.
    if (state === undefined && removed.length > 0) this.#store.dropIndex();
    for (const name of removed) this.#rows.deleteScore(name);
    // Also drops the vectors read so far: changed definitions have new hashes.
    this.#vectors.remove(removed);
  }

  /** The stored edges no longer name the catalog's tools: dropped, the preparation writes them (`#unsaved`). */
  #dropStoredGraph(): void {
    if (this.#unsaved.graph) return;
    this.#store.dropGraph();
    this.#unsaved.graph = true;
  }

  /** No data flow stored for the catalog and too much to stream on a request: the preparation makes it, soon. */
  #flowPreparationWanted(): void {
    if (this.#store.preparationDue() !== null) return;
    this.#store.notePreparation(Date.now());
    this.#sources.preparationNoted?.();
  }

  /** The stored links no longer hold: dropped, and their preparation noted as due. */
  #dropDataFlow(): void {
    this.#store.dropDataFlow(Date.now() + PREPARE_DELAY_MS);
    this.#sources.preparationNoted?.();
  }

  /** A tool's current protocol changed: its document (example queries) and outputs (data flow) follow. */
  #protocolChanged(tool: string): void {
    this.#generation += 1;
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
    if (def !== undefined) state.index.add(this.#document(def, state.hints, this.#siblingSummaries(state, tool)));
    this.#store.indexChanged([tool], state.index);
    keepLastGoodFlow(state);
    state.relevance.clear();
  }
}

/** The links no longer hold after a change: dropped, the last good ones kept for routes of a big catalog until the preparation. */
function keepLastGoodFlow(state: Loaded): void {
  const flow = state.loadedFlow;
  if (flow !== undefined) state.staleFlow = lastGoodFlow(flow, (tool) => state.defs.has(tool));
  state.loadedFlow = undefined;
  state.flowTools = undefined;
}

/** A preparation in pieces under way: its pass, the state and catalog generation it reads, whether the state was in memory before it. */
interface PreparationRun {
  pass: DefinitionPass;
  /** Data flow's computation after the pass, a piece at a time (loaded-data-flow.ts). */
  flow?: Generator<void, DataFlowLookup>;
  state: Loaded;
  generation: number;
  wasLoaded: boolean;
}
