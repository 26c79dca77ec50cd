import type { Evaluation, FeedbackResult, GraphSettings, StaticImportResult, ToolGraphSnapshot, Trajectory } from "../toolnet/graph";
import { answerJson, withToolObjects, type ShownEntry } from "../toolnet/answer-budget";
import type { RunCandidateSet } from "../toolnet/signal-fusion";
import type { Ranked } from "../toolnet/retrieval";
import type { ToolDefinition } from "../tools/definition";
import { failure, success, type Outcome } from "../common/failures";
import type { WorkSlice } from "../common/work-slice";
import { MODEL_SETTING, storedEmbeddingModel } from "../tenants/stored-model-override";
import type { TenantEvents } from "../storage/tenant-events";
import type { ObservedLearning } from "../storage/tenant-observed";
import type { TenantSettings } from "../storage/tenant-settings";
import { RoutingSnapshots, type LoadReport } from "../storage/routing-snapshots";
import { GraphRows } from "../storage/graph-rows";
import { storedNodesMade } from "../toolnet/graph/graph-codec";
import type { ShownTool, StoredToolViews, ViewsWarmth } from "../storage/tenant-tool-views";
import { LoadedRouting, type Loaded, type StateSources, type TaskRelevance } from "./loaded-routing";
import { ToolVectors } from "../storage/tool-vectors";
import { fitAnswer, type RankingState, type RouteAnswer, type RouteOptions, type TaskVectorWanted } from "./routing-answers";
import { RANKING_MODES } from "./ranking-modes";
import type { CalibrationReport } from "./routing-calibration";
import { TenantCalibration } from "./tenant-calibration";
import type { SignalWeights } from "../toolnet/signal-calibration";
import { RoutingLearning } from "./routing-learning";
import { RELEVANCE_DEPTH, taskRelevance } from "./task-relevance";
import { runCandidates, type RunCandidateSources } from "./run-candidates";
import type { LearnedWordsView } from "./learned-words";
import { TenantWords } from "./tenant-words";
import type { EvidenceKind } from "../toolnet/learned-attribution";

export type { RouteAnswer, RouteMode, RouteOptions, TaskVectorWanted } from "./routing-answers";

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

/** A failed preparation of the routing state is tried again this much later. */
const PREPARATION_RETRY_MS = 10 * 60_000;

/**
 * A tenant's ToolNet, as the Worker calls it: route answers, run candidate sets, learning from
 * trajectories and feedback, the graph's settings, export and import. The state it works on
 * (graph, index, data flow, task memory) is loaded and kept in step by loaded-routing.ts; a route
 * answer is ranked and fitted by routing-answers.ts, and learning is routing-learning.ts's; the
 * learned field is wired in by tenant-words.ts, the signal calibration by tenant-calibration.ts. Every
 * method is synchronous, so within the Durable Object no two updates interleave.
 */
export class TenantRouting implements ObservedLearning {
  readonly #sources: RoutingSources;
  readonly #store: RoutingSnapshots;
  readonly #states: LoadedRouting;
  /** Trajectories, scores, the graph's settings, export and import (routing-learning.ts). */
  readonly #learning: RoutingLearning;
  /** How much each signal counts for this tenant, from its own tasks replayed (off the request path; tenant-calibration.ts). */
  readonly #calibration: TenantCalibration;
  /** Tool embeddings by model (computed once per definition, at registration). */
  readonly #vectors: ToolVectors;
  /** Each tool's learned field: the words of the requests that chose it (tenant-words.ts). */
  readonly #words: TenantWords;
  /** Preparations run since the object started (tests and benchmarks). */
  #preparations = 0;
  /** Task rankings computed (not found in the memo) since the object started: tests count them. */
  protected relevanceSearches = 0;

