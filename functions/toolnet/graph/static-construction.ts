import { graphFailure, unknownTools } from "./errors";
import type { Failure } from "../../common/failures";
import { isReservedId } from "./node-ids";
import { countTransition, nodeOf, type ToolGraph } from "./tool-graph";
import { DEFAULT_MAX_TRAJECTORY_LENGTH, MAX_TRAJECTORY_ID_LENGTH, forEachTransition, sameSequence, type Trajectory } from "./trajectory";

/**
 * Static construction (§3.2, eq. 5): 2-gram counts over tool-use trajectories, start → first and
 * last → end included. Counts are kept per edge; eq. 5's normalised frequency is taken when a
 * weight is read, so adding a trajectory touches only its own transitions.
 *
 * Idempotent per trajectory id: the same id with the same tools again changes nothing. The same
 * id with different tools is a `trajectory_conflict` error, not a silent replacement: ids name
 * runs or dataset records, which do not change, so a changed sequence means a bug upstream. To
 * replace one on purpose, call removeTrajectory first.
 */

export interface StaticImportOptions {
  /**
   * What to do with tool names the graph does not have. "error" (default): refuse the whole
   * batch, listing them. "skip": keep the trajectory but count only transitions whose two ends
   * are in the graph; transitions through an unknown tool are dropped, never bridged (A, X, B
   * counts neither A → X nor A → B). They are counted if the tool is added later.
   */
  readonly unknownTools?: "error" | "skip";
  /** Longest trajectory accepted (default 256); longer ones are refused. */
  readonly maxLength?: number;
}

export interface StaticImportResult {
  /** Ids imported now. */
  readonly added: readonly string[];
  /** Ids already imported with the same tools: nothing changed. */
  readonly unchanged: readonly string[];
  /** Transitions counted now. */
  readonly transitions: number;
  /** Unknown tool names left uncounted (only with unknownTools: "skip"). */
  readonly skippedTools: readonly string[];
}

/** Imports trajectories all-or-nothing: every one is checked before any is counted. */
export function addTrajectories(graph: ToolGraph, trajectories: readonly Trajectory[], options: StaticImportOptions = {}): StaticImportResult {
  const maxLength = options.maxLength ?? DEFAULT_MAX_TRAJECTORY_LENGTH;
  const fresh = new Map<string, readonly string[]>();
  const unchanged: string[] = [];
  const unknown = new Set<string>();
  for (const trajectory of trajectories) {
    checkTrajectory(trajectory, maxLength);
    const known = graph.trajectories.get(trajectory.id) ?? fresh.get(trajectory.id);
    if (known !== undefined) {
      if (!sameSequence(known, trajectory.tools)) throw conflict(trajectory.id);
      if (graph.trajectories.has(trajectory.id)) unchanged.push(trajectory.id);
      continue;
    }
    fresh.set(trajectory.id, [...trajectory.tools]);
    for (const tool of trajectory.tools) if (!graph.tools.has(tool)) unknown.add(tool);
  }
  if (unknown.size > 0 && options.unknownTools !== "skip") throw unknownTools(unknown, "the trajectories");

  let transitions = 0;
  for (const [id, tools] of fresh) {
    graph.trajectories.set(id, tools);
    for (const tool of new Set(tools)) {
      let ids = graph.trajectoriesByTool.get(tool);
      if (ids === undefined) graph.trajectoriesByTool.set(tool, (ids = new Set()));
      ids.add(id);
    }
    forEachTransition(tools, (from, to) => {
      if (!isPresent(graph, from) || !isPresent(graph, to)) return; // see unknownTools: "skip"
      countTransition(graph, from, to, 1);
      transitions += 1;
    });
  }
  if (fresh.size > 0) graph.version += 1;
  return { added: [...fresh.keys()], unchanged, transitions, skippedTools: [...unknown] };
}

/** Imports one trajectory; see addTrajectories. */
export function addTrajectory(graph: ToolGraph, trajectory: Trajectory, options: StaticImportOptions = {}): StaticImportResult {
  return addTrajectories(graph, [trajectory], options);
}

/** Forgets a trajectory and uncounts its transitions; false when the id was never imported. */
export function removeTrajectory(graph: ToolGraph, id: string): boolean {
  const tools = graph.trajectories.get(id);
  if (tools === undefined) return false;
  forEachTransition(tools, (from, to) => countTransition(graph, from, to, -1));
  for (const tool of new Set(tools)) {
    const ids = graph.trajectoriesByTool.get(tool);
    ids?.delete(id);
    if (ids?.size === 0) graph.trajectoriesByTool.delete(tool);
  }
  graph.trajectories.delete(id);
  graph.version += 1;
  return true;
}

function isPresent(graph: ToolGraph, id: string): boolean {
  return nodeOf(graph, id) !== undefined;
}

function checkTrajectory(trajectory: Trajectory, maxLength: number): void {
  const { id, tools } = trajectory;
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_TRAJECTORY_ID_LENGTH) {
    throw invalid(`A trajectory id must be a string of 1–${MAX_TRAJECTORY_ID_LENGTH} characters.`, []);
  }
  if (!Array.isArray(tools) || tools.length === 0) {
    throw invalid(`Trajectory ${id} is empty: it must name at least one tool.`, [id]);
  }
  if (tools.length > maxLength) {
    throw invalid(`Trajectory ${id} has ${tools.length} steps; at most ${maxLength} are accepted.`, [id]);
  }
  for (const tool of tools) {
    if (typeof tool !== "string" || tool.length === 0) {
      throw invalid(`Trajectory ${id} has a step that is not a tool name.`, [id]);
    }
    if (isReservedId(tool)) {
      // start and end are added by the graph; naming them inside a trajectory would count twice
      throw graphFailure({
        code: "reserved_name",
        message: `Trajectory ${id} names ${tool}; leave start and end out, they are implied.`,
        names: [tool],
      });
    }
  }
}

function invalid(message: string, names: readonly string[]): Failure {
  return graphFailure({ code: "invalid_trajectory", message, names });
}

function conflict(id: string): Failure {
  return graphFailure({
    code: "trajectory_conflict",
    message: `Trajectory ${id} was already imported with a different tool sequence; remove it first to replace it.`,
    names: [id],
  });
}
