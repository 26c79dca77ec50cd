import { oneRow, run } from "./sql";

/** Keys are kept this long (the IETF draft leaves it to the server; 24 h is what the issue asks). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** A request still "in flight" after this long lost its handler: the key may be used again. */
export const IDEMPOTENCY_LEASE_MS = 15 * 60_000;

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string;
}

export type IdempotencyBegin = { state: "started" } | { state: "replay"; response: StoredResponse } | { state: "mismatch" } | { state: "in-flight" };

/**
 * `Idempotency-Key` records of one tenant: the request's fingerprint, and once it succeeded, the
 * response to replay. Synchronous SQL in the tenant's object, so two requests with one key cannot
 * both start.
 */
export class TenantIdempotency {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  begin(key: string, fingerprint: string, nowMs: number): IdempotencyBegin {
    run(this.#sql, "DELETE FROM idempotency_keys WHERE created_at < ?", nowMs - IDEMPOTENCY_TTL_MS);
    const row = oneRow<{ fingerprint: string; state: string; status: number | null; content_type: string | null; body: string | null; created_at: number }>(
      this.#sql,
      "SELECT fingerprint, state, status, content_type, body, created_at FROM idempotency_keys WHERE key = ?",
      key,
    );
    if (row !== undefined) {
      if (row.fingerprint !== fingerprint) return { state: "mismatch" };
      if (row.state === "done") return { state: "replay", response: { status: row.status ?? 200, contentType: row.content_type, body: row.body ?? "" } };
      if (nowMs - row.created_at < IDEMPOTENCY_LEASE_MS) return { state: "in-flight" };
    }
    run(
      this.#sql,
      "INSERT INTO idempotency_keys (key, fingerprint, state, created_at) VALUES (?, ?, 'in-flight', ?) ON CONFLICT (key) DO UPDATE SET state = 'in-flight', created_at = excluded.created_at",
      key,
      fingerprint,
      nowMs,
    );
    return { state: "started" };
  }

  complete(key: string, response: StoredResponse): void {
    run(
      this.#sql,
      "UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, body = ? WHERE key = ? AND state = 'in-flight'",
      response.status,
      response.contentType,
      response.body,
      key,
    );
  }

  /** The request failed (and changed nothing): the key may be used again. */
  abandon(key: string): void {
    run(this.#sql, "DELETE FROM idempotency_keys WHERE key = ? AND state = 'in-flight'", key);
  }
}
