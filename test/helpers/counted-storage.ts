/**
 * A Durable Object's storage whose SQL cursors are kept, so the rows every statement read can be
 * summed afterwards (`rowsRead`, what Cloudflare bills). Imported by the workers that tests bundle
 * and run inside workerd (registry-batch-reads, import-committed-reads).
 */
export interface CountedStorage {
  storage: DurableObjectStorage;
  rowsRead(): number;
  reset(): void;
}

function bound(target: object, key: string | symbol): unknown {
  const value: unknown = Reflect.get(target, key);
  return typeof value === "function" ? value.bind(target) : value;
}

export function counted(storage: DurableObjectStorage): CountedStorage {
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  const exec = <T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T> => {
    const cursor = storage.sql.exec<T>(query, ...bindings);
    cursors.push(cursor);
    return cursor;
  };
  const sql = new Proxy(storage.sql, { get: (target, key) => (key === "exec" ? exec : bound(target, key)) });
  const proxied = new Proxy(storage, { get: (target, key) => (key === "sql" ? sql : bound(target, key)) });
  return {
    storage: proxied,
    rowsRead: () => cursors.reduce((n, cursor) => n + cursor.rowsRead, 0),
    reset: () => {
      cursors.splice(0);
    },
  };
}
