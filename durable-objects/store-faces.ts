import { RpcTarget } from "cloudflare:workers";
import type { TenantRegistry } from "../functions/storage/tenant-registry";
import type { TenantSettings } from "../functions/storage/tenant-settings";
import type { TenantRouting } from "../functions/routing/tenant-routing";
import type { TenantRuns } from "../functions/storage/tenant-runs";
import type { RunSlots } from "../functions/storage/run-slots";
import type { TenantJobs } from "../functions/storage/tenant-jobs";
import type { TenantImports } from "../functions/storage/tenant-imports";
import type { TenantProtocols } from "../functions/storage/tenant-protocols";
import type { TenantWebhooks } from "../functions/storage/tenant-webhooks";
import type { TenantQuotas } from "../functions/storage/tenant-quotas";
import type { TenantIdempotency } from "../functions/storage/tenant-idempotency";
import type { TenantOptimization } from "../functions/storage/tenant-optimization";
import type { TenantActivity } from "../functions/storage/tenant-activity";
import type { TenantObserved } from "../functions/storage/tenant-observed";
import type {
  RegistryFace,
  SettingsFace,
  RoutingFace,
  RunsFace,
  RunSlotsFace,
  JobsFace,
  ImportsFace,
  ProtocolsFace,
  WebhooksFace,
  QuotasFace,
  IdempotencyFace,
  OptimizationFace,
  ActivityFace,
  ObservedFace,
  StoreFaces,
  TenantStores,
} from "../functions/tenant-api/store-faces";

/*
 * The stores' RPC faces: one class per store, each implementing the store's face as
 * functions/tenant-api/store-faces.ts declares it and forwarding every method to the store current
 * at the call (after an eviction, the reopened one). Written out, not generated: a face has exactly
 * the methods its class shows, which `FACES_EXACT` below proves equal to the declaration.
 */

/** The arguments of a store's method. */
type Args<Store, Method extends keyof Store> = Store[Method] extends (...args: infer A) => unknown ? A : never;

/** The registry store's RPC face (RegistryFace). */
export class RegistryRpc extends RpcTarget implements RegistryFace {
  readonly #store: () => TenantRegistry;
  constructor(store: () => TenantRegistry) {
    super();
    this.#store = store;
  }
  authenticate(...args: Args<TenantRegistry, "authenticate">) {
    return this.#store().authenticate(...args);
  }
  cacheToken(...args: Args<TenantRegistry, "cacheToken">) {
    return this.#store().cacheToken(...args);
  }
  cachedToken(...args: Args<TenantRegistry, "cachedToken">) {
    return this.#store().cachedToken(...args);
  }
  catalogStamp(...args: Args<TenantRegistry, "catalogStamp">) {
    return this.#store().catalogStamp(...args);
  }
  createKey(...args: Args<TenantRegistry, "createKey">) {
    return this.#store().createKey(...args);
  }
  deleteCredential(...args: Args<TenantRegistry, "deleteCredential">) {
    return this.#store().deleteCredential(...args);
  }
  deleteTool(...args: Args<TenantRegistry, "deleteTool">) {
    return this.#store().deleteTool(...args);
  }
  getTool(...args: Args<TenantRegistry, "getTool">) {
    return this.#store().getTool(...args);
  }
  info(...args: Args<TenantRegistry, "info">) {
    return this.#store().info(...args);
  }
  initialize(...args: Args<TenantRegistry, "initialize">) {
    return this.#store().initialize(...args);
  }
  listCredentials(...args: Args<TenantRegistry, "listCredentials">) {
    return this.#store().listCredentials(...args);
  }
  listKeys(...args: Args<TenantRegistry, "listKeys">) {
    return this.#store().listKeys(...args);
  }
  listTools(...args: Args<TenantRegistry, "listTools">) {
    return this.#store().listTools(...args);
  }
  putCredential(...args: Args<TenantRegistry, "putCredential">) {
    return this.#store().putCredential(...args);
  }
  revokeKey(...args: Args<TenantRegistry, "revokeKey">) {
    return this.#store().revokeKey(...args);
  }
  toolCountAfter(...args: Args<TenantRegistry, "toolCountAfter">) {
    return this.#store().toolCountAfter(...args);
  }
  toolForCall(...args: Args<TenantRegistry, "toolForCall">) {
    return this.#store().toolForCall(...args);
  }
  toolNames(...args: Args<TenantRegistry, "toolNames">) {
    return this.#store().toolNames(...args);
  }
  toolSummaries(...args: Args<TenantRegistry, "toolSummaries">) {
    return this.#store().toolSummaries(...args);
  }
  toolsNamed(...args: Args<TenantRegistry, "toolsNamed">) {
    return this.#store().toolsNamed(...args);
  }
  toolsOfOtherSources(...args: Args<TenantRegistry, "toolsOfOtherSources">) {
    return this.#store().toolsOfOtherSources(...args);
  }
  upsertTools(...args: Args<TenantRegistry, "upsertTools">) {
    return this.#store().upsertTools(...args);
  }
}