  constructor(sql: SqlStorage, sources: RoutingSources) {
    this.#sources = sources;
    this.#vectors = new ToolVectors(sql, () => sources.catalog.hashes());
    const graphRows = new GraphRows(sql);
    this.#store = new RoutingSnapshots(sql, {
      after: (rowid) => graphRows.trajectoriesAfter(rowid),
      lastRow: () => graphRows.lastTrajectoryRow(),
    });
    this.#states = new LoadedRouting(graphRows, sources, this.#store, this.#vectors);
    this.#learning = new RoutingLearning(graphRows, this.#states, this.#store, sources.settings);
    this.#words = new TenantWords(sql, sources.settings, () => this.#states.current?.relevance.clear());
    // Example requests were written for a definition: a deleted or changed tool loses them (what use taught stays).
    sources.events.onToolsChanged(({ upserted, removed }) => this.#words.forgetExamples([...removed, ...upserted.map(({ definition }) => definition.name)]));
    this.#calibration = new TenantCalibration(sql, this.#states, this.#vectors, this.#words, () => sources.preparationNoted?.());
  }

  #descriptions(): Map<string, string> {
    return this.#sources.descriptions();
  }

  #views(tool: string, shown: ToolDefinition, description: string | undefined): StoredToolViews {
    return this.#sources.views(tool, shown, description);
  }

  /** When preparing the routing state after a catalog change, a save of its index in pieces, or a slice of its calibration, is due (ms since the epoch), or null when none is. */
  preparationDue(): number | null {
    const indexSave = this.#store.indexSaveDue() ? Date.now() : null;
    const times = [this.#store.preparationDue(), this.#calibration.dueAt(), indexSave].filter((t): t is number => t !== null);
    return times.length === 0 ? null : Math.min(...times);
  }

  /** The tenant's signal weights, what its replay judged, and whether a recalibration is due (the calibration API). */
  calibration(): CalibrationReport {
    return this.#calibration.report();
  }

  /**
   * The tenant object's alarm: when a preparation is due at `now`, the index and data-flow table
   * are made and stored (loaded-routing.ts `prepareInPieces`), so that the first request after a
   * catalog change reads them. The catalog is read a piece at a time with the object handed back
   * between pieces, within `slice` (issue 42); a preparation the slice could not finish stays
   * due, and the next alarm continues it. A failure is retried later; requests meanwhile use the
   * last good state or compute what they need. Calibration's slice when no preparation is due.
   */
  async prepareSomeIfDue(now: number, slice: WorkSlice): Promise<void> {
    const due = this.#store.preparationDue();
    if (due === null || due > now) {
      await this.#calibration.sliceIfDue(now);
      return;
    }
    try {
      if (!(await this.#states.prepareInPieces(slice))) return;
      this.#store.preparationDone();
      this.#preparations += 1;
    } catch (error) {
      console.warn(`routing preparation failed, retried later: ${error instanceof Error ? error.message : String(error)}`);
      this.#store.notePreparation(now + PREPARATION_RETRY_MS);
    }
  }

  /**
   * The tenant object's alarm, while a job goes on too (a big import's batches note the changed
   * tools): the retrieval index saved in pieces once many changed (routing-snapshots.ts
   * `saveIndexInPieces`), for one slice; a save the slice could not finish goes on in the next.
   */
  async saveIndexSomeIfDue(slice: WorkSlice): Promise<void> {
    if (!this.#store.indexSaveDue()) return;
    try {
      await this.#store.saveIndexInPieces(() => slice.next());
    } catch (error) {
      // The save is dropped, its tools stay noted: a load re-adds them, the preparation stores the index.
      console.warn(`routing index save in pieces failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** What each piece of the index's saves in pieces did, counted (tests and benchmarks). */
  indexSavePieces(): { piece: string; work: number }[] {
    return this.#store.indexSavePieces();
  }

  /** Prepares the routing state now, due or not, in one call (benchmarks timing it): see `prepareSomeIfDue`. */
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

  /** Whole graphs and indexes stored since the object started (tests and benchmarks: catalog changes leave them to the preparation). */
  snapshotWrites(): { graph: number; index: number; indexInPieces: number } {
    return this.#store.writes();
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

  /**
   * What loads read of the stored routing state (tests and benchmarks): whether the in-memory
   * state has read every tool's name, how many stored values were checked name by name (their
   * tool-names version was not current), how many times the index's raw term counts were read
   * whole, and how many byte ranges of them (a repeated word's counts alone), since the object started;
   * and how many graph nodes the loaded graph has made (a stored graph makes those a route reads).
   */
  coldReads(): { namesRead: boolean; nameChecks: number; countReads: number; countRanges: number; graphNodes: number | undefined } {
    const store = this.#store;
    const graph = this.#states.current?.graph;
    return {
      namesRead: this.#states.current?.defs.namesRead ?? false,
      nameChecks: store.nameChecks,
      countReads: store.countReads,
      countRanges: store.countRangeReads,
      graphNodes: graph === undefined ? undefined : storedNodesMade(graph),
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

  /** A task's relevance (task-relevance.ts), remembered per task for the index version (relevance-memo.ts). */
  #relevance(state: Loaded, task: string, depth: number, query: { model: string; vector: number[]; weight: number } | undefined): TaskRelevance {
    // The weights are part of what was asked: a recalibration that changes one must not meet a ranking fused at the old one.
    const learned = this.#learnedFor(state, task);
    const model = `${query === undefined ? "" : `${query.model}@${query.weight}`}|learned@${learned?.weight ?? 0}`;
    return state.relevance.ranking({ task, depth, model }, state.index.version, () =>
      taskRelevance(state, task, depth, query, {
        vectorsOf: (model) => this.#vectors.of(model),
        apiSiblingsOf: () => this.#states.apiSiblingsOf(state),
        searched: () => {
          this.relevanceSearches += 1;
        },
        learned,
      }),
    );
  }

  /** The learned field for a task's first step at the tenant's setting times the share its replay chose (routing-calibration.ts), or undefined when off or muted. */
  #learnedFor(state: Loaded, task: string): { ranking: () => Ranked[]; weight: number } | undefined {
    return this.#words.forTask(state, task, this.#calibration.weights(state).learned);
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
    const mode = RANKING_MODES[options.mode ?? "fused"];
    const state = this.#states.load();
    if (previous !== null && !state.graph.tools.has(previous)) return { unknownPrevious: previous };
    const rankingState = () => this.#rankingState(state, task, k, query);
    const { ranked, via, fallback } = mode.rank({ state, task, previous, k, rankingState });
    const fitted = fitAnswer(this.#sources, state, ranked, previous, mode.weights, options);
    if (!fitted.ok) return { budgetTooSmall: fitted.message };
    return { previous, via, ...(fallback === undefined ? {} : { fallback }), ...fitted.answer };
  }

  /** What a fused ranking reads (routing-answers.ts): the task's relevance, ranked as deep as k needs, and the tools' API siblings. */
  #rankingState(state: Loaded, task: string, k: number, query: { model: string; vector: number[] } | undefined): RankingState {
    if (query !== undefined) this.#calibration.rememberTaskVector(task, query);
    // Embeddings at the weight this tenant's replay chose; muted (0), the task ranks by its words alone.
    const weight = query === undefined ? 0 : this.#calibration.weights(state).embeddings;
    return {
      state,
      relevance: this.#relevance(state, task, Math.max(k, RELEVANCE_DEPTH), weight > 0 && query !== undefined ? { ...query, weight } : undefined),
      siblingsOf: this.#states.siblingsOf(state),
      weights: () => this.#weightsAsSet(state),
      unmatched: () => this.#words.unmatchedChoices(state),
    };
  }

  /** The calibrated weights, the usual starts' share times the tenant's `learning.startsWeight` (the learned field's is applied where it is searched). */
  #weightsAsSet(state: Loaded): SignalWeights {
    const weights = this.#calibration.weights(state);
    return { ...weights, starts: weights.starts * this.#words.startsSetting() };
  }

  /**
   * Tools for a run: retrieval, similar earlier tasks, and the learned and data-flow successors of
   * the best of them, in one fused ranking, taken best first within `maxTools` and `tokenBudget`
   * (run-candidates.ts).
   */
  candidates(task: string, options: { seeds: number; maxTools: number; tokenBudget: number }): RunCandidateSet {
    const state = this.#states.load();
    const sources: RunCandidateSources = {
      state,
      better: this.#descriptions(),
      protocolTokens: this.#sources.protocolRunTokens(),
      apiSiblingsOf: this.#states.apiSiblingsOf(state),
      siblingsOf: this.#states.siblingsOf(state),
      views: (tool, shown, description) => this.#views(tool, shown, description),
      learned: this.#learnedFor(state, task),
    };
    return runCandidates(sources, task, options, RELEVANCE_DEPTH);
  }

  /**
   * Static construction (eq. 5): import trajectories; idempotent per trajectory id. A task text
   * teaches the first step, and each tool its words (explicit evidence, unless `words` is false:
   * observed conversations teach theirs themselves, with their calls' outcomes).
   */
  importTrajectories(trajectories: (Trajectory & { task?: string | undefined })[], unknownTools: "error" | "skip", words = true): Outcome<StaticImportResult> {
    const result = this.#learning.importTrajectories(trajectories, unknownTools);
    if (result.ok && words) for (const t of trajectories) if (t.task !== undefined) this.learnWords(t.id, t.task, t.tools, "explicit");
    return result;
  }

  /** `source` (a conversation, a trajectory) shows that `task` needed `tools`: each tool learns its part of the task's words (learned-attribution.ts). */
  learnWords(source: string, task: string, tools: readonly string[], kind: EvidenceKind, failed?: ReadonlySet<string>): void {
    this.#words.learn(this.#states.load(), source, task, tools, kind, failed);
  }

  /** An explicit score for `tool` in `source` raises (positive) or takes away (negative) the words the source taught it. */
  scoreWords(source: string, tool: string, score: number): void {
    this.#words.score(source, tool, score);
  }

  /** Take away the words `sources` taught. */
  forgetWords(sources: readonly string[]): void {
    this.#words.forget(sources);
  }

  /**
   * `requests` (Play2Prompt demonstrations applied to the tool, or written by the tenant's model at
   * import) teach `tool` their words, as examples (learned-examples.ts): below observed use, and
   * replacing what its earlier examples taught. A tool that is not registered learns nothing.
   */
  teachExamples(tool: string, requests: readonly string[]): void {
    this.#words.teachExamples(this.#states.load(), tool, requests);
  }

  /** Of `tools`, those that already learned words from example requests. */
  toolsWithExamples(tools: readonly string[]): string[] {
    return [...this.#words.withExamples(tools)];
  }

  /** A tool's strongest learned words, from how many sources, and how many came from use and from examples. */
  learnedWords(tool: string, count?: number): LearnedWordsView {
    return this.#words.view(tool, count);
  }

  /** Replace the task texts of stored trajectories; task memory forgets the old text at once. */
  replaceTaskTexts(entries: readonly { id: string; task: string }[]): void {
    this.#learning.replaceTaskTexts(entries);
  }

  /** Remove trajectories (their transitions and task texts) from what routing learned; returns how many were known. */
  forgetTrajectories(ids: readonly string[]): number {
    this.#words.forget(ids);
    return this.#learning.forgetTrajectories(ids);
  }

  /** Dynamic construction (eq. 6–8): apply evaluator scores and persist the new accumulated scores. */
  applyScores(evaluation: Evaluation): Outcome<FeedbackResult> {
    return this.#learning.applyScores(evaluation);
  }

  /** Many evaluations at once, all or nothing (feedback-batch.ts); each re-scored tool is written once. */
  applyScoresBatch(evaluations: readonly Evaluation[]): readonly FeedbackResult[] {
    return this.#learning.applyScoresBatch(evaluations);
  }

  /** Single updates that arrived together, each applied on its own, then each re-scored tool written once. */
  applyScoresEach(evaluations: readonly Evaluation[]): Outcome<FeedbackResult>[] {
    return this.#learning.applyScoresEach(evaluations);
  }

  /** Score rows written since this object started, and in how many flushes of single updates (coalesced updates share both). */
  scoreWrites(): { rows: number; flushes: number } {
    return this.#learning.scoreWrites();
  }

  settings(): GraphSettings {
    return this.#learning.settings();
  }

  /** Change α or β; validated by the graph module. */
  updateSettings(partial: Partial<GraphSettings>): Outcome<GraphSettings> {
    return this.#learning.updateSettings(partial);
  }

  /** Observed transitions with their current weights (eq. 6), for pictures of the graph. */
  weightedEdges(): { nodes: { tool: string; score: number }[]; edges: { from: string; to: string; count: number; weight: number }[] } {
    return this.#learning.weightedEdges();
  }

  snapshot(): ToolGraphSnapshot {
    return this.#learning.snapshot();
  }

  /** Replace the learned state with an exported snapshot; snapshot nodes that are not registered tools are reported. */
  replaceWith(data: unknown): Outcome<{ missingTools: string[] }> {
    return this.#learning.replaceWith(data);
  }
}
