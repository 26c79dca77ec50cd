import type { Remote } from "../../functions/tenant-api/tenant-api";
import type { StoreName, TenantStores } from "../../functions/tenant-api/store-faces";
import type { TestService } from "./service";

/** A tenant's Durable Object as a Node test drives it (see test-worker.ts for the hooks). */
export interface TestTenantObject {
  /** Drops in-memory state; with olderFormats the stored routing index and graph read as another format (rebuilt). */
  simulateEviction(options?: { olderFormats?: boolean }): Promise<void>;
  /** What each slice of routing's preparation did since the object started (pieces: the object handed back between them). */
  routingPreparationSlices(): Promise<{ pieces: number; ms: number; longestPieceMs: number }[]>;
  /** How the routing state was loaded: stored or rebuilt. */
  routingLoadReport(): Promise<{ index: string; graph: string; dataFlow: string }>;
  /** Holds (or lets go) routing's preparation after catalog changes (the alarm would otherwise store what a test wants pending). */
  holdRoutingPreparation(held: boolean): Promise<void>;
  /** Score rows written by the routing store since the object started, and in how many flushes of single updates. */
  routingScoreWrites(): Promise<{ rows: number; flushes: number }>;
  /** Task rankings the routing store computed since the object started (searches its memo did not answer). */
  routingRelevanceSearches(): Promise<number>;
  /** Which parts of the routing state are in memory (asking loads none). */
  routingLoadedParts(): Promise<{ loaded: boolean; index: boolean; memory: boolean; apis: boolean; definitions: number }>;
  storageBytes(): Promise<number>;
  /** The run tokens quotas count since `sinceIso` (null: no run), and how many rows SQLite read to count them. */
  runTokensSince(sinceIso: string): Promise<{ tokens: number | null; rowsRead: number }>;
  /** The job tokens quotas count since `sinceIso` (null: no job), and how many rows SQLite read to count them. */
  jobTokensSince(sinceIso: string): Promise<{ tokens: number | null; rowsRead: number }>;
  /** Calls made to the object since the last reading, each named by the store or method it went through. */
  takeCalls(): Promise<string[]>;
  /** Stamp a tool's stored views as written by older compaction rules (`version`), with `compact` as their compact view; then an eviction. */
  storeToolViewAs(tool: string, version: number, compact: unknown, compactTokens: number): Promise<void>;
  /** Make a tool's stored views look made for another definition of it, with `compact` as their compact view; then an eviction. */
  storeToolViewForOlderDefinition(tool: string, compact: unknown): Promise<void>;
  /** A tool's stored compact view and the version of the rules that made it. */
  storedToolView(tool: string): Promise<{ version: number; compact: unknown } | undefined>;
  /** Clear a tool's stored one-line description (as in rows older than migration 19), then an eviction; read it (null: none, undefined: no row). */
  dropToolViewLine(tool: string): Promise<void>;
  storedToolViewLine(tool: string): Promise<string | null | undefined>;
  /** Replace every stored compact view by `compact` in SQLite only, leaving what memory holds (no eviction). */
  overwriteStoredCompactViews(compact: unknown): Promise<void>;
  /** How much of the catalog's stored views is in memory (read in the background after an answer's first read). */
  toolViewsWarmth(): Promise<{ remembered: number; chars: number; complete: boolean }>;
  /** What RPC reaches on the production tenant object, its store faces and its admitted surface. */
  rpcSurface(): Promise<{ object: string[]; stores: Record<string, string[]>; surface: string[] }>;
  /** Ages every stored upload chunk by `ms`; how many chunks are stored; when the alarm is set; the alarm handler run now. */
  ageUploads(ms: number): Promise<void>;
  uploadChunks(): Promise<number>;
  alarmAt(): Promise<number | null>;
  runAlarm(): Promise<void>;
  /** One store of the object with all its methods, as the object's own code sees it (for setting state up directly). */
  store<K extends StoreName>(name: K): Remote<TenantStores[K]>;
}

/**
 * Miniflare's proxy between Node and workerd sometimes finds its connection closed ("fetch failed",
 * caused by "other side closed" or ECONNRESET; seen after background jobs on a loaded machine, issue 42), even
 * on its synchronous calls that read nothing and change nothing (`idFromName`, `get`): those are
 * sent again. Calls into the object are not.
 */
function closedByOtherSide(error: unknown): boolean {
  const cause = (error as { cause?: { message?: unknown } } | undefined)?.cause;
  return error instanceof TypeError && typeof cause?.message === "string" && /other side closed|ECONNRESET/.test(cause.message);
}