/** The settings store's RPC face (SettingsFace). */
export class SettingsRpc extends RpcTarget implements SettingsFace {
  readonly #store: () => TenantSettings;
  constructor(store: () => TenantSettings) {
    super();
    this.#store = store;
  }
  get(...args: Args<TenantSettings, "get">) {
    return this.#store().get(...args);
  }
  put(...args: Args<TenantSettings, "put">) {
    return this.#store().put(...args);
  }
  runSettings(...args: Args<TenantSettings, "runSettings">) {
    return this.#store().runSettings(...args);
  }
  sideEffects(...args: Args<TenantSettings, "sideEffects">) {
    return this.#store().sideEffects(...args);
  }
  updateRunSettings(...args: Args<TenantSettings, "updateRunSettings">) {
    return this.#store().updateRunSettings(...args);
  }
  updateSideEffects(...args: Args<TenantSettings, "updateSideEffects">) {
    return this.#store().updateSideEffects(...args);
  }
}

/** The routing store's RPC face (RoutingFace). */
export class RoutingRpc extends RpcTarget implements RoutingFace {
  readonly #store: () => TenantRouting;
  constructor(store: () => TenantRouting) {
    super();
    this.#store = store;
  }
  calibration(...args: Args<TenantRouting, "calibration">) {
    return this.#store().calibration(...args);
  }
  importTrajectories(...args: Args<TenantRouting, "importTrajectories">) {
    return this.#store().importTrajectories(...args);
  }
  learnedWords(...args: Args<TenantRouting, "learnedWords">) {
    return this.#store().learnedWords(...args);
  }
  replaceWith(...args: Args<TenantRouting, "replaceWith">) {
    return this.#store().replaceWith(...args);
  }
  route(...args: Args<TenantRouting, "route">) {
    return this.#store().route(...args);
  }
  routeJson(...args: Args<TenantRouting, "routeJson">) {
    return this.#store().routeJson(...args);
  }
  routeJsonUnlessEmbedded(...args: Args<TenantRouting, "routeJsonUnlessEmbedded">) {
    return this.#store().routeJsonUnlessEmbedded(...args);
  }
  routeUnlessEmbedded(...args: Args<TenantRouting, "routeUnlessEmbedded">) {
    return this.#store().routeUnlessEmbedded(...args);
  }
  settings(...args: Args<TenantRouting, "settings">) {
    return this.#store().settings(...args);
  }
  snapshot(...args: Args<TenantRouting, "snapshot">) {
    return this.#store().snapshot(...args);
  }
  storeEmbeddings(...args: Args<TenantRouting, "storeEmbeddings">) {
    return this.#store().storeEmbeddings(...args);
  }
  toolsNeedingEmbeddings(...args: Args<TenantRouting, "toolsNeedingEmbeddings">) {
    return this.#store().toolsNeedingEmbeddings(...args);
  }
  updateSettings(...args: Args<TenantRouting, "updateSettings">) {
    return this.#store().updateSettings(...args);
  }
  weightedEdges(...args: Args<TenantRouting, "weightedEdges">) {
    return this.#store().weightedEdges(...args);
  }
}

/** The runs store's RPC face (RunsFace). */
export class RunsRpc extends RpcTarget implements RunsFace {
  readonly #store: () => TenantRuns;
  constructor(store: () => TenantRuns) {
    super();
    this.#store = store;
  }
  evaluationStatus(...args: Args<TenantRuns, "evaluationStatus">) {
    return this.#store().evaluationStatus(...args);
  }
  get(...args: Args<TenantRuns, "get">) {
    return this.#store().get(...args);
  }
  list(...args: Args<TenantRuns, "list">) {
    return this.#store().list(...args);
  }
}

/** The runSlots store's RPC face (RunSlotsFace). */
export class RunSlotsRpc extends RpcTarget implements RunSlotsFace {
  readonly #store: () => RunSlots;
  constructor(store: () => RunSlots) {
    super();
    this.#store = store;
  }
  begin(...args: Args<RunSlots, "begin">) {
    return this.#store().begin(...args);
  }
  finish(...args: Args<RunSlots, "finish">) {
    return this.#store().finish(...args);
  }
  release(...args: Args<RunSlots, "release">) {
    return this.#store().release(...args);
  }
}

