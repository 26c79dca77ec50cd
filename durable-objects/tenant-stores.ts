import { MODEL_SETTING } from "../functions/tenants/stored-model-override";
import { RunSlots, type RunSources } from "../functions/storage/run-slots";
import { TenantActivity } from "../functions/storage/tenant-activity";
import { TenantEvents } from "../functions/storage/tenant-events";
import { TenantIdempotency } from "../functions/storage/tenant-idempotency";
import { TenantImports } from "../functions/storage/tenant-imports";
import { TenantJobs } from "../functions/storage/tenant-jobs";
import { TenantObserved } from "../functions/storage/tenant-observed";
import { TenantOptimization } from "../functions/storage/tenant-optimization";
import { TenantProtocols } from "../functions/storage/tenant-protocols";
import { TenantQuotas } from "../functions/storage/tenant-quotas";
import { TenantRegistry } from "../functions/storage/tenant-registry";
import { TenantRouting } from "../functions/routing/tenant-routing";
import { TenantRuns } from "../functions/storage/tenant-runs";
import { TenantSettings } from "../functions/storage/tenant-settings";
import { TenantToolViews, type RunLater } from "../functions/storage/tenant-tool-views";
import { TenantWebhooks } from "../functions/storage/tenant-webhooks";
import type { TenantStores } from "../functions/tenant-api/store-faces";

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
export function openTenantStores(ctx: DurableObjectState, { armAlarm, learnFromRun, runLater }: StoreHooks): TenantStores {
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
