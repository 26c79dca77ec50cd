import {
  addTrajectories,
  applyFeedback,
  END,
  exportGraph,
  learnedSuccessors,
  loadGraph,
  promptWeight,
  removeTrajectory,
  START,
  graphStepSuccessors,
  ToolGraphError,
  transitionWeight,
  transitionWeights,
  updateSettings,
  type Evaluation,
  type FeedbackResult,
  type GraphSettings,
  type StaticImportResult,
  type ToolGraphSnapshot,
  type Trajectory,
} from "../toolnet/graph";
import { applyFeedbackBatch } from "../toolnet/graph/feedback-batch";
import { attachTrajectories } from "../toolnet/graph/graph-codec";
import { hybridTwoWays, type Ranked, searchCoveringWords, searchTwoWays, type SiblingsOf } from "../toolnet/retrieval";
import {
  answerJson,
  DEFAULT_ANSWER_PARTS,
  DEFAULT_MAX_TOKENS,
  fitToBudgetAsEntries,
  withToolObjects,
  type AnswerPart,
  type BudgetedAnswer,
  type ShownEntry,
} from "../toolnet/answer-budget";
import type { OpenAiTool } from "../toolnet/openai-tools";
import { laterStepPrior, laterStepPriorRanks } from "../toolnet/later-step-prior";
import { fuseFirstStep, fuseNextStep, fuseRunCandidates, type FeedersOf, type FusedCandidate, type RunCandidateSet, type Why } from "../toolnet/signal-fusion";
import type { RouteFallback } from "../toolnet/route-fallback";
import type { DataFlowSource } from "../toolnet/data-flow";
import type { DataFlowLookup } from "../toolnet/data-flow-links";
import { fillToK, routeStandIns } from "../toolnet/route-fill";
import { callableAsAsked, withUnfitLower } from "../toolnet/task-fit";
import { LATER_STEP_MIN_SIMILARITY } from "../toolnet/task-memory";
import type { ToolDefinition } from "../tools/definition";
import { failure, success, type Outcome } from "../common/failures";
import { MODEL_SETTING, storedEmbeddingModel } from "../tenants/stored-model-override";
import type { TenantEvents } from "./tenant-events";
import type { TenantSettings } from "./tenant-settings";
import { MAX_PENDING_TRAJECTORIES, RoutingSnapshots, type LoadReport } from "./routing-snapshots";
import { allRows, oneRow, run } from "./sql";
import type { ShownTool, StoredToolViews, ViewsWarmth } from "./tenant-tool-views";
import { LoadedRouting, type Loaded, type StateSources, type TaskRelevance } from "./loaded-routing";
import { ToolVectors } from "./tool-vectors";

/** `fused`: every signal (default); `graph`: the paper's eq. 4, successors by learned weight only. */
export type RouteMode = "fused" | "graph";

/** `routeUnlessEmbedded`'s answer when the tenant's embeddings model should embed the task first. */
export interface TaskVectorWanted {
  taskVectorWanted: string;
}

/** `Tool`: the `tools` entries as objects (the default), or as their JSON text (`ShownEntry`) for an answer sent as text. */
export interface RouteAnswer<Tool = OpenAiTool> extends BudgetedAnswer<Tool> {
  previous: string | null;
  via: "retrieval" | "retrieval+embeddings" | "graph" | "fused";
  /** Set when nothing matched the task as written and another ranking stood in. */
  fallback?: RouteFallback;
}

/** A route answer's token budget (the request's, else the tenant's setting, else the service's), mode and parts. */
export interface RouteOptions {
  maxTokens?: number;
  mode?: RouteMode;
  /** What the answer returns (answer-budget.ts); default the tenant's setting, else the `tools` array only. */
  include?: readonly AnswerPart[];
}

/** The compact views and costs of a tool as shown with a given description (stored; see tenant-tool-views.ts). */
export type ViewsOf = (tool: string, shown: ToolDefinition, description: string | undefined) => StoredToolViews;

