/**
 * The service's Worker as integration tests run it: exactly what ships, plus a tenant object
 * class with one test-only hook, so the hook is never on the production object's RPC surface.
 */
// The shipped entry first: module evaluation follows this order, and the service's modules
// expect the HTTP layer (and its zod extension) to load before the Durable Objects.
export * from "../../functions/index";
export { default } from "../../functions/index";
import { RoutingSnapshots, type LoadReport } from "../../functions/storage/routing-snapshots";
import { TenantObject } from "../../durable-objects/tenant-object";
import { TenantApiTarget } from "../../durable-objects/tenant-api-target";
import { TenantCore } from "../../durable-objects/tenant-core";
import type { SliceReport } from "../../functions/common/work-slice";
import { JOB_TOKENS_SINCE } from "../../functions/storage/tenant-jobs";
import { RUN_TOKENS_SINCE } from "../../functions/storage/tenant-runs";

/** The object's members a call from the Worker goes through: its store getters, operations and admission (all but the runtime's alarm handler). */
const COUNTED_MEMBERS = Object.getOwnPropertyNames(TenantObject.prototype).filter((name) => name !== "constructor" && name !== "alarm");
/** The production object's store getters: one per store, answering the store's RPC face. */
const STORE_GETTERS = Object.getOwnPropertyNames(TenantObject.prototype).filter(
  (name) => Object.getOwnPropertyDescriptor(TenantObject.prototype, name)?.get !== undefined,
);

/**
 * The tenant object's inside with the tests' seams, which RPC cannot reach (TenantCore is never
 * handed out): stores reopened on demand, their background work dropped with them, and routing's
 * preparation held.
 */
class EvictableCore extends TenantCore {
  /** Stores opened so far: background work of stores an eviction dropped is dropped with them, as a real eviction drops it. */
  #storeGeneration = 0;
  /** While held, routing's preparation after catalog changes waits, so a test sees the state a request meets before it. */
  preparationHeld = false;

  override runLater(task: () => void, delayMs: number): void {
    const generation = this.#storeGeneration;
    setTimeout(() => generation === this.#storeGeneration && task(), delayMs);
  }

  override reopenStores(): void {
    this.#storeGeneration += 1;
    super.reopenStores();
  }

  /** What each slice of routing's preparation did since the object started (its pieces: the object handed back between them). */
  readonly preparationSlices: SliceReport[] = [];

  override async prepareRouting(now: number): Promise<SliceReport> {
    if (this.preparationHeld) return { pieces: 0, ms: 0, longestPieceMs: 0 };
    const report = await super.prepareRouting(now);
    this.preparationSlices.push(report);
    return report;
  }
}

/**
 * The tenant object with two test hooks: an eviction on demand (its stores are reopened from
 * SQLite, as after a real eviction), and a call into one store, for tests that drive the object
 * from Node, where Miniflare's stubs reach top-level methods only, not sub-objects.
 */
export class EvictableTenantObject extends TenantObject {
  readonly #core: EvictableCore;

  constructor(ctx: DurableObjectState, env: Env) {
    const core = new EvictableCore(ctx, env);
    super(ctx, env, core);
    this.#core = core;
  }

  /** The stores as the object holds them now. */
  get #stores() {
    return this.#core.stores;
  }

