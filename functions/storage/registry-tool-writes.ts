import type { ToolDefinition } from "../tools/definition";
import { startingToolOf, type StartingTool } from "../toolnet/route-fallback";
import { allRows, oneRow, run } from "./sql";

/**
 * Writing the tenant's tools (`tenant_tools`), part of the registry: the rows an upsert inserts,
 * updates and prunes, and the count a change would leave (the tool limit is checked on it).
 */

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

/**
 * How many tools the tenant holds: the count SQLite keeps beside the rows (migration 25), so
 * knowing it reads one row, not every tool's (a Graph import asks at each of its 11,422 batches).
 */
export function storedToolCount(sql: SqlStorage): number {
  return oneRow<{ tools: number }>(sql, "SELECT tools FROM tool_count WHERE id = 1")?.tools ?? 0;
}

/** Which of `names` are registered, with their source: one statement, reading those rows alone (by primary key). */
export function registeredAmong(sql: SqlStorage, names: Iterable<string>): { name: string; source: string }[] {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return [];
  return allRows<{ name: string; source: string }>(
    sql,
    "SELECT name, source FROM tenant_tools WHERE name IN (SELECT value FROM json_each(?))",
    JSON.stringify(wanted),
  );
}

/**
 * How many tools the tenant would hold after writing `names` of `source` (with `prune`, its other
 * tools removed): those that stay, plus the names not among them. Reads the kept count, the rows
 * named and (with `prune`) the source's index entries; never the whole catalog.
 */
export function toolCountAfter(sql: SqlStorage, names: string[], source: string, prune: boolean): number {
  const distinct = new Set(names);
  const total = storedToolCount(sql);
  const ofSource = prune ? (oneRow<{ n: number }>(sql, "SELECT COUNT(*) AS n FROM tenant_tools WHERE source = ?", source)?.n ?? 0) : 0;
  const staying = registeredAmong(sql, distinct).filter((row) => !prune || row.source !== source).length;
  return total - ofSource + distinct.size - staying;
}

/**
 * The tenant's tools that another source than `source` holds: tool name → its source. With
 * `names`, only those of them (a batch's own: its read follows the batch, not the catalog).
 */
export function toolsOfOtherSources(sql: SqlStorage, source: string, names?: readonly string[]): Record<string, string> {
  const rows =
    names === undefined
      ? allRows<{ name: string; source: string }>(sql, "SELECT name, source FROM tenant_tools WHERE source != ?", source)
      : registeredAmong(sql, names).filter((row) => row.source !== source);
  return Object.fromEntries(rows.map((row) => [row.name, row.source]));
}

/**
 * The names of `tools` that another source than `source` holds. An import renames its tools away
 * from these first (tools/source-clash.ts); one found here came in meanwhile, and the write is refused.
 */
export function namesHeldByOtherSources(sql: SqlStorage, tools: ToolUpsert[], source: string): string[] {
  const names = tools.map((tool) => tool.definition.name);
  const held = toolsOfOtherSources(sql, source, names);
  return names.filter((name) => Object.hasOwn(held, name));
}

/**
 * Insert new tools and update changed ones (an unchanged hash leaves the row as it is); with
 * `prune`, delete the tools of `source` the set no longer has. The caller holds the transaction.
 */
export function writeTools(
  sql: SqlStorage,
  tools: ToolUpsert[],
  source: string,
  prune: boolean,
  stamp: string,
  /** Filled with the server URL each updated or removed tool had before this write. */
  formerServers = new Map<string, string>(),
): UpsertReport {
  const report: UpsertReport = { created: [], updated: [], unchanged: [], removed: [] };
  for (const { definition, hash } of tools) {
    const existing = oneRow<{ hash: string }>(sql, "SELECT hash FROM tenant_tools WHERE name = ?", definition.name);
    if (existing === undefined) {
      run(
        sql,
        "INSERT INTO tenant_tools (name, definition, hash, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        definition.name,
        JSON.stringify(definition),
        hash,
        source,
        stamp,
        stamp,
      );
      writeStartingForm(sql, definition);
      report.created.push(definition.name);
    } else if (existing.hash !== hash) {
      noteFormerServer(sql, definition.name, formerServers);
      run(
        sql,
        "UPDATE tenant_tools SET definition = ?, hash = ?, source = ?, updated_at = ? WHERE name = ?",
        JSON.stringify(definition),
        hash,
        source,
        stamp,
        definition.name,
      );
      writeStartingForm(sql, definition);
      report.updated.push(definition.name);
    } else {
      report.unchanged.push(definition.name);
    }
  }
  if (prune) {
    const keep = new Set(tools.map((t) => t.definition.name));
    for (const { name } of allRows<{ name: string }>(sql, "SELECT name FROM tenant_tools WHERE source = ?", source)) {
      if (!keep.has(name)) {
        noteFormerServer(sql, name, formerServers);
        deleteToolRow(sql, name);
        report.removed.push(name);
      }
    }
  }
  return report;
}

/** A tool's starting form (what the starting-tools fallback reads), written with the tool. */
export function writeStartingForm(sql: SqlStorage, definition: ToolDefinition): void {
  const start = startingToolOf(definition);
  run(sql, "INSERT OR REPLACE INTO tool_starts (name, needs_id, words) VALUES (?, ?, ?)", start.name, start.needsId ? 1 : 0, start.words);
}

/** Deletes a tool's row and its starting form; whether there was one. */
/**
 * Notes the server URL `name` is registered with, before its row changes: the operations of that
 * API change documents too (siblings), and afterwards no row says which API the tool was in.
 */
export function noteFormerServer(sql: SqlStorage, name: string, formerServers: Map<string, string>): void {
  const row = oneRow<{ serverUrl: string | null }>(sql, "SELECT json_extract(definition, '$.serverUrl') AS serverUrl FROM tenant_tools WHERE name = ?", name);
  if (typeof row?.serverUrl === "string") formerServers.set(name, row.serverUrl);
}

export function deleteToolRow(sql: SqlStorage, name: string): boolean {
  run(sql, "DELETE FROM tool_starts WHERE name = ?", name);
  return run(sql, "DELETE FROM tenant_tools WHERE name = ?", name) > 0;
}

/**
 * Every tool's starting form. Tools written before the forms were stored get theirs here, once
 * (their definitions read this one time); after that the list is read alone.
 */
export function startingForms(sql: SqlStorage): StartingTool[] {
  const missing = sql.exec<{ definition: string }>("SELECT definition FROM tenant_tools WHERE name NOT IN (SELECT name FROM tool_starts)");
  for (const row of [...missing]) writeStartingForm(sql, JSON.parse(row.definition) as ToolDefinition);
  return allRows<{ name: string; needs_id: number; words: string }>(sql, "SELECT name, needs_id, words FROM tool_starts").map((row) => ({
    name: row.name,
    needsId: row.needs_id === 1,
    words: row.words,
  }));
}
