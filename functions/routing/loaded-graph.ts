import { addTools, addTrajectories, createGraph, type GraphSettings, type ToolGraph } from "../toolnet/graph";
import { TaskMemory } from "../toolnet/task-memory";
import type { LoadedGraph, LoadReport, RoutingSnapshots } from "../storage/routing-snapshots";
import type { GraphRows } from "../storage/graph-rows";

/**
 * The parts of the routing state (loaded-routing.ts) made from the learning rows: the graph from
 * its stored edges or the trajectories, the tools' stored scores, and the task memory.
 */

/** The stored graph edges when they are current (`names` is read only to check a value of another tool-names version), else the graph rebuilt from the trajectory rows, and stored. */
export function storedOrRebuiltGraph(
  rows: GraphRows,
  store: RoutingSnapshots,
  names: () => Set<string>,
  settings: GraphSettings | undefined,
  report: LoadReport,
): LoadedGraph {
  const stored = store.loadGraph(names, settings);
  if (stored !== undefined) return stored;
  report.graph = "rebuilt";
  const graph = createGraph(settings);
  addTools(graph, [...names()]);
  // Stored trajectories may name tools deleted since; their transitions simply do not count.
  addTrajectories(graph, rows.trajectories(), { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER });
  store.saveGraph(graph);
  return { graph, complete: true, pendingTrajectories: 0 };
}

export function applyStoredScores(rows: GraphRows, graph: ToolGraph): void {
  for (const row of rows.scores()) {
    const node = graph.tools.get(row.tool);
    if (node !== undefined) node.score = row.score;
  }
}

/** The task memory over the stored trajectories that have a task. */
export function loadTaskMemory(rows: GraphRows): TaskMemory {
  return TaskMemory.build(rows.tasks());
}
