import { failure, success, type Outcome } from "../common/failures";
import type { ToolDefinition } from "../tools/definition";
import { toolLimitMessage } from "../tools/tool-limit";
import type { TenantEvents } from "./tenant-events";
import { allRows, oneRow, run, storedNow } from "./sql";
import { cachedToken, cacheToken, type SealedToken } from "./oauth-token-cache";
import { isActiveKey, issueKey, keySummaries, revokeKeyRow, type ApiKeySummary } from "./registry-keys";
import {
  credentialForTool,
  credentialSummaries,
  deleteCredentialRow,
  replaceCredential,
  withoutSecret,
  type CredentialSummary,
  type SealedCredential,
} from "./registry-credentials";
import {
  deleteToolRow,
  namesHeldByOtherSources,
  startingForms,
  storedToolCount,
  toolCountAfter,
  toolsOfOtherSources,
  noteFormerServer,
  writeTools,
  type ToolUpsert,
  type UpsertReport,
} from "./registry-tool-writes";
import type { StartingTool } from "../toolnet/route-fallback";
import {
  anyApiSiblings,
  apiRows,
  apiSiblingsOf,
  flowRows,
  parametersOf,
  summariesOf,
  toolsAtServer,
  toolRecord,
  toolRecords,
  toolRecordsNamed,
  toolSummaries,
  type ToolRecord,
  type ToolSummary,
} from "./registry-tool-reads";

// The registry's records keep the names their callers import from here.
export type { ApiKeySummary } from "./registry-keys";
export type { CredentialScheme, CredentialScope, CredentialSummary, SealedCredential } from "./registry-credentials";
export type { ToolRecord, ToolSummary } from "./registry-tool-reads";
export type { ToolUpsert, UpsertReport } from "./registry-tool-writes";

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
 * (tables `tenant_meta` identity rows, `tenant_api_keys`, `tenant_tools`, `tenant_credentials`;
 * their SQL in registry-keys.ts, registry-tool-reads.ts, registry-tool-writes.ts, registry-credentials.ts
 * and oauth-token-cache.ts). This object keeps the caches, the transactions and the events. Tool changes are announced on the tenant's events inside the same transaction, so routing and
 * tool views follow them.
 */
export class TenantRegistry {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  readonly #events: TenantEvents;
  #hashes: { generation: number; byName: Map<string, string> } | undefined;
  /** The catalog's stamp (`catalogStamp`) and the tool change it was made at. */
  #stamp: { generation: number; stamp: string } | undefined;
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
    const createdAt = storedNow();
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
    const toolCount = storedToolCount(this.#sql);
    return { id, name: meta.get("name") ?? id, createdAt: meta.get("created_at") ?? "", toolCount };
  }

