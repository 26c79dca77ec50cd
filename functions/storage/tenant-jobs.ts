import { allRows, oneRow, run, storedNow } from "./sql";
import { Waiters } from "./waiters";

export type JobKind = "probe" | "optimize" | "import" | "examples";
export type JobStatus = "queued" | "running" | "succeeded" | "failed";

export interface JobRecord {
  id: string;
  kind: JobKind;
  status: JobStatus;
  request: unknown;
  progress: Record<string, unknown>;
  result: unknown;
  usage: Record<string, unknown>;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  items: { tool: string; status: string; detail: unknown; updatedAt: string }[];
}

interface JobRow {
  id: string;
  kind: JobKind;
  status: JobStatus;
  request: string;
  progress: string;
  result: string | null;
  usage: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** A job in one of these states never changes again. */
export const FINAL_JOB_STATES: ReadonlySet<JobStatus> = new Set(["succeeded", "failed"]);

/** How many times a job is started again after its run failed, before it is marked failed. */
export const MAX_JOB_ATTEMPTS = 4;

/**
 * Background jobs of one tenant (probing, prompt optimisation): a table of due work that the
 * object's single alarm drains. Per-tool items record progress, so a job interrupted by an
 * eviction or a crash resumes where it stopped instead of redoing finished tools.
 */
/** Model tokens of the jobs updated since a time: read through the `jobs_updated` index, so only those jobs' rows are touched. */
export const JOB_TOKENS_SINCE = "SELECT SUM(json_extract(usage, '$.totalTokens')) AS n FROM jobs WHERE updated_at >= ?";

export class TenantJobs {
  readonly #sql: SqlStorage;
  readonly #schedule: () => Promise<void>;
  /** Callers of `waitFor`, woken when their job reaches a final state. */
  readonly #finished = new Waiters();

  /** `schedule`: make sure the object's alarm fires when the next job is due. */
  constructor(sql: SqlStorage, schedule: () => Promise<void>) {
    this.#sql = sql;
    this.#schedule = schedule;
  }

  /** Create a job (or find the one already created under the same dedupe key) and schedule it. */
  async create(kind: JobKind, request: unknown, dedupeKey: string | null): Promise<{ id: string; created: boolean }> {
    const job = this.#insert(kind, request, dedupeKey);
    await this.#schedule();
    return job;
  }

