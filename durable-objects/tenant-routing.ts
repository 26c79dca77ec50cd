import {
  addTool,
  addTools,
  addTrajectories,
  applyFeedback,
  candidateSet,
  createGraph,
  END,
  exportGraph,
  loadGraph,
  removeTool,
  START,
  successors,
  ToolGraphError,
  transitionWeights,
  updateSettings,
  type CandidateSet,
  type Evaluation,
  type FeedbackResult,
  type GraphSettings,
  type StaticImportResult,
  type ToolGraph,
  type ToolGraphSnapshot,
  type Trajectory,
} from "../functions/routing/graph";
import { hybridSearch, toolDocument, ToolIndex } from "../functions/routing/retrieval";
import { DEFAULT_MAX_TOKENS, fitToBudget, toolViews, type BudgetedAnswer, type ToolViews } from "../functions/routing/answer-budget";
import type { ToolDefinition } from "../functions/tools/definition";
import { allRows, oneRow, run } from "./sql";

export interface RouteAnswer extends BudgetedAnswer {
  previous: string | null;
  via: "retrieval" | "retrieval+embeddings" | "graph";
}

/** A route answer's token budget: the request's, else the tenant's setting, else the service's. */
export interface RouteOptions {
  maxTokens?: number;
}

/** The compact views of a tool as shown with a given description (stored; see tenant-tool-views.ts). */
export type ViewsOf = (tool: string, shown: ToolDefinition, description: string | undefined) => ToolViews;

const SHORT_DESCRIPTION_CHARS = 160;

function shortDescription(def: ToolDefinition | undefined): string {
  const text = (def?.summary ?? def?.description ?? "").replace(/\s+/g, " ").trim();
  return text.length > SHORT_DESCRIPTION_CHARS ? `${text.slice(0, SHORT_DESCRIPTION_CHARS - 1)}…` : text;
}

/**
 * A tenant's ToolNet state: the weighted tool graph and the retrieval index over tool documents,
 * held in memory and persisted as rows (trajectories, scores, settings). Every method is
 * synchronous, so within the Durable Object no two updates interleave: concurrent feedback is
 * applied one at a time and a read never sees half an update.
 */
export class TenantRouting {
  readonly #sql: SqlStorage;
  readonly #definitions: () => Map<string, ToolDefinition>;
  #graph: ToolGraph | undefined;
  #index: ToolIndex | undefined;
  #defs: Map<string, ToolDefinition> | undefined;
  /** Tool embeddings by model name: tool → vector (computed once per definition, at registration). */
  #vectors: Map<string, Map<string, number[]>> | undefined;

  readonly #descriptions: () => Map<string, string>;
  readonly #views: ViewsOf;

  constructor(
    sql: SqlStorage,
    definitions: () => Map<string, ToolDefinition>,
    descriptions: () => Map<string, string> = () => new Map(),
    views: ViewsOf = (_tool, shown) => toolViews(shown),
  ) {
    this.#sql = sql;
    this.#definitions = definitions;
    this.#descriptions = descriptions;
    this.#views = views;
  }

  /** The tenant's default answer budget (`setting:routing`), else the service's. */
  #maxTokens(): number {
    const json = oneRow<{ value: string }>(this.#sql, "SELECT value FROM tenant_meta WHERE key = 'setting:routing'")?.value;
    const stored = json === undefined ? undefined : (JSON.parse(json) as { maxTokens?: number }).maxTokens;
    return stored ?? DEFAULT_MAX_TOKENS;
  }

  #settings(): GraphSettings | undefined {
    const json = oneRow<{ value: string }>(this.#sql, "SELECT value FROM tenant_meta WHERE key = 'setting:graph'")?.value;
    return json === undefined ? undefined : (JSON.parse(json) as GraphSettings);
  }