/** `resolve` (synchronous: a stub is never awaited, its `then` would be a call into the object), sent again while its connection was closed. */
function resolvedAgain<T>(resolve: () => T, attempts = 3): T {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return resolve();
    } catch (error) {
      if (!closedByOtherSide(error) || attempt >= attempts) throw error;
    }
  }
}

export async function tenantObject(service: TestService, tenantId: string): Promise<TestTenantObject> {
  const namespace = await service.mf.getDurableObjectNamespace("TENANTS", "atc-edge");
  const id = resolvedAgain(() => namespace.idFromName(tenantId));
  const stub = resolvedAgain(() => namespace.get(id)) as unknown as {
    simulateEviction(options?: { olderFormats?: boolean }): Promise<void>;
    routingLoadReport(): Promise<{ index: string; graph: string; dataFlow: string }>;
    holdRoutingPreparation(held: boolean): Promise<void>;
    routingScoreWrites(): Promise<{ rows: number; flushes: number }>;
    routingRelevanceSearches(): Promise<number>;
    routingLoadedParts(): Promise<{ loaded: boolean; index: boolean; memory: boolean; apis: boolean; definitions: number }>;
    storageBytes(): Promise<number>;
    runTokensSince(sinceIso: string): Promise<{ tokens: number | null; rowsRead: number }>;
    jobTokensSince(sinceIso: string): Promise<{ tokens: number | null; rowsRead: number }>;
    storeCall(store: string, method: string, args: unknown[]): Promise<unknown>;
    rpcSurface(): Promise<{ object: string[]; stores: Record<string, string[]>; surface: string[] }>;
    takeCalls(): Promise<string[]>;
    storeToolViewAs(tool: string, version: number, compact: unknown, compactTokens: number): Promise<void>;
    storedToolView(tool: string): Promise<{ version: number; compact: unknown } | undefined>;
    storeToolViewForOlderDefinition(tool: string, compact: unknown): Promise<void>;
    dropToolViewLine(tool: string): Promise<void>;
    storedToolViewLine(tool: string): Promise<string | null | undefined>;
    overwriteStoredCompactViews(compact: unknown): Promise<void>;
    toolViewsWarmth(): Promise<{ remembered: number; chars: number; complete: boolean }>;
    ageUploads(ms: number): Promise<void>;
    uploadChunks(): Promise<number>;
    alarmAt(): Promise<number | null>;
    runAlarm(): Promise<void>;
    routingPreparationSlices(): Promise<{ pieces: number; ms: number; longestPieceMs: number }[]>;
  };
  return {
    simulateEviction: (options) => stub.simulateEviction(options),
    routingLoadReport: () => stub.routingLoadReport(),
    routingPreparationSlices: () => stub.routingPreparationSlices(),
    holdRoutingPreparation: (held) => stub.holdRoutingPreparation(held),
    routingScoreWrites: () => stub.routingScoreWrites(),
    routingRelevanceSearches: () => stub.routingRelevanceSearches(),
    routingLoadedParts: () => stub.routingLoadedParts(),
    storageBytes: () => stub.storageBytes(),
    runTokensSince: (sinceIso) => stub.runTokensSince(sinceIso),
    jobTokensSince: (sinceIso) => stub.jobTokensSince(sinceIso),
    takeCalls: () => stub.takeCalls(),
    storeToolViewAs: (tool, version, compact, compactTokens) => stub.storeToolViewAs(tool, version, compact, compactTokens),
    storedToolView: (tool) => stub.storedToolView(tool),
    storeToolViewForOlderDefinition: (tool, compact) => stub.storeToolViewForOlderDefinition(tool, compact),
    dropToolViewLine: (tool) => stub.dropToolViewLine(tool),
    storedToolViewLine: (tool) => stub.storedToolViewLine(tool),
    overwriteStoredCompactViews: (compact) => stub.overwriteStoredCompactViews(compact),
    toolViewsWarmth: () => stub.toolViewsWarmth(),
    rpcSurface: () => stub.rpcSurface(),
    ageUploads: (ms) => stub.ageUploads(ms),
    uploadChunks: () => stub.uploadChunks(),
    alarmAt: () => stub.alarmAt(),
    runAlarm: () => stub.runAlarm(),
    store: <K extends StoreName>(name: K) =>
      new Proxy(
        {},
        {
          get:
            (_target, method) =>
            (...args: unknown[]) =>
              stub.storeCall(name, String(method), args),
        },
      ) as Remote<TenantStores[K]>,
  };
}

/** Waits until no preparation of the tenant's routing state is due any more (its alarm ran it, loaded-routing.ts `prepare`). */
export async function routingPrepared(object: TestTenantObject, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await object.store("routing").preparationDue()) !== null) {
    if (Date.now() > deadline) throw new Error("the routing state was not prepared in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