  /** The stores reopened from SQLite, as after an eviction. */
  #reopenStores(): void {
    this.#core.reopenStores();
  }

  /** With `olderFormats`, the stored routing index and graph also read as written by an older release. */
  simulateEviction(options: { olderFormats?: boolean } = {}): void {
    // Ageing the stored formats reads no trajectories, so the store needs none here.
    if (options.olderFormats === true) new RoutingSnapshots(this.ctx.storage.sql, { after: () => [], lastRow: () => 0 }).ageFormats();
    this.#reopenStores();
  }

  /** Holds (or lets go) routing's preparation after catalog changes, so a test sees the state a request meets before it. */
  holdRoutingPreparation(held: boolean): void {
    this.#core.preparationHeld = held;
  }

  /** What each slice of routing's preparation did since the object started. */
  routingPreparationSlices(): SliceReport[] {
    return this.#core.preparationSlices;
  }

  /** How the routing state was loaded: stored or rebuilt. */
  routingLoadReport(): LoadReport {
    return this.#stores.routing.loadReport();
  }

  /** Which parts of the routing state are in memory (none is loaded by asking). */
  routingLoadedParts(): { loaded: boolean; index: boolean; memory: boolean; apis: boolean; definitions: number } {
    return this.#stores.routing.loadedParts();
  }

  /** Whether the routing state read every tool's name, how many stored values a load checked name by name, and how often the index's raw term counts were read. */
  routingColdReads(): { namesRead: boolean; nameChecks: number; countReads: number; countRanges: number } {
    return this.#stores.routing.coldReads();
  }

  /** Deletes a tool's row straight in SQLite, as a write path that forgot to tell routing would (no event, no stamp rewritten). */
  deleteToolRowUnnoticed(name: string): void {
    this.ctx.storage.sql.exec("DELETE FROM tool_starts WHERE name = ?", name);
    this.ctx.storage.sql.exec("DELETE FROM tenant_tools WHERE name = ?", name);
  }

  /** Task rankings the routing store computed since the object started, not found in its memo (its protected count). */
  routingRelevanceSearches(): number {
    return (this.#stores.routing as unknown as { relevanceSearches: number }).relevanceSearches;
  }

  /** Score rows the routing store has written since the object started, and in how many flushes (coalesced updates share them). */
  routingScoreWrites(): { rows: number; flushes: number } {
    return this.#stores.routing.scoreWrites();
  }

  /** The run tokens quotas count since `sinceIso`, with how many rows SQLite read to count them. */
  runTokensSince(sinceIso: string): { tokens: number | null; rowsRead: number } {
    const cursor = this.ctx.storage.sql.exec<{ n: number | null }>(RUN_TOKENS_SINCE, sinceIso);
    const [row] = cursor.toArray();
    return { tokens: row?.n ?? null, rowsRead: cursor.rowsRead };
  }

  /** The job tokens quotas count since `sinceIso`, with how many rows SQLite read to count them. */
  jobTokensSince(sinceIso: string): { tokens: number | null; rowsRead: number } {
    const cursor = this.ctx.storage.sql.exec<{ n: number | null }>(JOB_TOKENS_SINCE, sinceIso);
    const [row] = cursor.toArray();
    return { tokens: row?.n ?? null, rowsRead: cursor.rowsRead };
  }

  /**
   * Make a tool's stored views look written by an older release: its compact view replaced by
   * `compact` and its row stamped with the compaction rules' `version`, then an eviction, so
   * that the next read comes from storage.
   */
  storeToolViewAs(tool: string, version: number, compact: unknown, compactTokens: number): void {
    this.ctx.storage.sql.exec(
      "UPDATE tool_views SET rules_version = ?, compact = ?, compact_tokens = ? WHERE tool = ?",
      version,
      JSON.stringify(compact),
      compactTokens,
      tool,
    );
    this.#reopenStores();
  }

  /** Make a tool's stored views look made for another definition (a hash the registry does not hold), `compact` as their compact view, then an eviction. */
  storeToolViewForOlderDefinition(tool: string, compact: unknown): void {
    this.ctx.storage.sql.exec("UPDATE tool_views SET hash = 'an older definition', compact = ? WHERE tool = ?", JSON.stringify(compact), tool);
    this.#reopenStores();
  }

  /** Make a tool's stored views look written before rows held their one-line description (migration 19), then an eviction. */
  dropToolViewLine(tool: string): void {
    this.ctx.storage.sql.exec("UPDATE tool_views SET line = NULL WHERE tool = ?", tool);
    this.#reopenStores();
  }

  /** Replace every stored compact view by `compact` in SQLite only: what memory holds is not touched (no eviction). */
  overwriteStoredCompactViews(compact: unknown): void {
    this.ctx.storage.sql.exec("UPDATE tool_views SET compact = ?", JSON.stringify(compact));
  }

  /** How much of the catalog's stored views is in memory. */
  toolViewsWarmth(): { remembered: number; chars: number; complete: boolean } {
    return this.#stores.routing.viewsWarmth();
  }

  /** A tool's stored one-line description (null: none stored; undefined: no row). */
  storedToolViewLine(tool: string): string | null | undefined {
    const [row] = this.ctx.storage.sql.exec<{ line: string | null }>("SELECT line FROM tool_views WHERE tool = ?", tool).toArray();
    return row?.line;
  }

  /** A tool's stored compact view and the compaction rules' version that made it (undefined: no row). */
  storedToolView(tool: string): { version: number; compact: unknown } | undefined {
    const [row] = this.ctx.storage.sql
      .exec<{ rules_version: number; compact: string }>("SELECT rules_version, compact FROM tool_views WHERE tool = ?", tool)
      .toArray();
    return row === undefined ? undefined : { version: row.rules_version, compact: JSON.parse(row.compact) as unknown };
  }

  /** Ages every stored upload chunk by `ms`, as if it had arrived that much earlier. */
  ageUploads(ms: number): void {
    this.ctx.storage.sql.exec("UPDATE import_uploads SET created_at = created_at - ?", ms);
  }

  /** How many upload chunks are stored. */
  uploadChunks(): number {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM import_uploads").one().n;
  }

  /** When the object's alarm is set (null: it is not). */
  alarmAt(): Promise<number | null> {
    return this.ctx.storage.getAlarm();
  }

  /** The alarm handler, run now, as the runtime runs it when the alarm is due. */
  runAlarm(): Promise<void> {
    return this.alarm();
  }

  /** The calls made to this object since the last reading, each by the member it went through (then counting starts again). */
  takeCalls(): string[] {
    return this.#calls.splice(0);
  }

  readonly #calls: string[] = [];

  static {
    // Every call the Worker makes reaches the object through one of these: a store's getter
    // (`tenant.runs.save(…)` reads `runs` first) or a method of the object itself.
    for (const name of COUNTED_MEMBERS) {
      const inherited = Object.getOwnPropertyDescriptor(TenantObject.prototype, name);
      if (inherited === undefined) throw new Error(`TenantObject has no member ${name}`);
      const counted: PropertyDescriptor = { configurable: true };
      if (inherited.get !== undefined) {
        const get = inherited.get;
        counted.get = function (this: EvictableTenantObject) {
          this.#calls.push(name);
          return get.call(this);
        };
      } else {
        const method = inherited.value as (...args: unknown[]) => unknown;
        counted.value = function (this: EvictableTenantObject, ...args: unknown[]) {
          this.#calls.push(name);
          return method.apply(this, args);
        };
      }
      Object.defineProperty(EvictableTenantObject.prototype, name, counted);
    }
  }

  /**
   * What RPC reaches on the production class: the object's own members (store getters, operations,
   * admission, the runtime's alarm handler), each store face's methods, and the admitted surface's members.
   */
  rpcSurface(): { object: string[]; stores: Record<string, string[]>; surface: string[] } {
    const ownMethods = (prototype: object) =>
      Object.getOwnPropertyNames(prototype)
        .filter((name) => name !== "constructor")
        .sort();
    const stores = Object.fromEntries(
      STORE_GETTERS.map((name) => {
        const face = Object.getOwnPropertyDescriptor(TenantObject.prototype, name)?.get?.call(this) as object;
        return [name, ownMethods(Object.getPrototypeOf(face) as object)];
      }),
    );
    return { object: ownMethods(TenantObject.prototype), stores, surface: ownMethods(TenantApiTarget.prototype) };
  }

  /** A call into one store with all its methods, as the object's own code makes it (tests set state up this way). */
  storeCall(store: string, method: string, args: unknown[]): unknown {
    const target = (this.#stores as unknown as Record<string, Record<string, (...a: unknown[]) => unknown> | undefined>)[store];
    const fn = target?.[method];
    if (typeof fn !== "function") throw new Error(`no store method ${store}.${method}`);
    return fn.apply(target, args);
  }
}
