import { allRows, oneRow, run } from "./sql";

export interface SealedWebhookSecret {
  id: string;
  ciphertext: string;
  iv: string;
  createdAt: string;
  /** Unix ms after which the secret no longer verifies (set when it was rotated out). */
  expiresAt: number | null;
}

/**
 * A tenant's webhook secrets (sealed; the Worker decrypts them to verify signatures) and the
 * deliveries seen, so one `webhook-id` starts at most one job however often it arrives.
 */
export class TenantWebhooks {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Add a secret; older ones stay valid until `previousValidUntil` (rotation), or expire now. */
  addSecret(secret: Omit<SealedWebhookSecret, "expiresAt">, previousValidUntil: number): void {
    run(this.#sql, "UPDATE webhook_secrets SET expires_at = ? WHERE expires_at IS NULL OR expires_at > ?", previousValidUntil, previousValidUntil);
    run(
      this.#sql,
      "INSERT INTO webhook_secrets (id, ciphertext, iv, created_at, expires_at) VALUES (?, ?, ?, ?, NULL)",
      secret.id,
      secret.ciphertext,
      secret.iv,
      secret.createdAt,
    );
  }

  /** Secrets that verify now. */
  validSecrets(nowMs: number): SealedWebhookSecret[] {
    return allRows<{ id: string; ciphertext: string; iv: string; created_at: string; expires_at: number | null }>(
      this.#sql,
      "SELECT * FROM webhook_secrets WHERE expires_at IS NULL OR expires_at > ? ORDER BY created_at DESC",
      nowMs,
    ).map((r) => ({ id: r.id, ciphertext: r.ciphertext, iv: r.iv, createdAt: r.created_at, expiresAt: r.expires_at }));
  }

  /** What the API shows: ids and dates, never the secrets. */
  listSecrets(): { id: string; createdAt: string; expiresAt: number | null }[] {
    return allRows<{ id: string; created_at: string; expires_at: number | null }>(
      this.#sql,
      "SELECT id, created_at, expires_at FROM webhook_secrets ORDER BY created_at DESC",
    ).map((r) => ({ id: r.id, createdAt: r.created_at, expiresAt: r.expires_at }));
  }

  /**
   * Claim a delivery id. Exactly one caller at a time gets `claimed`; the others learn how the
   * first one is doing: `succeeded` (a duplicate of a delivery that worked, with its job),
   * `in-flight` (still being handled: retry later), or `other-body` (the id was used for another
   * body: a sender's bug or a forgery with a leaked secret, never a redelivery). A delivery whose
   * handling failed, or whose handler vanished (lease expired), is claimed again, so a retry after
   * a failure is processed. Synchronous, so concurrent claims serialise.
   */
  claimDelivery(id: string, bodyHash: string | null = null, nowMs = Date.now()): DeliveryClaim {
    const receivedAt = new Date(nowMs).toISOString();
    const written = run(
      this.#sql,
      "INSERT INTO webhook_deliveries (id, received_at, body_hash) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      id,
      receivedAt,
      bodyHash,
    );
    if (written > 0) return { state: "claimed" };
    const row = oneRow<{ job_id: string | null; outcome: string | null; received_at: string; body_hash: string | null }>(
      this.#sql,
      "SELECT job_id, outcome, received_at, body_hash FROM webhook_deliveries WHERE id = ?",
      id,
    );
    if (row?.body_hash != null && bodyHash !== null && row.body_hash !== bodyHash && row.outcome !== FAILED) return { state: "other-body" };
    if (row?.outcome === "accepted") return { state: "succeeded", jobId: row.job_id };
    const abandoned = row !== undefined && row.outcome === null && nowMs - Date.parse(row.received_at) > DELIVERY_LEASE_MS;
    if (row?.outcome === FAILED || abandoned) {
      run(this.#sql, "UPDATE webhook_deliveries SET outcome = NULL, job_id = NULL, received_at = ?, body_hash = ? WHERE id = ?", receivedAt, bodyHash, id);
      return { state: "claimed" };
    }
    return { state: "in-flight" };
  }

  completeDelivery(id: string, jobId: string | null, outcome: string): void {
    run(this.#sql, "UPDATE webhook_deliveries SET job_id = ?, outcome = ? WHERE id = ?", jobId, outcome, id);
  }

  /** Handling failed (and changed nothing): the next delivery of this id is processed again. */
  failDelivery(id: string): void {
    run(this.#sql, "UPDATE webhook_deliveries SET outcome = ? WHERE id = ? AND outcome IS NULL", FAILED, id);
  }
}

const FAILED = "failed";
/** A delivery still "in flight" after this long lost its handler (an evicted Worker): claim it again. */
export const DELIVERY_LEASE_MS = 120_000;

export type DeliveryClaim = { state: "claimed" } | { state: "in-flight" } | { state: "succeeded"; jobId: string | null } | { state: "other-body" };
