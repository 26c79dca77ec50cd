import { addTools, addTrajectories, createGraph, type GraphSettings, type ToolGraph } from "../toolnet/graph";
import { TaskMemory } from "../toolnet/task-memory";
import type { LoadedGraph, LoadReport, RoutingSnapshots } from "../storage/routing-snapshots";
import { allRows } from "../storage/sql";

/**
 * The parts of the routing state (loaded-routing.ts) made from the learning rows: the graph from
 * its stored edges or the trajectories, the tools' stored scores, and the task memory.
 */

/** The stored graph edges when they are current, else the graph rebuilt from the trajectory rows, and stored. */
export function storedOrRebuiltGraph(
  sql: SqlStorage,
  store: RoutingSnapshots,
  names: Set<string>,
  settings: GraphSettings | undefined,
  report: LoadReport,
): LoadedGraph {
  const stored = store.loadGraph(names, settings);
  if (stored !== undefined) return stored;
  report.graph = "rebuilt";
  const graph = createGraph(settings);
  addTools(graph, [...names]);
  const rows = allRows<{ id: string; tools: string }>(sql, "SELECT id, tools FROM graph_trajectories ORDER BY rowid");
  // Stored trajectories may name tools deleted since; their transitions simply do not count.
  addTrajectories(
    graph,
    rows.map((row) => ({ id: row.id, tools: JSON.parse(row.tools) as string[] })),
    { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER },
  );
  store.saveGraph(graph);
  return { graph, complete: true, pendingTrajectories: 0 };
}

export function applyStoredScores(sql: SqlStorage, graph: ToolGraph): void {
  for (const row of allRows<{ tool: string; score: number }>(sql, "SELECT tool, score FROM graph_scores")) {
    const node = graph.tools.get(row.tool);
    if (node !== undefined) node.score = row.score;
  }
}

/** The task memory over the stored trajectories that have a task. */
export function loadTaskMemory(sql: SqlStorage): TaskMemory {
  const tasks = allRows<{ id: string; tools: string; task: string }>(
    sql,
    "SELECT id, tools, task FROM graph_trajectories WHERE task IS NOT NULL ORDER BY rowid",
  );
  return TaskMemory.build(tasks.map((row) => ({ id: row.id, task: row.task, tools: JSON.parse(row.tools) as string[] })));
}
