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
 * One tenant's stores by name, each the owner of its tables (see docs/storage.md); the routing store
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
/*
 * What the Worker may call on each store, declared once: the only store methods reachable from
 * outside the object. Everything else a store offers (starting a job, saving a run, queueing an
 * evaluation, the registry's hashes, unbatched score writes) is for the object and its other
 * stores. The object's RPC faces (durable-objects/store-faces.ts) implement exactly these;
 * docs/architecture.md lists the same methods, and a test compares all three.
 */

/** The registry store as the Worker reaches it: identity, keys, tools, credentials and token caches. */
export interface RegistryFace
  extends Pick<
    TenantRegistry,
    | "authenticate"
    | "cacheToken"
    | "cachedToken"
    | "catalogStamp"
    | "createKey"
    | "deleteCredential"
    | "deleteTool"
    | "getTool"
    | "info"
    | "initialize"
    | "listCredentials"
    | "listKeys"
    | "listTools"
    | "putCredential"
    | "revokeKey"
    | "toolCountAfter"
    | "toolForCall"
    | "toolNames"
    | "toolSummaries"
    | "toolsNamed"
    | "toolsOfOtherSources"
    | "upsertTools"
  > {}

/** The settings store as the Worker reaches it: tenant settings. */
export interface SettingsFace extends Pick<TenantSettings, "get" | "put" | "runSettings" | "sideEffects" | "updateRunSettings" | "updateSideEffects"> {}

/** The routing store as the Worker reaches it: route answers, the graph, trajectories, embeddings and the signal weights. */
export interface RoutingFace
  extends Pick<
    TenantRouting,
    | "calibration"
    | "importTrajectories"
    | "learnedWords"
    | "replaceWith"
    | "route"
    | "routeJson"
    | "routeJsonUnlessEmbedded"
    | "routeUnlessEmbedded"
    | "settings"
    | "snapshot"
    | "storeEmbeddings"
    | "toolsNeedingEmbeddings"
    | "updateSettings"
    | "weightedEdges"
  > {}

/** The runs store as the Worker reaches it: stored runs and their evaluation. */
export interface RunsFace extends Pick<TenantRuns, "evaluationStatus" | "get" | "list"> {}

/** The runSlots store as the Worker reaches it: a run's slot: its begin, finish and release. */
export interface RunSlotsFace extends Pick<RunSlots, "begin" | "finish" | "release"> {}

/** The jobs store as the Worker reaches it: background jobs. */
export interface JobsFace extends Pick<TenantJobs, "create" | "get" | "list" | "waitFor"> {}

/** The imports store as the Worker reaches it: a big document's upload chunks. */
export interface ImportsFace extends Pick<TenantImports, "appendUpload" | "discardUpload"> {}

/** The protocols store as the Worker reaches it: probed protocols and their pinned versions. */
export interface ProtocolsFace extends Pick<TenantProtocols, "currentMany" | "pin" | "versions"> {}

/** The webhooks store as the Worker reaches it: signing secrets and deliveries. */
export interface WebhooksFace
  extends Pick<TenantWebhooks, "addSecret" | "claimDelivery" | "completeDelivery" | "failDelivery" | "listSecrets" | "validSecrets"> {}

/** The quotas store as the Worker reaches it: quota settings and model tokens today. */
export interface QuotasFace extends Pick<TenantQuotas, "modelTokensToday" | "settings" | "update"> {}

/** The idempotency store as the Worker reaches it: Idempotency-Key records. */
export interface IdempotencyFace extends Pick<TenantIdempotency, "abandon" | "begin" | "complete"> {}

/** The optimization store as the Worker reaches it: description optimisation settings. */
export interface OptimizationFace extends Pick<TenantOptimization, "settings" | "update"> {}

/** The activity store as the Worker reaches it: the console's reads of runs and tools. */
export interface ActivityFace extends Pick<TenantActivity, "runs" | "tools"> {}

/** The observed store as the Worker reaches it: observed conversations and implicit learning. */
export interface ObservedFace
  extends Pick<TenantObserved, "close" | "curve" | "delete" | "learningSettings" | "list" | "recordCall" | "recordSearch" | "updateLearningSettings"> {}

/** Every store as the Worker reaches it, by name: the object's store getters (`tenant.registry`, …). */
export interface StoreFaces {
  readonly registry: RegistryFace;
  readonly settings: SettingsFace;
  readonly routing: RoutingFace;
  readonly runs: RunsFace;
  readonly runSlots: RunSlotsFace;
  readonly jobs: JobsFace;
  readonly imports: ImportsFace;
  readonly protocols: ProtocolsFace;
  readonly webhooks: WebhooksFace;
  readonly quotas: QuotasFace;
  readonly idempotency: IdempotencyFace;
  readonly optimization: OptimizationFace;
  readonly activity: ActivityFace;
  readonly observed: ObservedFace;
}
