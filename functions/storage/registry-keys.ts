import { failure, success, type Outcome } from "../common/failures";
import { generateApiKey, sha256Hex } from "../tenants/api-keys";
import { allRows, oneRow, run, storedNow } from "./sql";

/**
 * The tenant's API keys (`tenant_api_keys`), part of the registry: issuing, listing, revoking and
 * checking them. Only a key's SHA-256 is stored; the registry keeps the keys found valid in memory.
 */

/** What lists show of an API key (never the key or its hash). */
export interface ApiKeySummary {
  id: string;
  prefix: string;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

interface KeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** True when a non-revoked key has this hash. */
export function isActiveKey(sql: SqlStorage, keyHash: string): boolean {
  return oneRow<{ id: string }>(sql, "SELECT id FROM tenant_api_keys WHERE key_hash = ? AND revoked_at IS NULL", keyHash) !== undefined;
}

/** Issue a new key of the tenant; the clear key is returned once and never stored. */
export async function issueKey(sql: SqlStorage, tenantId: string, label: string | null): Promise<ApiKeySummary & { key: string }> {
  const { key, prefix } = generateApiKey(tenantId);
  const keyHash = await sha256Hex(key);
  const id = `key_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const createdAt = storedNow();
  run(sql, "INSERT INTO tenant_api_keys (id, prefix, key_hash, label, created_at) VALUES (?, ?, ?, ?, ?)", id, prefix, keyHash, label, createdAt);
  return { id, prefix, label, createdAt, revokedAt: null, key };
}

export function keySummaries(sql: SqlStorage): ApiKeySummary[] {
  return allRows<KeyRow>(sql, "SELECT id, prefix, label, created_at, revoked_at FROM tenant_api_keys ORDER BY created_at, id").map(keyFromRow);
}

/** Mark a key revoked (a revoked one stays as it was). */
export function revokeKeyRow(sql: SqlStorage, id: string): Outcome<ApiKeySummary> {
  const written = run(sql, "UPDATE tenant_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", storedNow(), id);
  const row = oneRow<KeyRow>(sql, "SELECT id, prefix, label, created_at, revoked_at FROM tenant_api_keys WHERE id = ?", id);
  if (row === undefined) return failure("not-found", `no API key ${id}`);
  if (written === 0 && row.revoked_at === null) return failure("internal", "revocation did not apply");
  return success(keyFromRow(row));
}

function keyFromRow(row: KeyRow): ApiKeySummary {
  return { id: row.id, prefix: row.prefix, label: row.label, createdAt: row.created_at, revokedAt: row.revoked_at };
}
