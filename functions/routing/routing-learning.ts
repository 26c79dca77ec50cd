import {
  addTrajectories,
  applyFeedback,
  exportGraph,
  loadGraph,
  removeTrajectory,
  START,
  isGraphFailure,
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
import { failure, success, type Outcome } from "../common/failures";
import type { TenantSettings } from "../storage/tenant-settings";
import { MAX_PENDING_TRAJECTORIES, type RoutingSnapshots } from "../storage/routing-snapshots";
import type { GraphRows } from "../storage/graph-rows";
import type { LoadedRouting } from "./loaded-routing";

/**
 * What routing learns, part of the routing store (tenant-routing.ts offers these methods): the
 * graph's trajectories (static construction, eq. 5) and their task texts, evaluator scores
 * (dynamic construction, eq. 6–8), the graph's settings, and its export and import. It is the one
 * writer of the graph's rows (storage/graph-rows.ts); the graph itself is in the loaded state.
 */
export class RoutingLearning {
  readonly #rows: GraphRows;
  readonly #states: LoadedRouting;
  readonly #store: RoutingSnapshots;
  /** The tenant's settings: the graph's own are stored there (`setting:graph`). */
  readonly #settings: TenantSettings;
  /** Score rows written, and the flushes of single updates that wrote them (tests and benchmarks). */
  readonly #scoreWrites = { rows: 0, flushes: 0 };

  constructor(rows: GraphRows, states: LoadedRouting, store: RoutingSnapshots, settings: TenantSettings) {
    this.#rows = rows;
    this.#states = states;
    this.#store = store;
    this.#settings = settings;
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
      const known = trajectories.flatMap((t) => this.#rows.trajectory(t.id) ?? []);
      attachTrajectories(graph, known);
    }
    const result = addTrajectories(graph, trajectories, { unknownTools });
    for (const t of trajectories) {
      const written = this.#rows.addTrajectory(t.id, t.tools, t.task ?? null);
      // A memory not built yet reads this row when it is.
      if (written && t.task !== undefined) state.loadedMemory?.add({ id: t.id, task: t.task, tools: t.tools });
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
      const row = this.#rows.trajectory(id);
      if (row === undefined) continue;
      this.#rows.setTask(id, task);
      memory?.add({ id, task, tools: row.tools });
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
      this.#rows.deleteTrajectory(id);
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
    this.#rows.putScore(tool, score);
  }

  settings(): GraphSettings {
    return { ...this.#states.load().graph.settings };
  }

  /** Change α or β; validated by the graph module. */
  updateSettings(partial: Partial<GraphSettings>): Outcome<GraphSettings> {
    return graphOutcome(() => {
      const settings = updateSettings(this.#states.load().graph, partial);
      this.#settings.put("graph", JSON.stringify(settings));
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
    const tasks = this.#rows.taskTexts();
    this.#rows.replaceAll(
      exported.trajectories.map((t) => ({ id: t.id, tools: t.tools, task: tasks.get(t.id) ?? null })),
      exported.nodes,
    );
    this.#store.dropGraph();
    this.#settings.put("graph", JSON.stringify(exported.settings));
    this.#states.forget();
    return { missingTools: exported.nodes.map((n) => n.tool).filter((tool) => !defs.has(tool)) };
  }
}

/** Run a graph operation; its validation errors become an invalid-request failure with the graph's message. */
function graphOutcome<T>(operation: () => T): Outcome<T> {
  try {
    return success(operation());
  } catch (error) {
    if (isGraphFailure(error)) return failure("invalid-request", error.message);
    throw error;
  }
}