/** What routing reads from the tenant's other stores (it owns none of their tables). */
export interface RoutingSources {
  /** The registry's tools: names, stored definitions (one, or all one at a time), servers and summaries, current definition hashes. */
  catalog: StateSources["catalog"] & { hashes(): Map<string, string> };
  /** A preparation of the routing state was noted as due: the tenant object arms its alarm for it. */
  preparationNoted?: () => void;
  /** Replacement descriptions of current protocols (tenant-protocols.ts). */
  descriptions: () => Map<string, string>;
  /** Routing hints (JSON) of current protocols made for the tools' current definitions. */
  routingHints: () => Map<string, string>;
  /** Run-prompt tokens of current protocols made for the tools' current definitions (schema and example shown). */
  protocolRunTokens: () => Map<string, number>;
  views: ViewsOf;
  /** `views` of each registered tool an answer shows, with its one-line description, by tool (the unread ones in one read). */
  viewsEach: (wanted: readonly ShownTool[]) => Map<string, StoredToolViews>;
  /** How much of the catalog's stored views is in memory (tenant-tool-views.ts). */
  viewsWarmth: () => ViewsWarmth;
  settings: TenantSettings;
  events: TenantEvents;
}

/** A data-flow lookup's name lookups, when it answers them apart from its producers. */
function nameLookupsOf(flow: DataFlowLookup): ((tool: string) => readonly DataFlowSource[]) | undefined {
  return flow.nameLookups === undefined ? undefined : (tool) => flow.nameLookups?.(tool) ?? [];
}

/** A data-flow lookup's leading producers of opaque inputs, when it answers them apart from its producers. */
function feedersOf(flow: DataFlowLookup): FeedersOf | undefined {
  return flow.feeders === undefined ? undefined : (tool, count) => flow.feeders?.(tool, count) ?? [];
}

/** A failed preparation of the routing state is tried again this much later. */
const PREPARATION_RETRY_MS = 10 * 60_000;

/** How deep the task-relevance ranking goes before fusion. */
const RELEVANCE_DEPTH = 30;

/** A tool as routing and runs show it: a probed or optimised description replaces the registered one. */
function shownDefinition(def: ToolDefinition | undefined, description: string | undefined): ToolDefinition | undefined {
  return def === undefined || description === undefined ? def : { ...def, summary: undefined, description };
}

/**
 * A tenant's ToolNet, as the Worker calls it: route answers, run candidate sets, learning from
 * trajectories and feedback, the graph's settings, export and import. The state it works on
 * (graph, index, data flow, task memory) is loaded and kept in step by loaded-routing.ts. Every
 * method is synchronous, so within the Durable Object no two updates interleave.
 */
/** A tool of a route answer before it is shown: its weight, and why it was ranked. */
type RankedTool = { tool: string; weight: number; why?: Why };

export class TenantRouting {
  readonly #sql: SqlStorage;
  readonly #sources: RoutingSources;
  readonly #store: RoutingSnapshots;
  readonly #states: LoadedRouting;
  /** Score rows written, and the flushes of single updates that wrote them (tests and benchmarks). */
  readonly #scoreWrites = { rows: 0, flushes: 0 };
  /** Tool embeddings by model (computed once per definition, at registration). */
  readonly #vectors: ToolVectors;
  /** Preparations run since the object started (tests and benchmarks). */
  #preparations = 0;
  /** Task rankings computed (not found in the memo) since the object started: tests count them. */
  protected relevanceSearches = 0;

