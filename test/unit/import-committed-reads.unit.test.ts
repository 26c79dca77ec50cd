import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleTestWorker } from "../helpers/workerd-bundle";

/**
 * Each slice of a background import starts by asking what the committed batches did (the cursor,
 * the counts, every name so far). It read every batch row at each slice: Microsoft Graph's 11,422
 * one-operation batches by its end, names and reports (issue 42). The object now keeps that
 * summary in step with its commits and reads the rows only once after an eviction. Run inside
 * workerd, on Durable Object SQLite; rows read summed from each statement's cursor (`rowsRead`).
 */

const WORKER_SOURCE = `
import { migrate } from "./functions/storage/sql";
import { TENANT_MIGRATIONS } from "./functions/storage/tenant-schema";
import { TenantEvents } from "./functions/storage/tenant-events";
import { TenantRegistry } from "./functions/storage/tenant-registry";
import { TenantImports } from "./functions/storage/tenant-imports";

function tool(name) {
  return {
    definition: { name, method: "GET", serverUrl: "https://api.example.test", path: "/" + name, operation: "GET /" + name, description: "An operation.", parameters: [] },
    hash: "hash-" + name,
  };
}

function bound(target, key) {
  const value = Reflect.get(target, key);
  return typeof value === "function" ? value.bind(target) : value;
}

function counted(storage) {
  const cursors = [];
  const exec = (...args) => {
    const cursor = storage.sql.exec(...args);
    cursors.push(cursor);
    return cursor;
  };
  const sql = new Proxy(storage.sql, { get: (target, key) => (key === "exec" ? exec : bound(target, key)) });
  const proxied = new Proxy(storage, { get: (target, key) => (key === "sql" ? sql : bound(target, key)) });
  return { storage: proxied, rowsRead: () => cursors.reduce((n, cursor) => n + cursor.rowsRead, 0), reset: () => cursors.splice(0) };
}

export class Tenant {
  constructor(ctx) {
    this.ctx = ctx;
  }

  async fetch() {
    migrate(this.ctx.storage.sql, TENANT_MIGRATIONS);
    const meter = counted(this.ctx.storage);
    const storesOf = () => {
      const registry = new TenantRegistry(meter.storage, new TenantEvents());
      return new TenantImports(meter.storage, registry, async () => {});
    };
    let imports = storesOf();
    const commit = (index) =>
      imports.commitBatch("job_1", { index, lastSeq: index * 3 + 2, operations: 1, tools: [tool("op_" + index)], warnings: ["w" + index] }, "graph", Infinity);
    const readsOf = (read) => {
      meter.reset();
      const value = read();
      return { value, rowsRead: meter.rowsRead() };
    };
    for (let i = 0; i < 40; i++) commit(i);
    // A slice starts: the summary read from the rows once.
    const first = readsOf(() => imports.committed("job_1"));
    commit(40);
    commit(41);
    // The next slices: kept in step with the commits since.
    const later = readsOf(() => imports.committed("job_1"));
    // After an eviction (a new object in memory): read from the rows again, the same summary.
    imports = storesOf();
    const evicted = readsOf(() => imports.committed("job_1"));
    return Response.json({ first, later, evicted, reports: imports.reports("job_1").length });
  }
}

export default {
  fetch(request, env) {
    return env.TENANTS.get(env.TENANTS.idFromName("one")).fetch(request);
  },
};
`;

let mf: Miniflare | undefined;

beforeAll(async () => {
  const script = await bundleTestWorker(WORKER_SOURCE, "import-committed-reads-worker.js");
  mf = new Miniflare({ modules: true, script, compatibilityDate: "2026-04-20", durableObjects: { TENANTS: { className: "Tenant", useSQLite: true } } });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

interface Read {
  value: { batches: number; lastSeq: number; operations: number; names: string[]; counts: { created: number; updated: number; unchanged: number } };
  rowsRead: number;
}

describe("a background import's slice start (issue 42)", () => {
  it("reads the committed batches' rows once, then keeps their summary in step with its commits", async () => {
    if (!mf) throw new Error("Miniflare did not start");
    const answer = (await (await mf.dispatchFetch("http://worker.test/")).json()) as { first: Read; later: Read; evicted: Read; reports: number };
    expect(answer.first.value).toMatchObject({ batches: 40, lastSeq: 119, operations: 40, counts: { created: 40, updated: 0, unchanged: 0 } });
    expect(answer.first.rowsRead).toBeGreaterThanOrEqual(40);
    const names = Array.from({ length: 42 }, (_, i) => `op_${i}`);
    expect(answer.later.value).toEqual({ batches: 42, lastSeq: 125, operations: 42, names, counts: { created: 42, updated: 0, unchanged: 0 } });
    // Every batch row read again at each slice before.
    expect(answer.later.rowsRead).toBe(0);
    expect(answer.evicted.value).toEqual(answer.later.value);
    expect(answer.reports).toBe(42);
  });
});
