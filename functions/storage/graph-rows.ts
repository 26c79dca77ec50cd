import { allRows, oneRow, run } from "./sql";

/** A stored trajectory: its id and its tools in order. */
export interface StoredTrajectory {
  id: string;
  tools: string[];
}

/** A stored trajectory that carries the task it did. */
export interface StoredTask extends StoredTrajectory {
  task: string;
}

/**
 * The trajectories that have a task, oldest first: read through their partial index
 * (`graph_trajectories_with_task`), sorted after (`+rowid`, so SQLite does not walk the whole table
 * in rowid order instead, reading every trajectory without a task).
 */
export const TASKS_IN_ORDER = "SELECT id, tools, task FROM graph_trajectories WHERE task IS NOT NULL ORDER BY +rowid";

/**
 * The rows the tool graph is learned from (eq. 5–8): `graph_trajectories` (each with the task
 * text it did, when known) and `graph_scores` (each tool's accumulated evaluator score). The
 * routing engine (functions/routing/) owns what they mean; this keeps how they are stored.
 * Trajectories are read in the order they were stored (rowid), which the graph's stored edges
 * count up to (routing-snapshots.ts).
 */
export class GraphRows {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Every stored trajectory, oldest first. */
  trajectories(): StoredTrajectory[] {
    return parsed(allRows<{ id: string; tools: string }>(this.#sql, "SELECT id, tools FROM graph_trajectories ORDER BY rowid"));
  }

  /** The trajectories stored after row `rowid`, oldest first. */
  trajectoriesAfter(rowid: number): StoredTrajectory[] {
    return parsed(allRows<{ id: string; tools: string }>(this.#sql, "SELECT id, tools FROM graph_trajectories WHERE rowid > ? ORDER BY rowid", rowid));
  }

  /** The row of the last stored trajectory (0: none). */
  lastTrajectoryRow(): number {
    return oneRow<{ last: number | null }>(this.#sql, "SELECT MAX(rowid) AS last FROM graph_trajectories")?.last ?? 0;
  }

  /** The trajectory stored under `id`, if any. */
  trajectory(id: string): StoredTrajectory | undefined {
    return parsed(allRows<{ id: string; tools: string }>(this.#sql, "SELECT id, tools FROM graph_trajectories WHERE id = ?", id))[0];
  }

  /** Every trajectory that has a task text, oldest first (what task memory is built from). */
  tasks(): StoredTask[] {
    return parsedTasks(allRows<{ id: string; tools: string; task: string }>(this.#sql, TASKS_IN_ORDER));
  }

  /** The `limit` most recently stored trajectories that have a task text, newest first. */
  recentTasks(limit: number): StoredTask[] {
    return parsedTasks(
      allRows<{ id: string; task: string; tools: string }>(
        this.#sql,
        "SELECT id, task, tools FROM graph_trajectories WHERE task IS NOT NULL ORDER BY rowid DESC LIMIT ?",
        limit,
      ),
    );
  }

  /** Store a trajectory unless its id is taken; true when it was written. */
  addTrajectory(id: string, tools: readonly string[], task: string | null): boolean {
    return run(this.#sql, "INSERT INTO graph_trajectories (id, tools, task) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING", id, JSON.stringify(tools), task) > 0;
  }

  setTask(id: string, task: string): void {
    run(this.#sql, "UPDATE graph_trajectories SET task = ? WHERE id = ?", task, id);
  }

  deleteTrajectory(id: string): void {
    run(this.#sql, "DELETE FROM graph_trajectories WHERE id = ?", id);
  }

  /** Every tool's stored score. */
  scores(): { tool: string; score: number }[] {
    return allRows<{ tool: string; score: number }>(this.#sql, "SELECT tool, score FROM graph_scores");
  }

  putScore(tool: string, score: number): void {
    run(this.#sql, "INSERT INTO graph_scores (tool, score) VALUES (?, ?) ON CONFLICT (tool) DO UPDATE SET score = excluded.score", tool, score);
  }

  deleteScore(tool: string): void {
    run(this.#sql, "DELETE FROM graph_scores WHERE tool = ?", tool);
  }

  /** The task texts of the stored trajectories that have one, by trajectory id. */
  taskTexts(): Map<string, string> {
    return new Map(
      allRows<{ id: string; task: string }>(this.#sql, "SELECT id, task FROM graph_trajectories WHERE task IS NOT NULL").map((r) => [r.id, r.task]),
    );
  }

  /** Replace every trajectory and score with these (an imported graph). */
  replaceAll(trajectories: readonly (StoredTrajectory & { task: string | null })[], scores: readonly { tool: string; score: number }[]): void {
    run(this.#sql, "DELETE FROM graph_trajectories");
    run(this.#sql, "DELETE FROM graph_scores");
    for (const t of trajectories) run(this.#sql, "INSERT INTO graph_trajectories (id, tools, task) VALUES (?, ?, ?)", t.id, JSON.stringify(t.tools), t.task);
    for (const s of scores) run(this.#sql, "INSERT INTO graph_scores (tool, score) VALUES (?, ?)", s.tool, s.score);
  }
}

function parsed(rows: { id: string; tools: string }[]): StoredTrajectory[] {
  return rows.map((row) => ({ id: row.id, tools: JSON.parse(row.tools) as string[] }));
}

function parsedTasks(rows: { id: string; tools: string; task: string }[]): StoredTask[] {
  return rows.map((row) => ({ id: row.id, task: row.task, tools: JSON.parse(row.tools) as string[] }));
}