  /** True when a non-revoked key with this hash belongs to this tenant. */
  authenticate(keyHash: string): boolean {
    if (this.#validKeys.has(keyHash)) return true;
    if (this.tenantId() === undefined) return false;
    const valid = isActiveKey(this.#sql, keyHash);
    if (valid) this.#validKeys.add(keyHash);
    return valid;
  }

  /** Issue a new API key; the clear key is returned once and never stored. */
  async createKey(label: string | null): Promise<Outcome<ApiKeySummary & { key: string }>> {
    const tenantId = this.tenantId();
    if (tenantId === undefined) return failure("not-found", "no such tenant");
    return success(await issueKey(this.#sql, tenantId, label));
  }

  listKeys(): ApiKeySummary[] {
    return keySummaries(this.#sql);
  }

  /** Revoke a key; effective for the very next request, since every request asks this object. */
  revokeKey(id: string): Outcome<ApiKeySummary> {
    this.#validKeys.clear();
    return revokeKeyRow(this.#sql, id);
  }

  /** How many tools the tenant would hold after upsertTools(names, source, prune) (tools/tool-limit.ts). */
  toolCountAfter(names: string[], source: string, prune: boolean): number {
    return toolCountAfter(this.#sql, names, source, prune);
  }

  /**
   * The tools another source than `source` holds, tool name → source: an import names its own
   * tools around them. With `names`, only those of them (a batch's: read by name, not the catalog).
   */
  toolsOfOtherSources(source: string, names?: readonly string[]): Record<string, string> {
    return toolsOfOtherSources(this.#sql, source, names);
  }

  /**
   * Create or update tools in one transaction. A tool whose hash is unchanged is not touched, so
   * re-registering the same document changes nothing. With `prune`, tools of the same source
   * that the new set no longer has are removed. A change that would leave more than `maxTools`
   * is refused whole, here, where no other import can interleave with the count. A tool of
   * another source is replaced only when `replaceOtherSources` says so (PUT /v1/tools/{name}
   * names the tool it replaces); otherwise its name in `tools` refuses the whole change.
   */
  upsertTools(
    tools: ToolUpsert[],
    source: string,
    prune: boolean,
    maxTools = Number.POSITIVE_INFINITY,
    /** Written in the same transaction (a background import's cursor), so neither lands without the other. */
    alsoInTransaction?: (report: UpsertReport) => void,
    replaceOtherSources = false,
  ): Outcome<UpsertReport> {
    const held = replaceOtherSources ? [] : namesHeldByOtherSources(this.#sql, tools, source);
    if (held.length > 0) return failure("conflict", `Tools of another source hold these names: ${held.join(", ")}. Import again: they get names of their own.`);
    const total = this.toolCountAfter(
      tools.map((t) => t.definition.name),
      source,
      prune,
    );
    if (total > maxTools) return failure("invalid-document", toolLimitMessage(total, maxTools));
    const stamp = storedNow();
    const report = this.#storage.transactionSync(() => {
      const formerServers = new Map<string, string>();
      const written = writeTools(this.#sql, tools, source, prune, stamp, formerServers);
      const changed = new Set([...written.created, ...written.updated]);
      this.#events.toolsChanged({ upserted: tools.filter((t) => changed.has(t.definition.name)), removed: written.removed, formerServers });
      alsoInTransaction?.(written);
      return written;
    });
    return success(report);
  }

  /**
   * Every tool's name, operation, summary, hash, source and update time, read out of the stored
   * JSON by SQLite: a tenant of big tools (Microsoft Graph: 11,422 tools, 266 MB of definitions)
   * is listed without parsing, or sending over RPC, a single definition.
   */
  toolSummaries(): ToolSummary[] {
    return toolSummaries(this.#sql);
  }

  listTools(): ToolRecord[] {
    return toolRecords(this.#sql);
  }

  getTool(name: string): ToolRecord | undefined {
    return toolRecord(this.#sql, name);
  }

  /** The records of the tools named (those that exist), without reading the others' definitions. */
  toolsNamed(names: readonly string[]): ToolRecord[] {
    return toolRecordsNamed(this.#sql, names);
  }

  deleteTool(name: string): boolean {
    return this.#storage.transactionSync(() => {
      const formerServers = new Map<string, string>();
      noteFormerServer(this.#sql, name, formerServers);
      const deleted = deleteToolRow(this.#sql, name);
      if (deleted) this.#events.toolsChanged({ upserted: [], removed: [name], formerServers });
      return deleted;
    });
  }

  /** Every tool's starting form (the starting-tools fallback), without reading definitions once stored. */
  startingList(): StartingTool[] {
    return startingForms(this.#sql);
  }

  /** Every tool's name, without reading definitions. */
  toolNames(): string[] {
    return allRows<{ name: string }>(this.#sql, "SELECT name FROM tenant_tools ORDER BY name").map((row) => row.name);
  }

  /** How many tools are registered: the count SQLite keeps, no tool row read. */
  toolCount(): number {
    return storedToolCount(this.#sql);
  }

  /** Characters of every stored definition together: the sum SQLite keeps, no tool row read. */
  definitionChars(): number {
    return oneRow<{ chars: number }>(this.#sql, "SELECT definition_chars AS chars FROM tool_count WHERE id = 1")?.chars ?? 0;
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
   * Stored definitions after `after` by name, as many as make `maxChars` of JSON (at least one):
   * a preparation reads the catalog a piece at a time, each piece's cost known before it is parsed.
   */
  definitionTextsAfter(after: string, maxChars: number): { name: string; text: string }[] {
    const piece: { name: string; text: string }[] = [];
    let chars = 0;
    const rows = this.#sql.exec("SELECT name, definition FROM tenant_tools WHERE name > ? ORDER BY name", after).raw<[string, string]>();
    for (const [name, text] of rows) {
      if (piece.length > 0 && chars + text.length > maxChars) break;
      piece.push({ name, text });
      chars += text.length;
    }
    return piece;
  }

  /**
   * Every tool's server URL and summary, read by SQLite from the stored JSON (what same-API
   * siblings need), without parsing a definition in the isolate.
   */
  apiRows(): { name: string; serverUrl: string; summary?: string }[] {
    return apiRows(this.#sql);
  }

  /** The other tools of `name`'s API (its server URL), when it has 2 to `max` tools; from an index, no definition parsed but `name`'s. */
  apiSiblingsOf(name: string, max: number): string[] {
    return apiSiblingsOf(this.#sql, name, max);
  }

  /** The tools registered with `serverUrl`, in name order, at most `limit`; from the index on server URLs. */
  toolsAtServer(serverUrl: string, limit: number): string[] {
    return toolsAtServer(this.#sql, serverUrl, limit);
  }

  /** Whether some API has between 2 and `max` tools, from the index on server URLs. */
  anyApiSiblings(max: number): boolean {
    return anyApiSiblings(this.#sql, max);
  }

  /** The summaries of `names` (those that have one), read by SQLite out of the stored JSON. */
  summaries(names: readonly string[]): Map<string, string> {
    return summariesOf(this.#sql, names);
  }

  /**
   * What data flow reads of every tool besides its outputs (name, path, server, parameters), read
   * by SQLite out of the stored JSON: only the parameters are parsed here.
   */
  flowRows(): Pick<ToolDefinition, "name" | "path" | "serverUrl" | "parameters">[] {
    return flowRows(this.#sql);
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

  /**
   * A digest of every tool's name and definition hash: it changes when a tool is added, changed or
   * removed, and only then (an eviction keeps it). MCP's list_changed watch compares it at every
   * look, so a look no longer reads, parses and sends every definition (at Seal-Tools' 4,075 tools
   * that was most of an MCP conversation's CPU). Made from the hashes, once per tool change.
   */
  async catalogStamp(): Promise<string> {
    const generation = this.#events.generation;
    if (this.#stamp?.generation !== generation) {
      const lines = [...this.hashes()].map(([name, hash]) => `${name}\u0000${hash}`).sort();
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(lines.join("\n")));
      const stamp = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
      this.#stamp = { generation, stamp };
    }
    return this.#stamp.stamp;
  }

  /** The current definition hash of one tool. */
  hashOf(name: string): string | undefined {
    return oneRow<{ hash: string }>(this.#sql, "SELECT hash FROM tenant_tools WHERE name = ?", name)?.hash;
  }

  /** The parameters of several registered tools, in one read: SQLite reads them out of the stored JSON, and only they are parsed here. */
  parametersOf(names: readonly string[]): Map<string, ToolDefinition["parameters"]> {
    return parametersOf(this.#sql, names);
  }

  /** Store (or replace) the credential for a scope; the secret arrives sealed by the Worker. */
  putCredential(credential: SealedCredential): CredentialSummary {
    this.#storage.transactionSync(() => replaceCredential(this.#sql, credential));
    return withoutSecret(credential);
  }

  listCredentials(): CredentialSummary[] {
    return credentialSummaries(this.#sql);
  }

  deleteCredential(id: string): boolean {
    return deleteCredentialRow(this.#sql, id);
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
    return { tool, credential: credentialForTool(this.#sql, name, tool.definition.serverUrl) };
  }
}
