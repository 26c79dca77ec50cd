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