  #insert(kind: JobKind, request: unknown, dedupeKey: string | null): { id: string; created: boolean } {
    if (dedupeKey !== null) {
      const existing = oneRow<{ id: string }>(this.#sql, "SELECT id FROM jobs WHERE dedupe_key = ?", dedupeKey);
      if (existing !== undefined) return { id: existing.id, created: false };
    }
    const id = `job_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const stamp = storedNow();
    run(
      this.#sql,
      "INSERT INTO jobs (id, kind, status, dedupe_key, request, next_at, created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)",
      id,
      kind,
      dedupeKey,
      JSON.stringify(request),
      Date.now(),
      stamp,
      stamp,
    );
    return { id, created: true };
  }

  get(id: string): JobRecord | undefined {
    const row = oneRow<JobRow>(this.#sql, "SELECT * FROM jobs WHERE id = ?", id);
    if (row === undefined) return undefined;
    const items = allRows<{ tool: string; status: string; detail: string; updated_at: string }>(
      this.#sql,
      "SELECT tool, status, detail, updated_at FROM job_items WHERE job_id = ? ORDER BY tool",
      id,
    ).map((item) => ({ tool: item.tool, status: item.status, detail: JSON.parse(item.detail) as unknown, updatedAt: item.updated_at }));
    return {
      id: row.id,
      kind: row.kind,
      status: row.status,
      request: JSON.parse(row.request) as unknown,
      progress: JSON.parse(row.progress) as Record<string, unknown>,
      result: row.result === null ? null : (JSON.parse(row.result) as unknown),
      usage: JSON.parse(row.usage) as Record<string, unknown>,
      attempts: row.attempts,
      lastError: row.last_error,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      items,
    };
  }

  /**
   * The job as soon as it reaches a final state, or as stored when `waitMs` runs out (long-poll).
   * Wake-ups only shorten the wait: the answer is always read from storage.
   */
  async waitFor(id: string, waitMs: number): Promise<JobRecord | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const job = this.get(id);
      const left = deadline - Date.now();
      if (job === undefined || FINAL_JOB_STATES.has(job.status) || left <= 0) return job;
      if (!(await this.#finished.wait(id, left))) return this.get(id);
    }
  }

  list(limit: number): { id: string; kind: JobKind; status: JobStatus; createdAt: string }[] {
    return allRows<{ id: string; kind: JobKind; status: JobStatus; created_at: string }>(
      this.#sql,
      "SELECT id, kind, status, created_at FROM jobs ORDER BY created_at DESC, id DESC LIMIT ?",
      limit,
    ).map((r) => ({ id: r.id, kind: r.kind, status: r.status, createdAt: r.created_at }));
  }

  /** Jobs whose turn has come (queued, or running when an earlier run was interrupted). */
  due(nowMs: number): { id: string; kind: JobKind; attempts: number }[] {
    return allRows<{ id: string; kind: JobKind; attempts: number }>(
      this.#sql,
      "SELECT id, kind, attempts FROM jobs WHERE status IN ('queued', 'running') AND next_at <= ? ORDER BY next_at LIMIT 3",
      nowMs,
    );
  }

  /** Earliest time any unfinished job is due, or null. */
  nextDue(): number | null {
    return oneRow<{ due: number | null }>(this.#sql, "SELECT MIN(next_at) AS due FROM jobs WHERE status IN ('queued', 'running')")?.due ?? null;
  }

  /** Mark a job as started; if the process dies now, the alarm finds it running and resumes it. */
  start(id: string): void {
    run(this.#sql, "UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = ? WHERE id = ?", storedNow(), id);
  }

  /** A job that ended its time slice with work left: due again at once, its attempts counted afresh (it made progress). */
  continueLater(id: string): void {
    run(this.#sql, "UPDATE jobs SET status = 'running', attempts = 0, next_at = ?, updated_at = ? WHERE id = ?", Date.now(), storedNow(), id);
  }

  progress(id: string, progress: Record<string, unknown>, usage: Record<string, unknown>): void {
    run(this.#sql, "UPDATE jobs SET progress = ?, usage = ?, updated_at = ? WHERE id = ?", JSON.stringify(progress), JSON.stringify(usage), storedNow(), id);
  }

  setItem(jobId: string, tool: string, status: string, detail: unknown): void {
    run(
      this.#sql,
      "INSERT INTO job_items (job_id, tool, status, detail, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (job_id, tool) DO UPDATE SET status = excluded.status, detail = excluded.detail, updated_at = excluded.updated_at",
      jobId,
      tool,
      status,
      JSON.stringify(detail),
      storedNow(),
    );
  }

  itemStatus(jobId: string): Map<string, string> {
    return new Map(
      allRows<{ tool: string; status: string }>(this.#sql, "SELECT tool, status FROM job_items WHERE job_id = ?", jobId).map((r) => [r.tool, r.status]),
    );
  }

  finish(id: string, status: "succeeded" | "failed", result: unknown): void {
    run(this.#sql, "UPDATE jobs SET status = ?, result = ?, updated_at = ? WHERE id = ?", status, JSON.stringify(result), storedNow(), id);
    this.#finished.wake(id);
  }

  /** A transient failure: try again later with exponential backoff, or give up after the limit. */
  retryLater(id: string, attempts: number, error: string): void {
    if (attempts >= MAX_JOB_ATTEMPTS) {
      run(this.#sql, "UPDATE jobs SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?", error.slice(0, 1_000), storedNow(), id);
      this.#finished.wake(id);
      return;
    }
    run(
      this.#sql,
      "UPDATE jobs SET status = 'queued', last_error = ?, next_at = ?, updated_at = ? WHERE id = ?",
      error.slice(0, 1_000),
      Date.now() + 2 ** attempts * 1_000,
      storedNow(),
      id,
    );
  }

  /** Jobs queued or running (the tenant's jobs-in-flight quota). */
  inFlight(): number {
    return oneRow<{ n: number }>(this.#sql, "SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running')")?.n ?? 0;
  }

  /** True when an optimisation job for `tool` is queued or running. */
  optimizationPending(tool: string): boolean {
    const row = oneRow<{ id: string }>(
      this.#sql,
      "SELECT id FROM jobs WHERE kind = 'optimize' AND status IN ('queued', 'running') AND json_extract(request, '$.tool') = ?",
      tool,
    );
    return row !== undefined;
  }

  /** Model tokens of jobs updated since `sinceIso`. */
  modelTokensSince(sinceIso: string): number {
    return oneRow<{ n: number | null }>(this.#sql, JOB_TOKENS_SINCE, sinceIso)?.n ?? 0;
  }

  /** Every probe job's items (tool, status, detail JSON), oldest job and update first. */
  probeItems(): { tool: string; status: string; detail: string }[] {
    return allRows(
      this.#sql,
      `SELECT i.tool, i.status, i.detail FROM job_items i JOIN jobs j ON j.id = i.job_id
       WHERE j.kind = 'probe' ORDER BY j.created_at ASC, i.updated_at ASC`,
    );
  }
}
