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
    run(this.#sql, "INSERT INTO webhook_secrets (id, ciphertext, iv, created_at, expires_at) VALUES (?, ?, ?, ?, NULL)", secret.id, secret.ciphertext, secret.iv, secret.createdAt);
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
   * Claim a delivery id. Exactly one caller gets `claimed: true`; the others learn the job it
   * started (or that it is still being handled). Synchronous, so concurrent claims serialise.
   */
  claimDelivery(id: string): { claimed: boolean; jobId: string | null; outcome: string | null } {
    const written = run(this.#sql, "INSERT INTO webhook_deliveries (id, received_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", id, new Date().toISOString());
    if (written > 0) return { claimed: true, jobId: null, outcome: null };
    const row = oneRow<{ job_id: string | null; outcome: string | null }>(this.#sql, "SELECT job_id, outcome FROM webhook_deliveries WHERE id = ?", id);
    return { claimed: false, jobId: row?.job_id ?? null, outcome: row?.outcome ?? null };
  }

  completeDelivery(id: string, jobId: string | null, outcome: string): void {
    run(this.#sql, "UPDATE webhook_deliveries SET job_id = ?, outcome = ? WHERE id = ?", jobId, outcome, id);
  }

  /** A delivery whose handling failed before it changed anything may be delivered again. */
  releaseDelivery(id: string): void {
    run(this.#sql, "DELETE FROM webhook_deliveries WHERE id = ? AND job_id IS NULL", id);
  }
}
