import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleTestWorker } from "../helpers/workerd-bundle";

/**
 * A background import writes a big API one batch at a time (Microsoft Graph: 11,422 batches of one
 * operation). What SQLite reads for a batch (the tool limit, another source's names, the rows
 * written) must follow the batch, not the catalog, or the import grows with the square of the
 * catalog (issue 42). The registry runs here inside workerd, on Durable Object SQLite, and the rows
 * each statement read are summed from its cursor (`rowsRead`, what Cloudflare bills).
 */

const WORKER_SOURCE = `
import { migrate } from "./functions/storage/sql";
import { TENANT_MIGRATIONS } from "./functions/storage/tenant-schema";
import { TenantEvents } from "./functions/storage/tenant-events";
import { TenantRegistry } from "./functions/storage/tenant-registry";

function tool(name, extra = "") {
  return {
    definition: {
      name, method: "GET", serverUrl: "https://api.example.test", path: "/" + name, operation: "GET /" + name,
      description: "An operation of a big API. ".repeat(40) + extra, parameters: [],
    },
    hash: "hash-" + name + extra.length,
  };
}

function bound(target, key) {
  const value = Reflect.get(target, key);
  return typeof value === "function" ? value.bind(target) : value;
}

/** The storage with its SQL cursors kept, so the rows every statement read can be summed afterwards. */
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

/** The definitions' characters as the registry keeps them, and as summed over every row. */
function charsOf(sql, registry) {
  const summed = sql.exec("SELECT COALESCE(SUM(length(definition)), 0) AS chars FROM tenant_tools").one().chars;
  return { chars: registry.definitionChars(), summedChars: summed };
}

export class Tenant {
  constructor(ctx) {
    this.ctx = ctx;
  }

  async fetch(request) {
    const url = new URL(request.url);
    const sql = this.ctx.storage.sql;
    if (url.pathname === "/before-count") {
      // A tenant whose tools were written before the migration that keeps the count.
      const counting = TENANT_MIGRATIONS.findIndex((migration) => migration.includes("CREATE TABLE IF NOT EXISTS tool_count"));
      migrate(sql, TENANT_MIGRATIONS.slice(0, counting));
      for (let i = 0; i < 7; i++) sql.exec("INSERT INTO tenant_tools (name, definition, hash, source, created_at, updated_at) VALUES (?, '{}', 'h', 'old', '', '')", "old_" + i);
      migrate(sql, TENANT_MIGRATIONS);
      const registry = new TenantRegistry(this.ctx.storage, new TenantEvents());
      return Response.json({ count: registry.toolCount(), ...charsOf(sql, registry) });
    }
    migrate(sql, TENANT_MIGRATIONS);
    const meter = counted(this.ctx.storage);
    const registry = new TenantRegistry(meter.storage, new TenantEvents());
    if (url.pathname === "/seed") {
      const tools = Array.from({ length: Number(url.searchParams.get("tools")) }, (_, i) => tool("catalog_" + i));
      registry.upsertTools(tools, "catalog", false);
      registry.upsertTools([tool("shared_name")], "other", false);
      return Response.json({ count: registry.toolCount() });
    }
    const body = await request.json();
    meter.reset();
    const batch = body.names.map((name) => tool(name, body.extra));
    const clashing = registry.toolsOfOtherSources(body.source, body.names);
    const outcome = registry.upsertTools(batch, body.source, body.prune ?? false, body.maxTools ?? Infinity);
    const rowsRead = meter.rowsRead();
    return Response.json({ rowsRead, clashing, outcome, count: registry.toolCount(), ...charsOf(sql, registry) });
  }
}

export default {
  fetch(request, env) {
    const tenant = new URL(request.url).searchParams.get("tenant");
    return env.TENANTS.get(env.TENANTS.idFromName(tenant)).fetch(request);
  },
};
`;

let mf: Miniflare | undefined;