/** The jobs store's RPC face (JobsFace). */
export class JobsRpc extends RpcTarget implements JobsFace {
  readonly #store: () => TenantJobs;
  constructor(store: () => TenantJobs) {
    super();
    this.#store = store;
  }
  create(...args: Args<TenantJobs, "create">) {
    return this.#store().create(...args);
  }
  get(...args: Args<TenantJobs, "get">) {
    return this.#store().get(...args);
  }
  list(...args: Args<TenantJobs, "list">) {
    return this.#store().list(...args);
  }
  waitFor(...args: Args<TenantJobs, "waitFor">) {
    return this.#store().waitFor(...args);
  }
}

/** The imports store's RPC face (ImportsFace). */
export class ImportsRpc extends RpcTarget implements ImportsFace {
  readonly #store: () => TenantImports;
  constructor(store: () => TenantImports) {
    super();
    this.#store = store;
  }
  appendUpload(...args: Args<TenantImports, "appendUpload">) {
    return this.#store().appendUpload(...args);
  }
  discardUpload(...args: Args<TenantImports, "discardUpload">) {
    return this.#store().discardUpload(...args);
  }
}

/** The protocols store's RPC face (ProtocolsFace). */
export class ProtocolsRpc extends RpcTarget implements ProtocolsFace {
  readonly #store: () => TenantProtocols;
  constructor(store: () => TenantProtocols) {
    super();
    this.#store = store;
  }
  currentMany(...args: Args<TenantProtocols, "currentMany">) {
    return this.#store().currentMany(...args);
  }
  pin(...args: Args<TenantProtocols, "pin">) {
    return this.#store().pin(...args);
  }
  versions(...args: Args<TenantProtocols, "versions">) {
    return this.#store().versions(...args);
  }
}

/** The webhooks store's RPC face (WebhooksFace). */
export class WebhooksRpc extends RpcTarget implements WebhooksFace {
  readonly #store: () => TenantWebhooks;
  constructor(store: () => TenantWebhooks) {
    super();
    this.#store = store;
  }
  addSecret(...args: Args<TenantWebhooks, "addSecret">) {
    return this.#store().addSecret(...args);
  }
  claimDelivery(...args: Args<TenantWebhooks, "claimDelivery">) {
    return this.#store().claimDelivery(...args);
  }
  completeDelivery(...args: Args<TenantWebhooks, "completeDelivery">) {
    return this.#store().completeDelivery(...args);
  }
  failDelivery(...args: Args<TenantWebhooks, "failDelivery">) {
    return this.#store().failDelivery(...args);
  }
  listSecrets(...args: Args<TenantWebhooks, "listSecrets">) {
    return this.#store().listSecrets(...args);
  }
  validSecrets(...args: Args<TenantWebhooks, "validSecrets">) {
    return this.#store().validSecrets(...args);
  }
}

/** The quotas store's RPC face (QuotasFace). */
export class QuotasRpc extends RpcTarget implements QuotasFace {
  readonly #store: () => TenantQuotas;
  constructor(store: () => TenantQuotas) {
    super();
    this.#store = store;
  }
  modelTokensToday(...args: Args<TenantQuotas, "modelTokensToday">) {
    return this.#store().modelTokensToday(...args);
  }
  settings(...args: Args<TenantQuotas, "settings">) {
    return this.#store().settings(...args);
  }
  update(...args: Args<TenantQuotas, "update">) {
    return this.#store().update(...args);
  }
}

/** The idempotency store's RPC face (IdempotencyFace). */
export class IdempotencyRpc extends RpcTarget implements IdempotencyFace {
  readonly #store: () => TenantIdempotency;
  constructor(store: () => TenantIdempotency) {
    super();
    this.#store = store;
  }
  abandon(...args: Args<TenantIdempotency, "abandon">) {
    return this.#store().abandon(...args);
  }
  begin(...args: Args<TenantIdempotency, "begin">) {
    return this.#store().begin(...args);
  }
  complete(...args: Args<TenantIdempotency, "complete">) {
    return this.#store().complete(...args);
  }
}

/** The optimization store's RPC face (OptimizationFace). */
export class OptimizationRpc extends RpcTarget implements OptimizationFace {
  readonly #store: () => TenantOptimization;
  constructor(store: () => TenantOptimization) {
    super();
    this.#store = store;
  }
  settings(...args: Args<TenantOptimization, "settings">) {
    return this.#store().settings(...args);
  }
  update(...args: Args<TenantOptimization, "update">) {
    return this.#store().update(...args);
  }
}

