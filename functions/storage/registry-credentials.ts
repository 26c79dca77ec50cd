import { allRows, oneRow, run } from "./sql";
import { forgetOrphanTokens } from "./oauth-token-cache";

/**
 * The credentials that apply to the tenant's tools (`tenant_credentials`), part of the registry:
 * one per scope, stored sealed by the Worker; replacing or deleting one forgets its cached tokens.
 */

/** `oauth2ClientCredentials`: the sealed value is a client id, secret and token URL (JSON); calls send a fetched token. */
export type CredentialScheme = "apiKey" | "bearer" | "oauth2ClientCredentials";

export type CredentialScope = { kind: "tool"; value: string } | { kind: "server"; value: string };

/** A stored credential as the API may show it: where it applies and a masked hint. */
export interface CredentialSummary {
  id: string;
  scope: CredentialScope;
  scheme: CredentialScheme;
  in: "header" | "query";
  name: string | null;
  hint: string;
  createdAt: string;
}

/** A credential with its sealed secret; only the Worker's call path decrypts it. */
export interface SealedCredential extends CredentialSummary {
  ciphertext: string;
  iv: string;
}

interface CredentialRow {
  id: string;
  scope_kind: "tool" | "server";
  scope_value: string;
  scheme: CredentialScheme;
  location: "header" | "query";
  param_name: string | null;
  ciphertext: string;
  iv: string;
  hint: string;
  created_at: string;
}

/** Store (or replace) the credential of its scope; the caller holds the transaction. */
export function replaceCredential(sql: SqlStorage, credential: SealedCredential): void {
  run(sql, "DELETE FROM tenant_credentials WHERE scope_kind = ? AND scope_value = ?", credential.scope.kind, credential.scope.value);
  run(
    sql,
    `INSERT INTO tenant_credentials (id, scope_kind, scope_value, scheme, location, param_name, ciphertext, iv, hint, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    credential.id,
    credential.scope.kind,
    credential.scope.value,
    credential.scheme,
    credential.in,
    credential.name,
    credential.ciphertext,
    credential.iv,
    credential.hint,
    credential.createdAt,
  );
  forgetOrphanTokens(sql);
}

export function credentialSummaries(sql: SqlStorage): CredentialSummary[] {
  return allRows<CredentialRow>(sql, "SELECT * FROM tenant_credentials ORDER BY created_at, id").map((row) => withoutSecret(credentialFromRow(row)));
}

export function deleteCredentialRow(sql: SqlStorage, id: string): boolean {
  const deleted = run(sql, "DELETE FROM tenant_credentials WHERE id = ?", id) > 0;
  forgetOrphanTokens(sql);
  return deleted;
}

/**
 * The credential that applies to a tool: a tool-scoped one wins over a server-scoped one; among
 * servers, the longest base URL that matches the tool's server URL wins.
 */
export function credentialForTool(sql: SqlStorage, name: string, serverUrl: string): SealedCredential | undefined {
  const byTool = oneRow<CredentialRow>(sql, "SELECT * FROM tenant_credentials WHERE scope_kind = 'tool' AND scope_value = ?", name);
  if (byTool !== undefined) return credentialFromRow(byTool);
  const servers = allRows<CredentialRow>(sql, "SELECT * FROM tenant_credentials WHERE scope_kind = 'server'")
    .filter((row) => serverUrl === row.scope_value || serverUrl.startsWith(`${row.scope_value}/`))
    .sort((a, b) => b.scope_value.length - a.scope_value.length);
  const server = servers[0];
  return server === undefined ? undefined : credentialFromRow(server);
}

export function withoutSecret({ ciphertext: _c, iv: _i, ...summary }: SealedCredential): CredentialSummary {
  return summary;
}

function credentialFromRow(row: CredentialRow): SealedCredential {
  return {
    id: row.id,
    scope: { kind: row.scope_kind, value: row.scope_value },
    scheme: row.scheme,
    in: row.location,
    name: row.param_name,
    hint: row.hint,
    createdAt: row.created_at,
    ciphertext: row.ciphertext,
    iv: row.iv,
  };
}
