import { RpcTarget } from "cloudflare:workers";
import { MODEL_SETTING } from "../tenants/stored-model-override";
import { RunSlots, type RunSources } from "./run-slots";
import { TenantActivity } from "./tenant-activity";
import { TenantEvents } from "./tenant-events";
import { TenantIdempotency } from "./tenant-idempotency";
import { TenantImports } from "./tenant-imports";
import { TenantJobs } from "./tenant-jobs";
import { TenantObserved } from "./tenant-observed";
import { TenantOptimization } from "./tenant-optimization";
import { TenantProtocols } from "./tenant-protocols";
import { TenantQuotas } from "./tenant-quotas";
import { TenantRegistry } from "./tenant-registry";
import { TenantRouting } from "./tenant-routing";
import { TenantRuns } from "./tenant-runs";
import { TenantSettings } from "./tenant-settings";
import { TenantToolViews, type RunLater } from "./tenant-tool-views";
import { TenantWebhooks } from "./tenant-webhooks";

/** What the stores need of the object that holds them: its alarm, learning from a run (which spans stores), and background work. */
export interface StoreHooks {
  armAlarm(): Promise<void>;
  learnFromRun: RunSources["learnFromRun"];
  runLater: RunLater;
}

/**
 * Open a tenant's stores over its SQLite storage, wired to one another only through what each
 * needs. This is where the stores are declared: their names and classes are this function's answer.
 */
export function openTenantStores(ctx: DurableObjectState, { armAlarm, learnFromRun, runLater }: StoreHooks) {
  const sql = ctx.storage.sql;
  const events = new TenantEvents();
  const registry = new TenantRegistry(ctx.storage, events);
  const settings = new TenantSettings(sql);
  const protocols = new TenantProtocols(sql, () => registry.hashes(), events);
  const toolViews = new TenantToolViews(sql, registry, events, runLater);
  const routing = new TenantRouting(sql, {
    catalog: registry,
    descriptions: () => protocols.descriptions(),
    routingHints: () => protocols.routingHints(),
    protocolRunTokens: () => protocols.runTokens(),
    views: (tool, shown, description) => toolViews.viewsOf(tool, shown, description),
    viewsEach: (wanted) => toolViews.viewsOfEach(wanted),
    viewsWarmth: () => toolViews.warmth(),
    settings,
    events,
    // Inside the change's transaction: the alarm is set once it has committed.
    preparationNoted: () => queueMicrotask(() => void armAlarm().catch((error: unknown) => console.warn(`alarm not set: ${String(error)}`))),
  });
  const runs = new TenantRuns(sql);
  const jobs = new TenantJobs(sql, armAlarm);
  const observed = new TenantObserved(sql, settings, routing, armAlarm);
  const runSources: RunSources = {
    modelSetting: () => settings.get(MODEL_SETTING),
    candidates: (task, options) => routing.candidates(task, options).candidates.map((c) => c.tool),
    tool: (name) => registry.getTool(name),
    currentProtocols: (tools) => protocols.currentMany(tools),
    saveRun: (id, task, status, recordJson) => runs.save(id, task, status, recordJson),
    learnFromRun,
  };
  return {
    registry,
    settings,
    routing,
    runs,
    runSlots: new RunSlots(settings, runSources),
    jobs,
    imports: new TenantImports(ctx.storage, registry, armAlarm),
    protocols,
    webhooks: new TenantWebhooks(sql),
    quotas: new TenantQuotas(settings, {
      jobsInFlight: () => jobs.inFlight(),
      modelTokensSince: (since) => runs.modelTokensSince(since) + jobs.modelTokensSince(since),
    }),
    idempotency: new TenantIdempotency(sql),
    optimization: new TenantOptimization(sql, settings, (tool) => jobs.optimizationPending(tool)),
    activity: new TenantActivity(runs, jobs),
    observed,
  };
}

/** One tenant's stores, each the owner of its tables (see STORAGE.md). */
export type TenantStores = ReturnType<typeof openTenantStores>;
export type StoreName = keyof TenantStores;

/**
 * The methods of each store that the Worker calls over RPC: the only ones reachable from outside
 * the object. Everything else a store offers (starting a job, saving a run, queueing an
 * evaluation, the registry's hashes, unbatched score writes) is for the object and its other
 * stores. docs/architecture.md lists the same methods; a test compares both with what RPC reaches.
 */
export const WORKER_METHODS = {
  registry: [
    "authenticate",
    "cacheToken",
    "cachedToken",
    "createKey",
    "deleteCredential",
    "deleteTool",
    "getTool",
    "info",
    "initialize",
    "listCredentials",
    "listKeys",
    "listTools",
    "putCredential",
    "revokeKey",
    "toolCountAfter",
    "toolForCall",
    "toolSummaries",
    "upsertTools",
  ],
  settings: ["get", "put", "runSettings", "sideEffects", "updateRunSettings", "updateSideEffects"],
  routing: [
    "calibration",
    "importTrajectories",
    "replaceWith",
    "route",
    "routeJson",
    "routeJsonUnlessEmbedded",
    "routeUnlessEmbedded",
    "settings",
    "snapshot",
    "storeEmbeddings",
    "toolsNeedingEmbeddings",
    "updateSettings",
    "weightedEdges",
  ],
  runs: ["evaluationStatus", "get", "list"],
  runSlots: ["begin", "finish", "release"],
  jobs: ["create", "get", "list", "waitFor"],
  imports: ["appendUpload", "discardUpload"],
  protocols: ["currentMany", "pin", "versions"],
  webhooks: ["addSecret", "claimDelivery", "completeDelivery", "failDelivery", "listSecrets", "validSecrets"],
  quotas: ["modelTokensToday", "settings", "update"],
  idempotency: ["abandon", "begin", "complete"],
  optimization: ["settings", "update"],
  activity: ["runs", "tools"],
  observed: ["close", "curve", "delete", "learningSettings", "list", "recordCall", "recordSearch", "updateLearningSettings"],
} as const satisfies { readonly [K in StoreName]: readonly (keyof TenantStores[K] & string)[] };

export const STORE_NAMES = Object.keys(WORKER_METHODS) as StoreName[];

/** A store as the Worker reaches it: an RPC target with only the store's Worker methods. */
export type StoreFace<K extends StoreName> = RpcTarget & Pick<TenantStores[K], Extract<(typeof WORKER_METHODS)[K][number], keyof TenantStores[K]>>;
export type StoreFaces = { readonly [K in StoreName]: StoreFace<K> };

/**
 * The RPC faces of a tenant's stores: each forwards its Worker methods to the store current at
 * the call (`current()`: after an eviction, the reopened one), and has no other method.
 */
export function storeFaces(current: () => TenantStores): StoreFaces {
  const faces: Partial<Record<StoreName, RpcTarget>> = {};
  for (const name of STORE_NAMES) {
    const face = class extends RpcTarget {};
    for (const method of WORKER_METHODS[name] as readonly string[]) {
      Object.defineProperty(face.prototype, method, {
        value(...args: unknown[]) {
          const store = current()[name] as unknown as Record<string, (...a: unknown[]) => unknown>;
          return (store[method] as (...a: unknown[]) => unknown).apply(store, args);
        },
      });
    }
    faces[name] = new face();
  }
  return faces as StoreFaces;
}