/** The activity store's RPC face (ActivityFace). */
export class ActivityRpc extends RpcTarget implements ActivityFace {
  readonly #store: () => TenantActivity;
  constructor(store: () => TenantActivity) {
    super();
    this.#store = store;
  }
  runs(...args: Args<TenantActivity, "runs">) {
    return this.#store().runs(...args);
  }
  tools(...args: Args<TenantActivity, "tools">) {
    return this.#store().tools(...args);
  }
}

/** The observed store's RPC face (ObservedFace). */
export class ObservedRpc extends RpcTarget implements ObservedFace {
  readonly #store: () => TenantObserved;
  constructor(store: () => TenantObserved) {
    super();
    this.#store = store;
  }
  close(...args: Args<TenantObserved, "close">) {
    return this.#store().close(...args);
  }
  curve(...args: Args<TenantObserved, "curve">) {
    return this.#store().curve(...args);
  }
  delete(...args: Args<TenantObserved, "delete">) {
    return this.#store().delete(...args);
  }
  learningSettings(...args: Args<TenantObserved, "learningSettings">) {
    return this.#store().learningSettings(...args);
  }
  list(...args: Args<TenantObserved, "list">) {
    return this.#store().list(...args);
  }
  recordCall(...args: Args<TenantObserved, "recordCall">) {
    return this.#store().recordCall(...args);
  }
  recordSearch(...args: Args<TenantObserved, "recordSearch">) {
    return this.#store().recordSearch(...args);
  }
  updateLearningSettings(...args: Args<TenantObserved, "updateLearningSettings">) {
    return this.#store().updateLearningSettings(...args);
  }
}

/** A face's RPC members, without the brand every RpcTarget carries. */
type Members<Face> = Exclude<keyof Face, keyof RpcTarget>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compile-time proof that each face class has exactly the methods its declaration names, no more. */
export const FACES_EXACT: {
  registry: Same<Members<RegistryRpc>, keyof RegistryFace>;
  settings: Same<Members<SettingsRpc>, keyof SettingsFace>;
  routing: Same<Members<RoutingRpc>, keyof RoutingFace>;
  runs: Same<Members<RunsRpc>, keyof RunsFace>;
  runSlots: Same<Members<RunSlotsRpc>, keyof RunSlotsFace>;
  jobs: Same<Members<JobsRpc>, keyof JobsFace>;
  imports: Same<Members<ImportsRpc>, keyof ImportsFace>;
  protocols: Same<Members<ProtocolsRpc>, keyof ProtocolsFace>;
  webhooks: Same<Members<WebhooksRpc>, keyof WebhooksFace>;
  quotas: Same<Members<QuotasRpc>, keyof QuotasFace>;
  idempotency: Same<Members<IdempotencyRpc>, keyof IdempotencyFace>;
  optimization: Same<Members<OptimizationRpc>, keyof OptimizationFace>;
  activity: Same<Members<ActivityRpc>, keyof ActivityFace>;
  observed: Same<Members<ObservedRpc>, keyof ObservedFace>;
} = {
  registry: true,
  settings: true,
  routing: true,
  runs: true,
  runSlots: true,
  jobs: true,
  imports: true,
  protocols: true,
  webhooks: true,
  quotas: true,
  idempotency: true,
  optimization: true,
  activity: true,
  observed: true,
};

/** The RPC faces of a tenant's stores, each forwarding to the store of `current()` at the call. */
export function openStoreFaces(current: () => TenantStores) {
  return {
    registry: new RegistryRpc(() => current().registry),
    settings: new SettingsRpc(() => current().settings),
    routing: new RoutingRpc(() => current().routing),
    runs: new RunsRpc(() => current().runs),
    runSlots: new RunSlotsRpc(() => current().runSlots),
    jobs: new JobsRpc(() => current().jobs),
    imports: new ImportsRpc(() => current().imports),
    protocols: new ProtocolsRpc(() => current().protocols),
    webhooks: new WebhooksRpc(() => current().webhooks),
    quotas: new QuotasRpc(() => current().quotas),
    idempotency: new IdempotencyRpc(() => current().idempotency),
    optimization: new OptimizationRpc(() => current().optimization),
    activity: new ActivityRpc(() => current().activity),
    observed: new ObservedRpc(() => current().observed),
  } satisfies StoreFaces;
}
