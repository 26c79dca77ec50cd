import type { EvaluationRequest } from "../chain/evaluator";
import { allRows, oneRow, run, storedNow } from "./sql";

const MAX_EVALUATION_ATTEMPTS = 5;

/**
 * The model tokens of runs started since a time (`?`, ISO): answered from the index on
 * (created_at, total_tokens) alone, so a run's admission reads today's runs only, not their records.
 */
export const RUN_TOKENS_SINCE = "SELECT SUM(total_tokens) AS n FROM runs WHERE created_at >= ?";

/** Stored ATC runs and the queue of finished runs waiting for the evaluator. */
export class TenantRuns {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Model tokens of runs started since `sinceIso`. */
  modelTokensSince(sinceIso: string): number {
    return oneRow<{ n: number | null }>(this.#sql, RUN_TOKENS_SINCE, sinceIso)?.n ?? 0;
  }

  /** Store a run's record (JSON text), with its model tokens (`usage.totalTokens`) beside it for quotas. */
  save(id: string, task: string, status: string, recordJson: string): void {
    run(
      this.#sql,
      `INSERT INTO runs (id, created_at, status, task, record, total_tokens) VALUES (?1, ?2, ?3, ?4, ?5, json_extract(?5, '$.usage.totalTokens'))
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, record = excluded.record, total_tokens = excluded.total_tokens`,
      id,
      storedNow(),
      status,
      task,
      recordJson,
    );
  }

  get(id: string): string | undefined {
    return oneRow<{ record: string }>(this.#sql, "SELECT record FROM runs WHERE id = ?", id)?.record;
  }

  list(limit: number): { id: string; createdAt: string; status: string; task: string }[] {
    return allRows<{ id: string; created_at: string; status: string; task: string }>(
      this.#sql,
      "SELECT id, created_at, status, task FROM runs ORDER BY created_at DESC, id DESC LIMIT ?",
      limit,
    ).map((r) => ({ id: r.id, createdAt: r.created_at, status: r.status, task: r.task }));
  }

  enqueueEvaluation(runId: string, evaluation: EvaluationRequest): void {
    run(
      this.#sql,
      "INSERT INTO evaluation_queue (id, payload, due_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      runId,
      JSON.stringify(evaluation),
      Date.now(),
    );
  }

  evaluationStatus(runId: string): { attempts: number; done: boolean; scores: number[] | null; lastError: string | null } | undefined {
    const row = oneRow<{ attempts: number; done_at: string | null; scores: string | null; last_error: string | null }>(
      this.#sql,
      "SELECT attempts, done_at, scores, last_error FROM evaluation_queue WHERE id = ?",
      runId,
    );
    return row === undefined
      ? undefined
      : {
          attempts: row.attempts,
          done: row.done_at !== null,
          scores: row.scores === null ? null : (JSON.parse(row.scores) as number[]),
          lastError: row.last_error,
        };
  }

  nextEvaluationDue(): number | null {
    return oneRow<{ due: number | null }>(this.#sql, "SELECT MIN(due_at) AS due FROM evaluation_queue WHERE done_at IS NULL")?.due ?? null;
  }

  /** Evaluate due runs; failures retry with exponential backoff, up to a limit. */
  async processEvaluations(evaluate: (request: EvaluationRequest) => Promise<number[]>): Promise<void> {
    const due = allRows<{ id: string; payload: string; attempts: number }>(
      this.#sql,
      "SELECT id, payload, attempts FROM evaluation_queue WHERE done_at IS NULL AND due_at <= ? ORDER BY due_at LIMIT 5",
      Date.now(),
    );
    for (const item of due) {
      try {
        const scores = await evaluate(JSON.parse(item.payload) as EvaluationRequest);
        run(
          this.#sql,
          "UPDATE evaluation_queue SET done_at = ?, scores = ?, attempts = attempts + 1 WHERE id = ?",
          storedNow(),
          JSON.stringify(scores),
          item.id,
        );
      } catch (error) {
        const attempts = item.attempts + 1;
        const message = error instanceof Error ? error.message : String(error);
        run(
          this.#sql,
          "UPDATE evaluation_queue SET attempts = ?, last_error = ?, due_at = ?, done_at = ? WHERE id = ?",
          attempts,
          message.slice(0, 500),
          Date.now() + 2 ** attempts * 1_000,
          attempts >= MAX_EVALUATION_ATTEMPTS ? storedNow() : null,
          item.id,
        );
      }
    }
  }

  /** The newest runs with their stored records, newest first. */
  newest(limit: number): { id: string; created_at: string; status: string; task: string; record: string }[] {
    return allRows(this.#sql, "SELECT id, created_at, status, task, record FROM runs ORDER BY created_at DESC, id DESC LIMIT ?", limit);
  }

  /** The newest evaluated runs: the evaluator's request and its scores (JSON), newest first. */
  newestEvaluations(limit: number): { payload: string; scores: string }[] {
    return allRows(this.#sql, "SELECT payload, scores FROM evaluation_queue WHERE scores IS NOT NULL ORDER BY done_at DESC LIMIT ?", limit);
  }
}
