import { failure, success, type Outcome } from "../common/failures";
import { generateApiKey, sha256Hex } from "../tenants/api-keys";
import type { ToolDefinition } from "../tools/definition";
import { toolLimitMessage } from "../tools/tool-limit";
import type { TenantEvents } from "./tenant-events";
import { allRows, oneRow, run } from "./sql";
import { cachedToken, cacheToken, forgetOrphanTokens, type SealedToken } from "./oauth-token-cache";

/** What lists show of an API key (never the key or its hash). */
export interface ApiKeySummary {
  id: string;
  prefix: string;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface ToolRecord {
  definition: ToolDefinition;
  hash: string;
  source: string;
  createdAt: string;
  updatedAt: string;
}

export interface ToolUpsert {
  definition: ToolDefinition;
  hash: string;
}

export interface UpsertReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}

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

interface KeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface ToolSummary {
  name: string;
  operation: string;
  summary?: string;
  hash: string;
  source: string;
  updatedAt: string;
}

interface ToolRow {
  name: string;
  definition: string;
  hash: string;
  source: string;
  created_at: string;
  updated_at: string;
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

const now = (): string => new Date().toISOString();

function toolFromRow(row: ToolRow): ToolRecord {
  return {
    definition: JSON.parse(row.definition) as ToolDefinition,
    hash: row.hash,
    source: row.source,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
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

function withoutSecret({ ciphertext: _c, iv: _i, ...summary }: SealedCredential): CredentialSummary {
  return summary;
}

/** The tenant's identity as stored in `tenant_meta`. */
export interface TenantInfo {
  id: string;
  name: string;
  createdAt: string;
  toolCount: number;
}

/**
 * Each registered tool's current definition hash (columns `name`, `hash`), as SQL another store
 * may join its own rows on in one read: the registry's table stays described here, by its owner.
 */
export const CURRENT_TOOL_HASHES = "SELECT name, hash FROM tenant_tools";

/**
 * A tenant's registry: who it is, its API keys, its tools and the credentials that apply to them
 * (tables `tenant_meta` identity rows, `tenant_api_keys`, `tenant_tools`, `tenant_credentials`).
 * Tool changes are announced on the tenant's events inside the same transaction, so routing and
 * tool views follow them.
 */
export class TenantRegistry {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  readonly #events: TenantEvents;
  #hashes: { generation: number; byName: Map<string, string> } | undefined;
  /** The tenant's id once read (it never changes after `initialize`). */
  #tenantId: string | undefined;
  /**
   * Hashes of keys found valid this object lifetime: every request checks its key, and each key
   * change goes through this object, so a revocation clears them before its very next request.
   */
  readonly #validKeys = new Set<string>();

  constructor(storage: DurableObjectStorage, events: TenantEvents) {
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#events = events;
  }

  /** The tenant's id, or undefined before `initialize`. */
  tenantId(): string | undefined {
    this.#tenantId ??= oneRow<{ value: string }>(this.#sql, "SELECT value FROM tenant_meta WHERE key = 'id'")?.value;
    return this.#tenantId;
  }

  /** Create the tenant in this object; fails when it exists already. */
  initialize(tenantId: string, name: string): Outcome<{ id: string; name: string; createdAt: string }> {
    if (this.tenantId() !== undefined) return failure("conflict", `tenant ${tenantId} exists already`);
    const createdAt = now();
    this.#storage.transactionSync(() => {
      run(this.#sql, "INSERT INTO tenant_meta (key, value) VALUES ('id', ?), ('name', ?), ('created_at', ?)", tenantId, name, createdAt);
    });
    return success({ id: tenantId, name, createdAt });
  }

  info(): TenantInfo | undefined {
    const meta = new Map(
      allRows<{ key: string; value: string }>(this.#sql, "SELECT key, value FROM tenant_meta WHERE key IN ('id', 'name', 'created_at')").map((r) => [
        r.key,
        r.value,
      ]),
    );
    const id = meta.get("id");
    if (id === undefined) return undefined;
    const toolCount = oneRow<{ n: number }>(this.#sql, "SELECT COUNT(*) AS n FROM tenant_tools")?.n ?? 0;
    return { id, name: meta.get("name") ?? id, createdAt: meta.get("created_at") ?? "", toolCount };
  }

  /** True when a non-revoked key with this hash belongs to this tenant. */
  authenticate(keyHash: string): boolean {
    if (this.#validKeys.has(keyHash)) return true;
    if (this.tenantId() === undefined) return false;
    const valid = oneRow<{ id: string }>(this.#sql, "SELECT id FROM tenant_api_keys WHERE key_hash = ? AND revoked_at IS NULL", keyHash) !== undefined;
    if (valid) this.#validKeys.add(keyHash);
    return valid;
  }

  /** Issue a new API key; the clear key is returned once and never stored. */
  async createKey(label: string | null): Promise<Outcome<ApiKeySummary & { key: string }>> {
    const tenantId = this.tenantId();
    if (tenantId === undefined) return failure("not-found", "no such tenant");
    const { key, prefix } = generateApiKey(tenantId);
    const keyHash = await sha256Hex(key);
    const id = `key_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const createdAt = now();
    run(this.#sql, "INSERT INTO tenant_api_keys (id, prefix, key_hash, label, created_at) VALUES (?, ?, ?, ?, ?)", id, prefix, keyHash, label, createdAt);
    return success({ id, prefix, label, createdAt, revokedAt: null, key });
  }

  listKeys(): ApiKeySummary[] {
    return allRows<KeyRow>(this.#sql, "SELECT id, prefix, label, created_at, revoked_at FROM tenant_api_keys ORDER BY created_at, id").map(keyFromRow);
  }

  /** Revoke a key; effective for the very next request, since every request asks this object. */
  revokeKey(id: string): Outcome<ApiKeySummary> {
    this.#validKeys.clear();
    const written = run(this.#sql, "UPDATE tenant_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", now(), id);
    const row = oneRow<KeyRow>(this.#sql, "SELECT id, prefix, label, created_at, revoked_at FROM tenant_api_keys WHERE id = ?", id);
    if (row === undefined) return failure("not-found", `no API key ${id}`);
    if (written === 0 && row.revoked_at === null) return failure("internal", "revocation did not apply");
    return success(keyFromRow(row));
  }

  /** How many tools the tenant would hold after upsertTools(names, source, prune) (tools/tool-limit.ts). */
  toolCountAfter(names: string[], source: string, prune: boolean): number {
    const after = new Set(names);
    for (const row of allRows<{ name: string; source: string }>(this.#sql, "SELECT name, source FROM tenant_tools")) {
      if (!prune || row.source !== source) after.add(row.name);
    }
    return after.size;
  }

  /**
   * Create or update tools in one transaction. A tool whose hash is unchanged is not touched, so
   * re-registering the same document changes nothing. With `prune`, tools of the same source
   * that the new set no longer has are removed. A change that would leave more than `maxTools`
   * is refused whole, here, where no other import can interleave with the count.
   */
  upsertTools(
    tools: ToolUpsert[],
    source: string,
    prune: boolean,
    maxTools = Number.POSITIVE_INFINITY,
    /** Written in the same transaction (a background import's cursor), so neither lands without the other. */
    alsoInTransaction?: (report: UpsertReport) => void,
  ): Outcome<UpsertReport> {
    const total = this.toolCountAfter(
      tools.map((t) => t.definition.name),
      source,
      prune,
    );
    if (total > maxTools) return failure("invalid-document", toolLimitMessage(total, maxTools));
    const report: UpsertReport = { created: [], updated: [], unchanged: [], removed: [] };
    const stamp = now();
    this.#storage.transactionSync(() => {
      for (const { definition, hash } of tools) {
        const existing = oneRow<{ hash: string }>(this.#sql, "SELECT hash FROM tenant_tools WHERE name = ?", definition.name);
        if (existing === undefined) {
          run(
            this.#sql,
            "INSERT INTO tenant_tools (name, definition, hash, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            definition.name,
            JSON.stringify(definition),
            hash,
            source,
            stamp,
            stamp,
          );
          report.created.push(definition.name);
        } else if (existing.hash !== hash) {
          run(
            this.#sql,
            "UPDATE tenant_tools SET definition = ?, hash = ?, source = ?, updated_at = ? WHERE name = ?",
            JSON.stringify(definition),
            hash,
            source,
            stamp,
            definition.name,
          );
          report.updated.push(definition.name);
        } else {
          report.unchanged.push(definition.name);
        }
      }
      if (prune) {
        const keep = new Set(tools.map((t) => t.definition.name));
        for (const { name } of allRows<{ name: string }>(this.#sql, "SELECT name FROM tenant_tools WHERE source = ?", source)) {
          if (!keep.has(name)) {
            run(this.#sql, "DELETE FROM tenant_tools WHERE name = ?", name);
            report.removed.push(name);
          }
        }
      }
      const changed = new Set([...report.created, ...report.updated]);
      this.#events.toolsChanged({ upserted: tools.filter((t) => changed.has(t.definition.name)), removed: report.removed });
      alsoInTransaction?.(report);
    });
    return success(report);
  }

  /**
   * Every tool's name, operation, summary, hash, source and update time, read out of the stored
   * JSON by SQLite: a tenant of big tools (Microsoft Graph: 11,422 tools, 266 MB of definitions)
   * is listed without parsing, or sending over RPC, a single definition.
   */
  toolSummaries(): ToolSummary[] {
    return allRows<{ name: string; operation: string; summary: string | null; hash: string; source: string; updated_at: string }>(
      this.#sql,
      "SELECT name, json_extract(definition, '$.operation') AS operation, json_extract(definition, '$.summary') AS summary, hash, source, updated_at FROM tenant_tools ORDER BY name",
    ).map((r) => ({
      name: r.name,
      operation: r.operation,
      ...(typeof r.summary === "string" ? { summary: r.summary } : {}),
      hash: r.hash,
      source: r.source,
      updatedAt: r.updated_at,
    }));
  }

  listTools(): ToolRecord[] {
    return allRows<ToolRow>(this.#sql, "SELECT * FROM tenant_tools ORDER BY name").map(toolFromRow);
  }

  getTool(name: string): ToolRecord | undefined {
    const row = oneRow<ToolRow>(this.#sql, "SELECT * FROM tenant_tools WHERE name = ?", name);
    return row === undefined ? undefined : toolFromRow(row);
  }

  deleteTool(name: string): boolean {
    return this.#storage.transactionSync(() => {
      const deleted = run(this.#sql, "DELETE FROM tenant_tools WHERE name = ?", name) > 0;
      if (deleted) this.#events.toolsChanged({ upserted: [], removed: [name] });
      return deleted;
    });
  }

  /** Every tool's name, without reading definitions. */
  toolNames(): string[] {
    return allRows<{ name: string }>(this.#sql, "SELECT name FROM tenant_tools ORDER BY name").map((row) => row.name);
  }

  /** One tool's definition, parsed (routing parses only the tools it shows). */
  definitionOf(name: string): ToolDefinition | undefined {
    const row = oneRow<{ definition: string }>(this.#sql, "SELECT definition FROM tenant_tools WHERE name = ?", name);
    return row === undefined ? undefined : (JSON.parse(row.definition) as ToolDefinition);
  }

  /** One tool's stored definition JSON (routing parses it when it needs it). */
  definitionText(name: string): string | undefined {
    return oneRow<{ definition: string }>(this.#sql, "SELECT definition FROM tenant_tools WHERE name = ?", name)?.definition;
  }

  /** Every tool's stored definition JSON, by name order, read one row at a time (none kept here). */
  *eachDefinitionText(): Generator<string, undefined, unknown> {
    for (const [definition] of this.#sql.exec("SELECT definition FROM tenant_tools ORDER BY name").raw<[string]>()) yield definition;
    return undefined;
  }

  /**
   * Every tool's server URL and summary, read by SQLite from the stored JSON (what same-API
   * siblings need), without parsing a definition in the isolate.
   */
  apiRows(): { name: string; serverUrl: string; summary?: string }[] {
    const rows = this.#sql
      .exec("SELECT name, json_extract(definition, '$.serverUrl'), json_extract(definition, '$.summary') FROM tenant_tools ORDER BY name")
      .raw<[string, string, string | null]>();
    return [...rows].map(([name, serverUrl, summary]) => (summary === null ? { name, serverUrl } : { name, serverUrl, summary }));
  }

  /** The summaries of `names` (those that have one), read by SQLite out of the stored JSON. */
  summaries(names: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    // A Durable Object's SQLite binds at most 100 values per statement.
    for (let at = 0; at < names.length; at += 100) {
      const chunk = names.slice(at, at + 100);
      const rows = this.#sql
        .exec(`SELECT name, json_extract(definition, '$.summary') FROM tenant_tools WHERE name IN (${chunk.map(() => "?").join(", ")})`, ...chunk)
        .raw<[string, string | null]>();
      for (const [name, summary] of rows) if (summary !== null) out.set(name, summary);
    }
    return out;
  }

  /**
   * What data flow reads of every tool besides its outputs (name, path, server, parameters), read
   * by SQLite out of the stored JSON: only the parameters are parsed here.
   */
  flowRows(): Pick<ToolDefinition, "name" | "path" | "serverUrl" | "parameters">[] {
    const rows = this.#sql
      .exec(
        "SELECT name, json_extract(definition, '$.path'), json_extract(definition, '$.serverUrl'), json_extract(definition, '$.parameters') FROM tenant_tools ORDER BY name",
      )
      .raw<[string, string, string, string | null]>();
    return [...rows].map(([name, path, serverUrl, parameters]) => ({
      name,
      path,
      serverUrl,
      parameters: parameters === null ? [] : (JSON.parse(parameters) as ToolDefinition["parameters"]),
    }));
  }

  /**
   * Every tool's current definition hash, by name (a copy the caller may change). Read from the
   * rows once per tool change (`TenantEvents.generation`): loading routing state and deciding which
   * protocols are current ask for it several times, and 10,000 rows cost ≈ 20 ms to read.
   */
  hashes(): Map<string, string> {
    if (this.#hashes?.generation !== this.#events.generation) {
      const rows = allRows<{ name: string; hash: string }>(this.#sql, "SELECT name, hash FROM tenant_tools");
      this.#hashes = { generation: this.#events.generation, byName: new Map(rows.map((r) => [r.name, r.hash])) };
    }
    return new Map(this.#hashes.byName);
  }

  /** The current definition hash of one tool. */
  hashOf(name: string): string | undefined {
    return oneRow<{ hash: string }>(this.#sql, "SELECT hash FROM tenant_tools WHERE name = ?", name)?.hash;
  }

  /** The parameters of several registered tools, in one read: SQLite reads them out of the stored JSON, and only they are parsed here. */
  parametersOf(names: readonly string[]): Map<string, ToolDefinition["parameters"]> {
    const rows = this.#sql
      .exec("SELECT name, json_extract(definition, '$.parameters') FROM tenant_tools WHERE name IN (SELECT value FROM json_each(?))", JSON.stringify(names))
      .raw<[string, string | null]>();
    return new Map([...rows].map(([name, parameters]) => [name, parameters === null ? [] : (JSON.parse(parameters) as ToolDefinition["parameters"])]));
  }

  /** Store (or replace) the credential for a scope; the secret arrives sealed by the Worker. */
  putCredential(credential: SealedCredential): CredentialSummary {
    this.#storage.transactionSync(() => {
      run(this.#sql, "DELETE FROM tenant_credentials WHERE scope_kind = ? AND scope_value = ?", credential.scope.kind, credential.scope.value);
      run(
        this.#sql,
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
      forgetOrphanTokens(this.#sql);
    });
    return withoutSecret(credential);
  }

  listCredentials(): CredentialSummary[] {
    return allRows<CredentialRow>(this.#sql, "SELECT * FROM tenant_credentials ORDER BY created_at, id").map((row) => withoutSecret(credentialFromRow(row)));
  }

  deleteCredential(id: string): boolean {
    const deleted = run(this.#sql, "DELETE FROM tenant_credentials WHERE id = ?", id) > 0;
    forgetOrphanTokens(this.#sql);
    return deleted;
  }

  /** The sealed access token last fetched for a client-credentials credential. */
  cachedToken(credentialId: string): SealedToken | undefined {
    return cachedToken(this.#sql, credentialId);
  }

  /** Keep a freshly fetched access token (sealed by the Worker) for reuse until it expires. */
  cacheToken(credentialId: string, token: SealedToken): void {
    cacheToken(this.#sql, credentialId, token);
  }

  /**
   * The tool and the credential that applies to it: a tool-scoped one wins over a server-scoped
   * one; among servers, the longest matching base URL wins.
   */
  toolForCall(name: string): { tool: ToolRecord; credential: SealedCredential | undefined } | undefined {
    const tool = this.getTool(name);
    if (tool === undefined) return undefined;
    const byTool = oneRow<CredentialRow>(this.#sql, "SELECT * FROM tenant_credentials WHERE scope_kind = 'tool' AND scope_value = ?", name);
    if (byTool !== undefined) return { tool, credential: credentialFromRow(byTool) };
    const servers = allRows<CredentialRow>(this.#sql, "SELECT * FROM tenant_credentials WHERE scope_kind = 'server'")
      .filter((row) => tool.definition.serverUrl === row.scope_value || tool.definition.serverUrl.startsWith(`${row.scope_value}/`))
      .sort((a, b) => b.scope_value.length - a.scope_value.length);
    const server = servers[0];
    return { tool, credential: server === undefined ? undefined : credentialFromRow(server) };
  }
}

function keyFromRow(row: KeyRow): ApiKeySummary {
  return { id: row.id, prefix: row.prefix, label: row.label, createdAt: row.created_at, revokedAt: row.revoked_at };
}
