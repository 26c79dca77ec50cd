import type { TenantEvents } from "./tenant-events";
import { allRows, oneRow, run } from "./sql";

export type ProtocolSource = "probe" | "optimize";

export interface ProtocolVersion {
  tool: string;
  version: number;
  hash: string;
  kvKey: string;
  source: ProtocolSource;
  score: number | null;
  jobId: string | null;
  createdAt: string;
  /** Set when this version replaces the registered description (model-written or optimised). */
  description?: string | null;
  /**
   * What routing learns from this version (kept only while it is current for the tool's current
   * definition): queries it answered (probe example, Play2Prompt demonstrations) for the tool's
   * retrieval document, and fields its response had (probe samples) for data flow.
   */
  routingHints?: { queries: string[]; outputs: { path: string; value: string | number | boolean }[] } | null;
  /**
   * Tokens of the typed signature a run prompt shows for the tool while this version is current
   * (its description, response schema and example; services/protocol-overrides.ts), counted when
   * recorded. Run candidate sets spend it instead of the registered definition's figure.
   */
  runTokens?: number | null;
}

export interface CurrentProtocol extends ProtocolVersion {
  pinned: boolean;
}

interface VersionRow {
  tool: string;
  version: number;
  hash: string;
  kv_key: string;
  source: ProtocolSource;
  score: number | null;
  job_id: string | null;
  created_at: string;
  description: string | null;
  run_tokens: number | null;
}

/** Columns of the current protocol versions that routing reads for every tool at once. */
type CurrentColumn = "description" | "routing_hints" | "run_tokens";

function fromRow(row: VersionRow): ProtocolVersion {
  return {
    tool: row.tool,
    version: row.version,
    hash: row.hash,
    kvKey: row.kv_key,
    source: row.source,
    score: row.score,
    jobId: row.job_id,
    createdAt: row.created_at,
    description: row.description,
    runTokens: row.run_tokens,
  };
}

/**
 * Which documented protocol of each tool is current. The protocols themselves are immutable
 * values in KV (written before they are recorded here, so a reader never finds a pointer to a
 * half-written value); this object holds the versions and the pointer, and pinning.
 */
export class TenantProtocols {
  readonly #sql: SqlStorage;
  readonly #currentHashes: () => Map<string, string>;
  readonly #events: TenantEvents;
  readonly #columns = new Map<CurrentColumn, { generation: number; values: Map<string, string> }>();

  /** `currentHashes`: the registry's definition hash of each tool (a protocol applies to one definition). */
  constructor(sql: SqlStorage, currentHashes: () => Map<string, string>, events: TenantEvents) {
    this.#sql = sql;
    this.#currentHashes = currentHashes;
    this.#events = events;
  }

