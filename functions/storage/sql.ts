/** Small helpers over Durable Object SQLite storage: typed rows, one statement at a time. */

export type SqlValue = string | number | null | ArrayBuffer;

/** All rows of a query, typed by the caller (columns are what the SELECT names). */
export function allRows<T>(sql: SqlStorage, query: string, ...bindings: SqlValue[]): T[] {
  return sql.exec(query, ...bindings).toArray() as T[];
}

/** The first row of a query, or undefined. */
export function oneRow<T>(sql: SqlStorage, query: string, ...bindings: SqlValue[]): T | undefined {
  const rows = sql.exec(query, ...bindings).toArray();
  return rows[0] as T | undefined;
}

/** Run a statement; returns how many rows it wrote. */
export function run(sql: SqlStorage, query: string, ...bindings: SqlValue[]): number {
  return sql.exec(query, ...bindings).rowsWritten;
}

/**
 * Apply versioned DDL once per object: each entry of `migrations` runs when the stored schema
 * version is below its index + 1. Statements must be idempotent (CREATE ... IF NOT EXISTS).
 */
export function migrate(sql: SqlStorage, migrations: readonly string[]): void {
  sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const current = oneRow<{ version: number }>(sql, "SELECT version FROM schema_version")?.version ?? 0;
  for (let index = current; index < migrations.length; index++) {
    sql.exec(migrations[index] ?? "");
  }
  if (current === 0) sql.exec("INSERT INTO schema_version (version) VALUES (?)", migrations.length);
  else if (current < migrations.length) sql.exec("UPDATE schema_version SET version = ?", migrations.length);
}

/** The current time as rows store it: ISO 8601 text, which sorts as time does. */
export function storedNow(): string {
  return new Date().toISOString();
}