beforeAll(async () => {
  const script = await bundleTestWorker(WORKER_SOURCE, "registry-batch-reads-worker.js");
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-20",
    durableObjects: { TENANTS: { className: "Tenant", useSQLite: true } },
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

interface BatchAnswer {
  rowsRead: number;
  clashing: Record<string, string>;
  outcome: { ok: boolean; value?: { created: string[]; updated: string[]; unchanged: string[] }; problem?: { kind: string; detail?: string } };
  count: number;
  chars: number;
  summedChars: number;
}

/** What the tenant's object answers at `path`: with `body`, the batch to write (POST). */
async function ask<T>(tenant: string, path: string, body?: unknown): Promise<T> {
  if (!mf) throw new Error("Miniflare did not start");
  const init = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
  const response = await mf.dispatchFetch(`http://worker.test${path}${path.includes("?") ? "&" : "?"}tenant=${tenant}`, init);
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const writeBatch = (tenant: string, batch: { names: string[]; source: string; prune?: boolean; maxTools?: number; extra?: string }) =>
  ask<BatchAnswer>(tenant, "/batch", batch);

/** A tenant holding `tools` tools of one source and one of another. */
async function catalogOf(tenant: string, tools: number): Promise<string> {
  const seeded = await ask<{ count: number }>(tenant, `/seed?tools=${tools}`);
  expect(seeded.count).toBe(tools + 1);
  return tenant;
}

const batchNames = (prefix: string) => Array.from({ length: 5 }, (_, i) => `${prefix}_${i}`);

describe("a batch's registry reads follow the batch, not the catalog (issue 42)", () => {
  it("writes a batch of 5 tools into a catalog of 2,000 reading about the rows it reads in a catalog of 50", async () => {
    const small = await catalogOf("small-catalog", 50);
    const big = await catalogOf("big-catalog", 2_000);
    const intoSmall = await writeBatch(small, { names: batchNames("graph"), source: "graph" });
    const intoBig = await writeBatch(big, { names: batchNames("graph"), source: "graph" });
    expect(intoSmall.outcome.value?.created).toHaveLength(5);
    expect(intoBig.outcome.value?.created).toHaveLength(5);
    expect(intoBig.count).toBe(2_006);
    // A few rows per tool of the batch (its lookups, inserts, the kept count), whatever the catalog holds.
    expect(intoBig.rowsRead).toBeLessThanOrEqual(intoSmall.rowsRead + 5);
    expect(intoBig.rowsRead).toBeLessThan(100);
  });

  it("finds the batch's names another source holds, and refuses them, reading those names alone", async () => {
    const tenant = await catalogOf("clash", 2_000);
    const answer = await writeBatch(tenant, { names: ["shared_name", "graph_new"], source: "graph" });
    expect(answer.clashing).toEqual({ shared_name: "other" });
    expect(answer.outcome.ok).toBe(false);
    expect(answer.outcome.problem?.kind).toBe("conflict");
    expect(answer.rowsRead).toBeLessThan(100);
  });

  it("keeps the tool limit's count exact: new names count, names already held do not, a prune drops the source's others", async () => {
    const tenant = await catalogOf("limit", 50);
    // 51 tools; 2 of the batch's 3 names are held already (one of this source), so 52 after it.
    const atLimit = await writeBatch(tenant, { names: ["catalog_1", "catalog_2", "fresh"], source: "catalog", maxTools: 52 });
    expect(atLimit.outcome.ok).toBe(true);
    expect(atLimit.count).toBe(52);
    const over = await writeBatch(tenant, { names: ["fresh", "fresher"], source: "catalog", maxTools: 52 });
    expect(over.outcome.problem?.detail).toMatch(/53/);
    // Pruning "catalog" leaves the other source's tool and these two: 3.
    const pruned = await writeBatch(tenant, { names: ["fresh", "fresher"], source: "catalog", prune: true, maxTools: 3 });
    expect(pruned.outcome.ok).toBe(true);
    expect(pruned.count).toBe(3);
  });

  it("counts the tools a tenant held before the kept count existed, and their definitions' characters", async () => {
    const migrated = await ask<{ count: number; chars: number; summedChars: number }>("migrated", "/before-count");
    expect(migrated.count).toBe(7);
    expect(migrated.chars).toBe(14);
  });

  it("keeps the definitions' characters exact as tools are added, rewritten and pruned", async () => {
    const tenant = await catalogOf("chars", 50);
    const answers = [
      await writeBatch(tenant, { names: batchNames("graph"), source: "graph" }),
      await writeBatch(tenant, { names: batchNames("graph"), source: "graph", extra: " A much longer description now.".repeat(30) }),
      await writeBatch(tenant, { names: ["graph_0"], source: "graph", prune: true }),
    ];
    for (const answer of answers) {
      expect(answer.outcome.ok).toBe(true);
      expect(answer.chars).toBe(answer.summedChars);
    }
    expect(answers[1]?.chars).toBeGreaterThan(answers[0]?.chars ?? Infinity);
    expect(answers[2]?.chars).toBeLessThan(answers[1]?.chars ?? 0);
  });
});