  /** Build the in-memory graph and index from storage, once per object lifetime. */
  #load(): { graph: ToolGraph; index: ToolIndex; defs: Map<string, ToolDefinition> } {
    if (this.#graph !== undefined && this.#index !== undefined && this.#defs !== undefined) {
      return { graph: this.#graph, index: this.#index, defs: this.#defs };
    }
    const defs = this.#definitions();
    const graph = createGraph(this.#settings());
    addTools(graph, [...defs.keys()]);
    for (const row of allRows<{ tool: string; score: number }>(this.#sql, "SELECT tool, score FROM graph_scores")) {
      const node = graph.tools.get(row.tool);
      if (node !== undefined) node.score = row.score;
    }
    const trajectories = allRows<{ id: string; tools: string }>(this.#sql, "SELECT id, tools FROM graph_trajectories ORDER BY rowid").map(
      (row) => ({ id: row.id, tools: JSON.parse(row.tools) as string[] }),
    );
    // Stored trajectories may name tools deleted since; their transitions simply do not count.
    addTrajectories(graph, trajectories, { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER });
    const index = ToolIndex.build([...defs.values()].map(toolDocument));
    this.#graph = graph;
    this.#index = index;
    this.#defs = defs;
    return { graph, index, defs };
  }

  /** Stored tool vectors of one embeddings model (only those of current definitions). */
  #embeddings(model: string): Map<string, number[]> {
    this.#vectors ??= new Map();
    let vectors = this.#vectors.get(model);
    if (vectors === undefined) {
      vectors = new Map(
        allRows<{ tool: string; vector: string }>(
          this.#sql,
          "SELECT e.tool, e.vector FROM tool_embeddings e JOIN tenant_tools t ON t.name = e.tool AND t.hash = e.hash WHERE e.model = ?",
          model,
        ).map((row) => [row.tool, JSON.parse(row.vector) as number[]]),
      );
      this.#vectors.set(model, vectors);
    }
    return vectors;
  }

  /** Tools whose embedding (for this model) is missing or was made for an older definition. */
  toolsNeedingEmbeddings(model: string): { name: string; hash: string }[] {
    return allRows<{ name: string; hash: string }>(
      this.#sql,
      "SELECT t.name, t.hash FROM tenant_tools t LEFT JOIN tool_embeddings e ON e.tool = t.name AND e.model = ? WHERE e.hash IS NULL OR e.hash <> t.hash",
      model,
    );
  }

  /** Store tool embeddings computed by the Worker. */
  storeEmbeddings(model: string, entries: { tool: string; hash: string; vector: number[] }[]): void {
    for (const entry of entries) {
      run(
        this.#sql,
        "INSERT INTO tool_embeddings (tool, hash, model, vector) VALUES (?, ?, ?, ?) ON CONFLICT (tool) DO UPDATE SET hash = excluded.hash, model = excluded.model, vector = excluded.vector",
        entry.tool,
        entry.hash,
        model,
        JSON.stringify(entry.vector),
      );
    }
    this.#vectors = undefined;
  }

  /** Keep graph and index in step with the registry (called inside the registry's transaction). */
  toolsChanged(upserted: ToolDefinition[], removed: string[]): void {
    if (this.#graph === undefined || this.#index === undefined || this.#defs === undefined) return;
    for (const def of upserted) {
      addTool(this.#graph, def.name);
      this.#index.remove(def.name);
      this.#index.add(toolDocument(def));
      this.#defs.set(def.name, def);
    }
    for (const name of removed) {
      removeTool(this.#graph, name);
      this.#index.remove(name);
      this.#defs.delete(name);
    }
    if (removed.length > 0) {
      for (const name of removed) {
        run(this.#sql, "DELETE FROM graph_scores WHERE tool = ?", name);
        run(this.#sql, "DELETE FROM tool_embeddings WHERE tool = ?", name);
      }
    }
    this.#vectors = undefined;
  }

  /**
   * Candidate next tools. From the start (no previous tool): lexical retrieval over tool
   * documents. After a tool: its successors in the graph, by learned weight (eq. 4).
   */
  route(
    task: string,
    previous: string | null,
    k: number,
    query?: { model: string; vector: number[] },
    options: RouteOptions = {},
  ): RouteAnswer | { unknownPrevious: string } | { budgetTooSmall: string } {
    const { graph, index, defs } = this.#load();
    if (previous !== null && !graph.tools.has(previous)) return { unknownPrevious: previous };
    let ranked: { tool: string; weight: number }[];
    if (previous === null) {
      const vectors = query === undefined ? undefined : this.#embeddings(query.model);
      const hits = vectors === undefined || vectors.size === 0 || query === undefined ? index.search(task, k) : hybridSearch(index, task, query.vector, vectors, { k });
      const top = hits[0]?.score ?? 1;
      // Retrieval scores are not transition weights; they are scaled to the same 0–1000 range
      // so the prompt reads the same at every step.
      ranked = hits.map((hit) => ({ tool: hit.name, weight: Math.round((hit.score / top) * 1000) }));
    } else {
      ranked = successors(graph, previous, k, { includeEnd: true }).map((r) => ({ tool: r.tool, weight: r.weight }));
    }
    // A probed (model-written) or optimised description replaces the registered one, as in runs.
    const better = this.#descriptions();
    const current = (tool: string): ToolDefinition | undefined => {
      const def = defs.get(tool);
      const description = better.get(tool);
      return def === undefined || description === undefined ? def : { ...def, summary: undefined, description };
    };
    // Last step: the ranked list within the token budget (answer-budget.ts).
    const fitted = fitToBudget({
      previous: previous ?? START,
      maxTokens: options.maxTokens ?? this.#maxTokens(),
      ranked: ranked.map((r) => {
        const def = r.tool === END ? undefined : current(r.tool);
        const views = def === undefined ? undefined : this.#views(r.tool, def, better.get(r.tool));
        return { tool: r.tool, weight: r.weight, description: shortDescription(def), ...(views === undefined ? {} : { views }) };
      }),
    });
    if (!fitted.ok) return { budgetTooSmall: fitted.message };
    const fused = previous === null && query !== undefined && (this.#vectors?.get(query.model)?.size ?? 0) > 0;
    return { previous, via: previous === null ? (fused ? "retrieval+embeddings" : "retrieval") : "graph", ...fitted.answer };
  }

  /** Tools for a run: retrieval seeds plus their strongest successors, within a token budget. */
  candidates(task: string, options: { seeds: number; hops: number; maxTools: number; tokenBudget: number }): CandidateSet {
    const { graph, index, defs } = this.#load();
    const seeds = index.search(task, options.seeds).map((hit) => hit.name);
    const costOf = (tool: string): number => Math.ceil(JSON.stringify(defs.get(tool) ?? {}).length / 4);
    return candidateSet(graph, seeds, { hops: options.hops, maxTools: options.maxTools, tokenBudget: options.tokenBudget, costOf });
  }

  /** Static construction (eq. 5): import trajectories; idempotent per trajectory id. */
  importTrajectories(trajectories: Trajectory[], unknownTools: "error" | "skip"): StaticImportResult {
    const { graph } = this.#load();
    const result = addTrajectories(graph, trajectories, { unknownTools });
    for (const t of trajectories) {
      run(this.#sql, "INSERT INTO graph_trajectories (id, tools) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", t.id, JSON.stringify(t.tools));
    }
    return result;
  }

  /** Dynamic construction (eq. 6–8): apply evaluator scores and persist the new accumulated scores. */
  applyScores(evaluation: Evaluation): FeedbackResult {
    const { graph } = this.#load();
    const result = applyFeedback(graph, evaluation);
    for (const update of result.updated) {
      run(
        this.#sql,
        "INSERT INTO graph_scores (tool, score) VALUES (?, ?) ON CONFLICT (tool) DO UPDATE SET score = excluded.score",
        update.tool,
        update.score,
      );
    }
    return result;
  }

  settings(): GraphSettings {
    return { ...this.#load().graph.settings };
  }

  /** Change α or β; validated by the graph module. */
  updateSettings(partial: Partial<GraphSettings>): GraphSettings {
    const { graph } = this.#load();
    const settings = updateSettings(graph, partial);
    run(
      this.#sql,
      "INSERT INTO tenant_meta (key, value) VALUES ('setting:graph', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      JSON.stringify(settings),
    );
    return settings;
  }

  /** Observed transitions with their current weights (eq. 6), for pictures of the graph. */
  weightedEdges(): { nodes: { tool: string; score: number }[]; edges: { from: string; to: string; count: number; weight: number }[] } {
    const { graph } = this.#load();
    const snapshot = exportGraph(graph);
    const observed = new Set(snapshot.edges.map((e) => `${e.from}\u0000${e.to}`));
    const counts = new Map(snapshot.edges.map((e) => [`${e.from}\u0000${e.to}`, e.count]));
    const edges: { from: string; to: string; count: number; weight: number }[] = [];
    for (const from of [START, ...graph.tools.keys()]) {
      for (const { to, weight } of transitionWeights(graph, from)) {
        const key = `${from}\u0000${to}`;
        if (observed.has(key)) edges.push({ from, to, count: counts.get(key) ?? 0, weight });
      }
    }
    return { nodes: snapshot.nodes, edges };
  }

  snapshot(): ToolGraphSnapshot {
    return exportGraph(this.#load().graph);
  }

  /**
   * Replace the learned state (trajectories, scores, settings) with an exported snapshot. Tools
   * themselves stay as registered: snapshot nodes that are not registered tools are reported.
   */
  replaceWith(data: unknown): { missingTools: string[] } {
    const snapshot = loadGraph(data); // validates fully before anything is written
    const exported = exportGraph(snapshot);
    const { defs } = this.#load();
    run(this.#sql, "DELETE FROM graph_trajectories");
    run(this.#sql, "DELETE FROM graph_scores");
    for (const t of exported.trajectories) run(this.#sql, "INSERT INTO graph_trajectories (id, tools) VALUES (?, ?)", t.id, JSON.stringify(t.tools));
    for (const n of exported.nodes) run(this.#sql, "INSERT INTO graph_scores (tool, score) VALUES (?, ?)", n.tool, n.score);
    run(
      this.#sql,
      "INSERT INTO tenant_meta (key, value) VALUES ('setting:graph', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      JSON.stringify(exported.settings),
    );
    this.#graph = undefined;
    this.#index = undefined;
    this.#defs = undefined;
    return { missingTools: exported.nodes.map((n) => n.tool).filter((tool) => !defs.has(tool)) };
  }

  /** Forget the in-memory state (tests use it to prove a reload restores everything). */
  evictMemory(): void {
    this.#graph = undefined;
    this.#index = undefined;
    this.#defs = undefined;
  }
}

export { ToolGraphError };
