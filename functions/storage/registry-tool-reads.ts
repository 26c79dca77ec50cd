import type { ToolDefinition } from "../tools/definition";
import { allRows, oneRow } from "./sql";

/**
 * Reading the tenant's tools (`tenant_tools`), part of the registry. What routing and lists need
 * of every tool is read by SQLite out of the stored JSON, so big catalogs are not parsed whole.
 */

export interface ToolRecord {
  definition: ToolDefinition;
  hash: string;
  source: string;
  createdAt: string;
  updatedAt: string;
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

export function toolRecords(sql: SqlStorage): ToolRecord[] {
  return allRows<ToolRow>(sql, "SELECT * FROM tenant_tools ORDER BY name").map(toolFromRow);
}

export function toolRecord(sql: SqlStorage, name: string): ToolRecord | undefined {
  const row = oneRow<ToolRow>(sql, "SELECT * FROM tenant_tools WHERE name = ?", name);
  return row === undefined ? undefined : toolFromRow(row);
}

/** The records of `names` (those that exist), in no particular order: one query, whatever their number. */
export function toolRecordsNamed(sql: SqlStorage, names: readonly string[]): ToolRecord[] {
  if (names.length === 0) return [];
  return allRows<ToolRow>(sql, "SELECT * FROM tenant_tools WHERE name IN (SELECT value FROM json_each(?))", JSON.stringify(names)).map(toolFromRow);
}

export function toolSummaries(sql: SqlStorage): ToolSummary[] {
  return allRows<{ name: string; operation: string; summary: string | null; hash: string; source: string; updated_at: string }>(
    sql,
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

export function apiRows(sql: SqlStorage): { name: string; serverUrl: string; summary?: string }[] {
  const rows = sql
    .exec("SELECT name, json_extract(definition, '$.serverUrl'), json_extract(definition, '$.summary') FROM tenant_tools ORDER BY name")
    .raw<[string, string, string | null]>();
  return [...rows].map(([name, serverUrl, summary]) => (summary === null ? { name, serverUrl } : { name, serverUrl, summary }));
}

/** A tool's server URL as the index `tenant_tools_server` holds it (the expression must match it for SQLite to use the index). */
const SERVER_URL = "json_extract(definition, '$.serverUrl')";

/**
 * The other tools registered with `name`'s server URL, in name order (as apiRows lists them);
 * empty when it is alone there, not registered, or its API has more than `max` tools (too big
 * for "same API" to narrow anything, api-siblings.ts); every definition has a server URL. Reads the index on the server URL: no definition but
 * `name`'s is opened.
 */
export function apiSiblingsOf(sql: SqlStorage, name: string, max: number): string[] {
  const rows = sql
    .exec(`SELECT name FROM tenant_tools WHERE ${SERVER_URL} = (SELECT ${SERVER_URL} FROM tenant_tools WHERE name = ?) ORDER BY name LIMIT ?`, name, max + 1)
    .raw<[string]>();
  const names = [...rows].map(([sibling]) => sibling);
  return names.length < 2 || names.length > max ? [] : names.filter((sibling) => sibling !== name);
}

/**
 * The tools registered with `serverUrl`, in name order, at most `limit`: a change re-indexes the
 * operations of the APIs it touches without reading every tool's server (index `tenant_tools_server`).
 */
export function toolsAtServer(sql: SqlStorage, serverUrl: string, limit: number): string[] {
  const rows = sql.exec(`SELECT name FROM tenant_tools WHERE ${SERVER_URL} = ? ORDER BY name LIMIT ?`, serverUrl, limit).raw<[string]>();
  return [...rows].map(([name]) => name);
}

/** Whether some API has between 2 and `max` tools (else no tool has siblings), from the index on the server URL alone. */
export function anyApiSiblings(sql: SqlStorage, max: number): boolean {
  const rows = sql.exec(`SELECT 1 FROM tenant_tools GROUP BY ${SERVER_URL} HAVING count(*) BETWEEN 2 AND ? LIMIT 1`, max).raw();
  return [...rows].length > 0;
}

export function summariesOf(sql: SqlStorage, names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  // A Durable Object's SQLite binds at most 100 values per statement.
  for (let at = 0; at < names.length; at += 100) {
    const chunk = names.slice(at, at + 100);
    const rows = sql
      .exec(`SELECT name, json_extract(definition, '$.summary') FROM tenant_tools WHERE name IN (${chunk.map(() => "?").join(", ")})`, ...chunk)
      .raw<[string, string | null]>();
    for (const [name, summary] of rows) if (summary !== null) out.set(name, summary);
  }
  return out;
}

export function flowRows(sql: SqlStorage): Pick<ToolDefinition, "name" | "path" | "serverUrl" | "parameters">[] {
  const rows = sql
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

export function parametersOf(sql: SqlStorage, names: readonly string[]): Map<string, ToolDefinition["parameters"]> {
  const rows = sql
    .exec("SELECT name, json_extract(definition, '$.parameters') FROM tenant_tools WHERE name IN (SELECT value FROM json_each(?))", JSON.stringify(names))
    .raw<[string, string | null]>();
  return new Map([...rows].map(([name, parameters]) => [name, parameters === null ? [] : (JSON.parse(parameters) as ToolDefinition["parameters"])]));
}

function toolFromRow(row: ToolRow): ToolRecord {
  return {
    definition: JSON.parse(row.definition) as ToolDefinition,
    hash: row.hash,
    source: row.source,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