  /** Record a new version; it becomes current unless the tool's protocol is pinned. */
  record(entry: Omit<ProtocolVersion, "version" | "createdAt">): ProtocolVersion {
    const last = oneRow<{ v: number | null }>(this.#sql, "SELECT MAX(version) AS v FROM protocol_versions WHERE tool = ?", entry.tool)?.v ?? 0;
    const same = oneRow<VersionRow>(this.#sql, "SELECT * FROM protocol_versions WHERE tool = ? AND kv_key = ?", entry.tool, entry.kvKey);
    const version = same?.version ?? last + 1;
    const createdAt = same?.created_at ?? new Date().toISOString();
    if (same === undefined) {
      run(
        this.#sql,
        "INSERT INTO protocol_versions (tool, version, hash, kv_key, source, score, job_id, created_at, description, routing_hints, run_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        entry.tool,
        version,
        entry.hash,
        entry.kvKey,
        entry.source,
        entry.score,
        entry.jobId,
        createdAt,
        entry.description ?? null,
        entry.routingHints === undefined || entry.routingHints === null ? null : JSON.stringify(entry.routingHints),
        entry.runTokens ?? null,
      );
    }
    run(
      this.#sql,
      "INSERT INTO protocol_current (tool, version, pinned) VALUES (?, ?, 0) ON CONFLICT (tool) DO UPDATE SET version = excluded.version WHERE protocol_current.pinned = 0",
      entry.tool,
      version,
    );
    this.#events.protocolChanged(entry.tool);
    return { ...entry, version, createdAt };
  }

  current(tool: string): CurrentProtocol | undefined {
    const row = oneRow<VersionRow & { pinned: number }>(
      this.#sql,
      "SELECT v.*, c.pinned FROM protocol_current c JOIN protocol_versions v ON v.tool = c.tool AND v.version = c.version WHERE c.tool = ?",
      tool,
    );
    return row === undefined ? undefined : { ...fromRow(row), pinned: row.pinned === 1 };
  }

  /** Current protocols of many tools at once. */
  currentMany(tools: string[]): CurrentProtocol[] {
    return tools.flatMap((tool) => {
      const current = this.current(tool);
      return current === undefined ? [] : [current];
    });
  }

  versions(tool: string): ProtocolVersion[] {
    return allRows<VersionRow>(this.#sql, "SELECT * FROM protocol_versions WHERE tool = ? ORDER BY version", tool).map(fromRow);
  }

  /** Make `version` current and keep it there (pin), or release the pin (version undefined). */
  pin(tool: string, version: number | undefined): CurrentProtocol | undefined {
    if (version === undefined) {
      run(this.#sql, "UPDATE protocol_current SET pinned = 0 WHERE tool = ?", tool);
      return this.current(tool);
    }
    const exists = oneRow<{ version: number }>(this.#sql, "SELECT version FROM protocol_versions WHERE tool = ? AND version = ?", tool, version);
    if (exists === undefined) return undefined;
    run(
      this.#sql,
      "INSERT INTO protocol_current (tool, version, pinned) VALUES (?, ?, 1) ON CONFLICT (tool) DO UPDATE SET version = excluded.version, pinned = 1",
      tool,
      version,
    );
    this.#events.protocolChanged(tool);
    return this.current(tool);
  }

  /** Current replacement descriptions of tools whose protocol was made for their current definition. */
  descriptions(): Map<string, string> {
    return this.#currentColumn("description");
  }

  /** Routing hints (JSON) of current protocols made for the tools' current definitions. */
  routingHints(): Map<string, string> {
    return this.#currentColumn("routing_hints");
  }

  /** Run-prompt tokens (`runTokens`) of current protocols made for the tools' current definitions. */
  runTokens(): Map<string, number> {
    return new Map([...this.#currentColumn("run_tokens")].map(([tool, value]) => [tool, Number(value)]));
  }

  /**
   * Routing asks for these on every answer; computing them reads every tool's hash (10,000 rows
   * at 10,000 tools, ≈ 20 ms), so each is kept until the next tool or protocol change.
   */
  #currentColumn(column: CurrentColumn): Map<string, string> {
    const kept = this.#columns.get(column);
    if (kept !== undefined && kept.generation === this.#events.generation) return kept.values;
    const values = this.#readColumn(column);
    this.#columns.set(column, { generation: this.#events.generation, values });
    return values;
  }

  #readColumn(column: CurrentColumn): Map<string, string> {
    const rows = allRows<{ tool: string; hash: string; value: string | number }>(
      this.#sql,
      `SELECT v.tool, v.hash, v.${column} AS value FROM protocol_current c
       JOIN protocol_versions v ON v.tool = c.tool AND v.version = c.version
       WHERE v.${column} IS NOT NULL`,
    );
    // Without such protocols there is nothing to check (and no need to read every tool's hash).
    if (rows.length === 0) return new Map();
    const hashes = this.#currentHashes();
    return new Map(rows.filter((row) => hashes.get(row.tool) === row.hash).map((row) => [row.tool, String(row.value)]));
  }
}
