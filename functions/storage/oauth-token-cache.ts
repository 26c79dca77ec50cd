import { oneRow, run } from "./sql";

/**
 * Access tokens the service fetched for client-credentials credentials (`tenant_oauth_tokens`),
 * sealed like the credentials themselves, one per credential, reused until shortly before
 * expiry. Part of the registry: a token lives only as long as its credential.
 */

export interface SealedToken {
  ciphertext: string;
  iv: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export function cachedToken(sql: SqlStorage, credentialId: string): SealedToken | undefined {
  const row = oneRow<{ ciphertext: string; iv: string; expires_at: number }>(
    sql,
    "SELECT ciphertext, iv, expires_at FROM tenant_oauth_tokens WHERE credential_id = ?",
    credentialId,
  );
  return row === undefined ? undefined : { ciphertext: row.ciphertext, iv: row.iv, expiresAt: row.expires_at };
}

/** Keep a token, for a credential that still exists (a deleted one's late token is dropped). */
export function cacheToken(sql: SqlStorage, credentialId: string, token: SealedToken): void {
  run(
    sql,
    `INSERT INTO tenant_oauth_tokens (credential_id, ciphertext, iv, expires_at)
     SELECT id, ?, ?, ? FROM tenant_credentials WHERE id = ?
     ON CONFLICT (credential_id) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv, expires_at = excluded.expires_at`,
    token.ciphertext,
    token.iv,
    token.expiresAt,
    credentialId,
  );
}

/** Drop the tokens of credentials that no longer exist (after a delete or a replacement). */
export function forgetOrphanTokens(sql: SqlStorage): void {
  run(sql, "DELETE FROM tenant_oauth_tokens WHERE credential_id NOT IN (SELECT id FROM tenant_credentials)");
}
