import type { RpcTarget } from "cloudflare:workers";
import type { TenantRouting } from "../routing/tenant-routing";
import type { RunSlots } from "../storage/run-slots";
import type { TenantActivity } from "../storage/tenant-activity";
import type { TenantIdempotency } from "../storage/tenant-idempotency";
import type { TenantImports } from "../storage/tenant-imports";
import type { TenantJobs } from "../storage/tenant-jobs";
import type { TenantObserved } from "../storage/tenant-observed";
import type { TenantOptimization } from "../storage/tenant-optimization";
import type { TenantProtocols } from "../storage/tenant-protocols";
import type { TenantQuotas } from "../storage/tenant-quotas";
import type { TenantRegistry } from "../storage/tenant-registry";
import type { TenantRuns } from "../storage/tenant-runs";
import type { TenantSettings } from "../storage/tenant-settings";
import type { TenantWebhooks } from "../storage/tenant-webhooks";

/**
 * One tenant's stores by name, each the owner of its tables (see STORAGE.md); the routing store
 * is the routing engine's (functions/routing/). durable-objects/tenant-stores.ts opens them.
 */
export interface TenantStores {
  registry: TenantRegistry;
  settings: TenantSettings;
  routing: TenantRouting;
  runs: TenantRuns;
  runSlots: RunSlots;
  jobs: TenantJobs;
  imports: TenantImports;
  protocols: TenantProtocols;
  webhooks: TenantWebhooks;
  quotas: TenantQuotas;
  idempotency: TenantIdempotency;
  optimization: TenantOptimization;
  activity: TenantActivity;
  observed: TenantObserved;
}
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