  constructor(sql: SqlStorage, sources: RoutingSources) {
    this.#sql = sql;
    this.#sources = sources;
    this.#vectors = new ToolVectors(sql, () => sources.catalog.hashes());
    this.#store = new RoutingSnapshots(sql, {
      after: (rowid) =>
        allRows<{ id: string; tools: string }>(sql, "SELECT id, tools FROM graph_trajectories WHERE rowid > ? ORDER BY rowid", rowid).map((row) => ({
          id: row.id,
          tools: JSON.parse(row.tools) as string[],
        })),
      lastRow: () => oneRow<{ last: number | null }>(sql, "SELECT MAX(rowid) AS last FROM graph_trajectories")?.last ?? 0,
    });
    this.#states = new LoadedRouting(sql, sources, this.#store, this.#vectors);
  }

  #descriptions(): Map<string, string> {
    return this.#sources.descriptions();
  }

  #views(tool: string, shown: ToolDefinition, description: string | undefined): StoredToolViews {
    return this.#sources.views(tool, shown, description);
  }

  /** The tenant's default answer budget and parts (`setting:routing`), else the service's. */
  #answerDefaults(): { maxTokens: number; include: readonly AnswerPart[] } {
    const json = this.#sources.settings.get("routing");
    const stored = json === undefined ? {} : (JSON.parse(json) as { maxTokens?: number; include?: AnswerPart[] });
    return { maxTokens: stored.maxTokens ?? DEFAULT_MAX_TOKENS, include: stored.include ?? DEFAULT_ANSWER_PARTS };
  }

  /** When preparing the routing state after a catalog change is due (ms since the epoch), or null when it is not. */
  preparationDue(): number | null {
    return this.#store.preparationDue();
  }

  /**
   * The tenant object's alarm: when a preparation is due at `now`, the index and data-flow table
   * are made and stored (loaded-routing.ts `prepare`), so that the first request after a catalog
   * change reads them. A failure is retried later; requests meanwhile compute what they need.
   */
  prepareIfDue(now: number): LoadReport | undefined {
    const due = this.#store.preparationDue();
    if (due === null || due > now) return undefined;
    try {
      return this.prepare();
    } catch (error) {
      console.warn(`routing preparation failed, retried later: ${error instanceof Error ? error.message : String(error)}`);
      this.#store.notePreparation(now + PREPARATION_RETRY_MS);
      return undefined;
    }
  }

  /** Prepares the routing state now, due or not (the alarm, and benchmarks timing it): see `prepareIfDue`. */
  prepare(): LoadReport {
    const report = this.#states.prepare();
    this.#store.preparationDone();
    this.#preparations += 1;
    return report;
  }

  /** How many preparations ran since the object started (tests and benchmarks). */
  preparations(): number {
    return this.#preparations;
  }

  /** How the current in-memory state was loaded (loads it when needed). */
  loadReport(): LoadReport {
    const state = this.#states.load();
    void state.index;
    return { ...state.report };
  }

  /** Which parts of the state are in memory now, without loading any (tests and benchmarks). */
  loadedParts(): { loaded: boolean; index: boolean; memory: boolean; apis: boolean; definitions: number } {
    const state = this.#states.current;
    return {
      loaded: state !== undefined,
      index: state?.loadedIndex !== undefined,
      memory: state?.loadedMemory !== undefined,
      apis: state?.families !== undefined,
      definitions: state?.defs.parsedCount ?? 0,
    };
  }

  /** How much of the catalog's stored views is in memory now (tests and benchmarks). */
  viewsWarmth(): ViewsWarmth {
    return this.#sources.viewsWarmth();
  }

  /** Definitions parsed since the in-memory state was loaded, streamed ones included (tests and benchmarks). */
  definitionParses(): number {
    return this.#states.current?.defs.parses ?? 0;
  }

  /** Tools whose embedding (for this model) is missing or was made for an older definition. */
  toolsNeedingEmbeddings(model: string): { name: string; hash: string }[] {
    return this.#vectors.missing(model);
  }

  /** Store tool embeddings computed by the Worker. */
  storeEmbeddings(model: string, entries: { tool: string; hash: string; vector: number[] }[]): void {
    this.#vectors.store(model, entries);
    this.#states.current?.relevance.clear();
  }

  /**
   * Task relevance: BM25, fused with embeddings when the task was embedded. A chat routes the
   * same task at every step, so recent rankings are kept (relevance-memo.ts), each for the index
   * version it was computed against, and a chat's later step does not search again. Both rankings
   * come from one search: `firstStep` weighs API evidence (api-evidence.ts), `ranked` (a later
   * step's) does not.
   */
  #relevance(state: Loaded, task: string, depth: number, query: { model: string; vector: number[] } | undefined): TaskRelevance {
    const index = state.index;
    return state.relevance.ranking({ task, depth, model: query?.model }, index.version, () => {
      this.relevanceSearches += 1;
      const vectors = query === undefined ? undefined : this.#vectors.of(query.model);
      // The APIs are read only when a first step's ranking is made (a later step's needs none).
      let apis: SiblingsOf | undefined | null = null;
      const siblingsOf: SiblingsOf = (tool) => {
        if (apis === null) apis = this.#states.apiSiblingsOf(state);
        return apis?.(tool) ?? [];
      };
      const embedded = vectors !== undefined && vectors.size > 0 && query !== undefined;
      const both = embedded
        ? hybridTwoWays(index, task, query.vector, vectors, {
            k: depth,
            canLead: callableAsAsked(task, (tool) => state.saidNumbers.unfitAmong([tool])(tool)),
            siblingsOf,
          })
        : searchTwoWays(index, task, depth, { siblingsOf });
      // A later step's ranking is made when a later step first reads it (memoised with the first step's).
      return {
        get ranked(): Ranked[] {
          return both.plain;
        },
        get firstStep(): Ranked[] {
          return both.withApis;
        },
        embedded,
      };
    });
  }

  /**
   * Candidate next tools. Fused (default): at the first step, retrieval over tool documents
   * fused with the votes of this tenant's similar earlier tasks; after a tool, its learned
   * successors (eq. 6), task relevance and data-flow successors, each candidate with its `why`,
   * and Finish. `graph`: the paper's eq. 4, successors by learned weight. A tenant with tools
   * never gets an empty answer: when nothing matches, a named fallback ranking stands in.
   */
  route(task: string, previous: string | null, k: number, query?: { model: string; vector: number[] }, options: RouteOptions = {}): Outcome<RouteAnswer> {
    const answer = this.#route(task, previous, k, query, options);
    return answer.ok ? success(withToolObjects(answer.value)) : answer;
  }

  /**
   * `route` without a task vector, unless this tenant's own model settings name an embeddings
   * model: then it asks for the task's vector instead of answering (the Worker embeds the task and
   * calls `route`). The hot path, with no embeddings, is this one call: no settings read travels
   * beside it.
   */
  routeUnlessEmbedded(task: string, previous: string | null, k: number, options: RouteOptions = {}): Outcome<RouteAnswer | TaskVectorWanted> {
    const wanted = this.#taskVectorWanted();
    return wanted !== undefined ? success(wanted) : this.route(task, previous, k, undefined, options);
  }

  #taskVectorWanted(): TaskVectorWanted | undefined {
    const model = storedEmbeddingModel(this.#sources.settings.get(MODEL_SETTING));
    return model === undefined ? undefined : { taskVectorWanted: model };
  }

  /**
   * `route`, with the answer as the JSON text the HTTP API sends: one string crosses RPC instead
   * of the answer's objects, and the Worker sends it as it is (no copy there to serialise again).
   */
  routeJson(task: string, previous: string | null, k: number, query?: { model: string; vector: number[] }, options: RouteOptions = {}): Outcome<string> {
    const answer = this.#route(task, previous, k, query, options);
    // The shown views' JSON text (stored with them) is spliced in, not parsed and serialised again.
    return answer.ok ? success(answerJson(answer.value)) : answer;
  }

  /** `routeUnlessEmbedded`, with the answer as JSON text (see `routeJson`). */
  routeJsonUnlessEmbedded(task: string, previous: string | null, k: number, options: RouteOptions = {}): Outcome<string | TaskVectorWanted> {
    const wanted = this.#taskVectorWanted();
    return wanted !== undefined ? success(wanted) : this.routeJson(task, previous, k, undefined, options);
  }

  #route(
    task: string,
    previous: string | null,
    k: number,
    query: { model: string; vector: number[] } | undefined,
    options: RouteOptions,
  ): Outcome<RouteAnswer<ShownEntry>> {
    const answer = this.#answer(task, previous, k, query, options);
    if ("unknownPrevious" in answer) return failure("not-found", `No tool named ${answer.unknownPrevious}.`);
    if ("budgetTooSmall" in answer) return failure("invalid-request", answer.budgetTooSmall);
    return success(answer);
  }

  #answer(
    task: string,
    previous: string | null,
    k: number,
    query: { model: string; vector: number[] } | undefined,
    options: RouteOptions,
  ): RouteAnswer<ShownEntry> | { unknownPrevious: string } | { budgetTooSmall: string } {
    const mode = options.mode ?? "fused";
    const state = this.#states.load();
    if (previous !== null && !state.graph.tools.has(previous)) return { unknownPrevious: previous };
    const { ranked, via, fallback } =
      previous !== null && mode === "graph"
        ? {
            ranked: graphStepSuccessors(state.graph, previous, k, { includeEnd: true }).map((r) => ({ tool: r.tool, weight: r.weight })),
            via: "graph" as const,
          }
        : this.#fusedRanking(state, task, previous, k, query, mode);
    const fitted = this.#fitAnswer(state, ranked, previous, mode, options);
    if (!fitted.ok) return { budgetTooSmall: fitted.message };
    return { previous, via, ...(fallback === undefined ? {} : { fallback }), ...fitted.answer };
  }

  /** The fused ranking of a first or later step, filled to k with stand-ins, weights scaled; a later step ends with END. */
  #fusedRanking(
    state: Loaded,
    task: string,
    previous: string | null,
    k: number,
    query: { model: string; vector: number[] } | undefined,
    mode: NonNullable<RouteOptions["mode"]>,
  ): { ranked: RankedTool[]; via: RouteAnswer["via"]; fallback: RouteFallback | undefined } {
    const { graph, defs } = state;
    const relevance = this.#relevance(state, task, Math.max(k, RELEVANCE_DEPTH), query);
    let fused: FusedCandidate[];
    let via: RouteAnswer["via"];
    if (previous === null) {
      const firstStep = relevance.firstStep;
      const history = mode === "fused" ? state.memory.votes(task, { tools: "first" }) : [];
      fused = fuseFirstStep({
        relevance: withUnfitLower(firstStep, task, state.saidNumbers.unfitAmong(firstStep.map((r) => r.name))),
        history,
        ...(mode === "fused"
          ? {
              task,
              producersOf: (tool: string) => state.flow.producers(tool),
              nameLookupsOf: nameLookupsOf(state.flow),
              feedersOf: feedersOf(state.flow),
              siblingsOf: (tool: string) => this.#states.siblings(state).get(tool) ?? [],
            }
          : {}),
      });
      via = relevance.embedded ? "retrieval+embeddings" : "retrieval";
    } else {
      const history = mode === "fused" ? state.memory.votes(task, { tools: { after: previous }, minSimilarity: LATER_STEP_MIN_SIMILARITY }) : [];
      fused = fuseNextStep({
        previous,
        learned: learnedSuccessors(graph, previous),
        relevance: relevance.ranked,
        dataFlow: state.flow.successors(previous),
        history,
        prior: laterStepPrior(graph),
        priorRanks: laterStepPriorRanks(graph),
        // The answer shows the best k (fillToK reads no further): at 10,000 tools the prior holds nearly all of them.
        take: k,
      });
      via = "fused";
    }
    // Never fewer than k (or every tool): stand-ins fill what the task's words did not.
    // At a later step the previous tool is not a stand-in (it is offered only when observed to repeat).
    const others = previous === null || fused.some((c) => c.tool === previous) ? [] : [previous];
    const filled = fillToK(
      fused,
      Math.min(k, graph.tools.size - others.length),
      routeStandIns({
        index: state.index,
        graph,
        defs,
        flow: state.flow,
        siblingsOf: (tool) => this.#states.siblings(state).get(tool) ?? [],
        task,
        previous,
        best: fused[0]?.tool,
      }),
      others,
    );
    const ranked: RankedTool[] = scaleWeights(filled.ranked.slice(0, k));
    if (previous !== null) ranked.push({ tool: END, weight: promptWeight(transitionWeight(graph, previous, END)) });
    return { ranked, via, fallback: filled.fallback };
  }

  /** The last step: the ranked tools as shown (probed or optimised descriptions first), within the token budget (answer-budget.ts). */
  #fitAnswer(state: Loaded, ranked: RankedTool[], previous: string | null, mode: NonNullable<RouteOptions["mode"]>, options: RouteOptions) {
    // A probed (model-written) or optimised description replaces the registered one, as in runs.
    const better = this.#descriptions();
    const defaults = this.#answerDefaults();
    // Stored views and one-line descriptions: a definition is parsed only when its views must be computed.
    const views = this.#sources.viewsEach(
      ranked.flatMap((r) =>
        r.tool === END ? [] : [{ tool: r.tool, description: better.get(r.tool), shown: () => shownDefinition(state.defs.get(r.tool), better.get(r.tool)) }],
      ),
    );
    return fitToBudgetAsEntries({
      previous: previous ?? START,
      maxTokens: options.maxTokens ?? defaults.maxTokens,
      weights: mode === "graph" ? "transitions" : "fused",
      include: options.include ?? defaults.include,
      ranked: ranked.map((r) => {
        const shown = views.get(r.tool);
        return {
          tool: r.tool,
          weight: r.weight,
          // Finish is described by the answer itself (answer-budget.ts).
          description: shown?.line ?? "",
          ...(shown === undefined ? {} : { views: shown }),
          ...(r.why === undefined ? {} : { why: r.why }),
        };
      }),
    });
  }

  /**
   * Tools for a run: retrieval, similar earlier tasks, and the learned and data-flow successors of
   * the best of them, in one fused ranking, taken best first within `maxTools` and `tokenBudget`.
   * A tool costs the tokens the run prompt shows for it (typed signature and description, and
   * with a current protocol its response schema and example), as stored.
   */
  candidates(task: string, options: { seeds: number; maxTools: number; tokenBudget: number }): RunCandidateSet {
    const state = this.#states.load();
    const better = this.#descriptions();
    const protocolTokens = this.#sources.protocolRunTokens();
    const relevance = searchCoveringWords(state.index, task, Math.max(RELEVANCE_DEPTH, options.maxTools * 3), {
      siblingsOf: this.#states.apiSiblingsOf(state),
    });
    return fuseRunCandidates({
      task,
      relevance: withUnfitLower(relevance, task, state.saidNumbers.unfitAmong(relevance.map((r) => r.name))),
      history: state.memory.votes(task, { tools: "all" }),
      seeds: options.seeds,
      learnedAfter: (tool) => learnedSuccessors(state.graph, tool),
      dataFlowAfter: (tool) => state.flow.successors(tool),
      producersOf: (tool) => state.flow.producers(tool),
      nameLookupsOf: nameLookupsOf(state.flow),
      feedersOf: feedersOf(state.flow),
      siblingsOf: (tool) => this.#states.siblings(state).get(tool) ?? [],
      maxTools: options.maxTools,
      tokenBudget: options.tokenBudget,
      // The stored figure of what the run prompt shows: with a current protocol, its signature with
      // the protocol's schema and example (recorded with the version), else tool_views.run_tokens.
      costOf: (tool) => {
        const recorded = protocolTokens.get(tool);
        if (recorded !== undefined) return recorded;
        const description = better.get(tool);
        const def = shownDefinition(state.defs.get(tool), description);
        return def === undefined ? 0 : this.#views(tool, def, description).runTokens;
      },
    });
  }

  /** Static construction (eq. 5): import trajectories; idempotent per trajectory id. A task text teaches the first step. */
  importTrajectories(trajectories: (Trajectory & { task?: string | undefined })[], unknownTools: "error" | "skip"): Outcome<StaticImportResult> {
    return graphOutcome(() => this.#importTrajectories(trajectories, unknownTools));
  }

  #importTrajectories(trajectories: (Trajectory & { task?: string | undefined })[], unknownTools: "error" | "skip"): StaticImportResult {
    const state = this.#states.load();
    const { graph } = state;
    if (!state.stored.complete) {
      // Known ids are checked against what was stored under them (same tools: unchanged; other
      // tools: a conflict), without attaching every stored trajectory.
      const known = trajectories.flatMap((t) =>
        allRows<{ id: string; tools: string }>(this.#sql, "SELECT id, tools FROM graph_trajectories WHERE id = ?", t.id),
      );
      attachTrajectories(
        graph,
        known.map((row) => ({ id: row.id, tools: JSON.parse(row.tools) as string[] })),
      );
    }
    const result = addTrajectories(graph, trajectories, { unknownTools });
    for (const t of trajectories) {
      const written = run(
        this.#sql,
        "INSERT INTO graph_trajectories (id, tools, task) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
        t.id,
        JSON.stringify(t.tools),
        t.task ?? null,
      );
      // A memory not built yet reads this row when it is.
      if (written > 0 && t.task !== undefined) state.loadedMemory?.add({ id: t.id, task: t.task, tools: t.tools });
    }
    state.stored.pendingTrajectories += result.added.length;
    if (state.stored.pendingTrajectories > MAX_PENDING_TRAJECTORIES) {
      this.#store.saveGraph(graph);
      state.stored.pendingTrajectories = 0;
    }
    return result;
  }

  /**
   * Replace the task texts of stored trajectories (retention keeps only what first-step learning
   * reads of them); task memory forgets the old text at once.
   */
  replaceTaskTexts(entries: readonly { id: string; task: string }[]): void {
    const memory = this.#states.current?.loadedMemory;
    for (const { id, task } of entries) {
      const row = oneRow<{ tools: string }>(this.#sql, "SELECT tools FROM graph_trajectories WHERE id = ?", id);
      if (row === undefined) continue;
      run(this.#sql, "UPDATE graph_trajectories SET task = ? WHERE id = ?", task, id);
      memory?.add({ id, task, tools: JSON.parse(row.tools) as string[] });
    }
  }

  /** Remove trajectories (their transitions and task texts) from what routing learned; returns how many were known. */
  forgetTrajectories(ids: readonly string[]): number {
    if (ids.length === 0) return 0;
    const state = this.#states.complete();
    let removed = 0;
    for (const id of ids) {
      if (removeTrajectory(state.graph, id)) removed += 1;
      state.loadedMemory?.remove(id);
      run(this.#sql, "DELETE FROM graph_trajectories WHERE id = ?", id);
    }
    if (removed > 0) {
      this.#store.saveGraph(state.graph);
      state.stored.pendingTrajectories = 0;
    }
    return removed;
  }

  /** Dynamic construction (eq. 6–8): apply evaluator scores and persist the new accumulated scores. */
  applyScores(evaluation: Evaluation): Outcome<FeedbackResult> {
    return graphOutcome(() => {
      const { graph } = this.#states.load();
      const result = applyFeedback(graph, evaluation);
      for (const update of result.updated) this.#storeScore(update.tool, update.score);
      return result;
    });
  }

  /** Many evaluations at once, all or nothing (feedback-batch.ts); each re-scored tool is written once. */
  applyScoresBatch(evaluations: readonly Evaluation[]): readonly FeedbackResult[] {
    const { results, finalScores } = applyFeedbackBatch(this.#states.load().graph, evaluations);
    for (const [tool, score] of finalScores) this.#storeScore(tool, score);
    return results;
  }

  /**
   * Single updates that arrived together (durable-objects/feedback-coalescer.ts), applied in order, each on its own
   * (a refused one changes nothing and refuses no other), then each re-scored tool written once.
   */
  applyScoresEach(evaluations: readonly Evaluation[]): Outcome<FeedbackResult>[] {
    const { graph } = this.#states.load();
    const finalScores = new Map<string, number>();
    const outcomes = evaluations.map((evaluation) =>
      graphOutcome(() => {
        const result = applyFeedback(graph, evaluation);
        for (const update of result.updated) finalScores.set(update.tool, update.score);
        return result;
      }),
    );
    for (const [tool, score] of finalScores) this.#storeScore(tool, score);
    this.#scoreWrites.flushes += 1;
    return outcomes;
  }

  /** Score rows written since this object started, and in how many flushes of single updates (coalesced updates share both). */
  scoreWrites(): { rows: number; flushes: number } {
    return { ...this.#scoreWrites };
  }

  #storeScore(tool: string, score: number): void {
    this.#scoreWrites.rows += 1;
    run(this.#sql, "INSERT INTO graph_scores (tool, score) VALUES (?, ?) ON CONFLICT (tool) DO UPDATE SET score = excluded.score", tool, score);
  }

  settings(): GraphSettings {
    return { ...this.#states.load().graph.settings };
  }

  /** Change α or β; validated by the graph module. */
  updateSettings(partial: Partial<GraphSettings>): Outcome<GraphSettings> {
    return graphOutcome(() => {
      const settings = updateSettings(this.#states.load().graph, partial);
      this.#sources.settings.put("graph", JSON.stringify(settings));
      return settings;
    });
  }

  /** Observed transitions with their current weights (eq. 6), for pictures of the graph. */
  weightedEdges(): { nodes: { tool: string; score: number }[]; edges: { from: string; to: string; count: number; weight: number }[] } {
    const { graph } = this.#states.complete();
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
    return exportGraph(this.#states.complete().graph);
  }

  /**
   * Replace the learned state (trajectories, scores, settings) with an exported snapshot. Tools
   * themselves stay as registered: snapshot nodes that are not registered tools are reported.
   * Task texts of trajectories kept under the same id survive; others go with their trajectory.
   */
  replaceWith(data: unknown): Outcome<{ missingTools: string[] }> {
    return graphOutcome(() => this.#replaceWith(data));
  }

  #replaceWith(data: unknown): { missingTools: string[] } {
    const snapshot = loadGraph(data); // validates fully before anything is written
    const exported = exportGraph(snapshot);
    const { defs } = this.#states.load();
    const tasks = new Map(
      allRows<{ id: string; task: string }>(this.#sql, "SELECT id, task FROM graph_trajectories WHERE task IS NOT NULL").map((r) => [r.id, r.task]),
    );
    run(this.#sql, "DELETE FROM graph_trajectories");
    run(this.#sql, "DELETE FROM graph_scores");
    for (const t of exported.trajectories) {
      run(this.#sql, "INSERT INTO graph_trajectories (id, tools, task) VALUES (?, ?, ?)", t.id, JSON.stringify(t.tools), tasks.get(t.id) ?? null);
    }
    for (const n of exported.nodes) run(this.#sql, "INSERT INTO graph_scores (tool, score) VALUES (?, ?)", n.tool, n.score);
    this.#store.dropGraph();
    this.#sources.settings.put("graph", JSON.stringify(exported.settings));
    this.#states.forget();
    return { missingTools: exported.nodes.map((n) => n.tool).filter((tool) => !defs.has(tool)) };
  }
}

/** Run a graph operation; its validation errors become an invalid-request failure with the graph's message. */
function graphOutcome<T>(operation: () => T): Outcome<T> {
  try {
    return success(operation());
  } catch (error) {
    if (error instanceof ToolGraphError) return failure("invalid-request", error.message);
    throw error;
  }
}

/** Fused scores as the integers the prompt shows: the best candidate is 1000. */
function scaleWeights(fused: readonly FusedCandidate[]): { tool: string; weight: number; why: Why }[] {
  const top = fused[0]?.score ?? 1;
  return fused.map((c) => ({ tool: c.tool, weight: top > 0 ? Math.round((c.score / top) * 1000) : 0, why: c.why }));
}

export { ToolGraphError };
