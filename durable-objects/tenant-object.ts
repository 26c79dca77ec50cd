import { DurableObject } from "cloudflare:workers";
import { evaluateTrajectory } from "../functions/services/evaluate-trajectory";
import type { EvaluationRequest } from "../functions/chain/evaluator";
import { success, type FailureData, type Outcome } from "../functions/common/failures";
import { runJob } from "../functions/jobs/run-job";
import type { RouteFamily } from "../functions/quotas/settings";
import type { Evaluation, FeedbackResult } from "../functions/toolnet/graph";
import { FeedbackBatchError } from "../functions/toolnet/graph/feedback-batch";
import { FeedbackCoalescer } from "./feedback-coalescer";
import { RunSlots, type RunSources } from "../functions/storage/run-slots";
import { asLocal, type Remote, type TenantApi } from "../functions/storage/tenant-api";
import { TenantActivity } from "../functions/storage/tenant-activity";
import { TenantEvents } from "../functions/storage/tenant-events";
import { batchEvaluations, batchItemProblem, resolveFeedback, type FeedbackInput } from "../functions/storage/tenant-feedback";
import { TenantIdempotency } from "../functions/storage/tenant-idempotency";
import { TenantImports } from "../functions/storage/tenant-imports";
import { TenantJobs } from "../functions/storage/tenant-jobs";
import { TenantObserved } from "../functions/storage/tenant-observed";
import { TenantOptimization } from "../functions/storage/tenant-optimization";
import { TenantProtocols } from "../functions/storage/tenant-protocols";
import { TenantQuotas } from "../functions/storage/tenant-quotas";
import { TenantRegistry } from "../functions/storage/tenant-registry";
import { TenantRouting } from "../functions/storage/tenant-routing";
import { TenantRuns } from "../functions/storage/tenant-runs";
import { TENANT_MIGRATIONS } from "../functions/storage/tenant-schema";
import { TenantSettings } from "../functions/storage/tenant-settings";
import { TenantApiTarget } from "./tenant-api-target";
import { TenantToolViews } from "../functions/storage/tenant-tool-views";
import { TenantWebhooks } from "../functions/storage/tenant-webhooks";
import { migrate } from "../functions/storage/sql";
import { MODEL_SETTING } from "../functions/tenants/stored-model-override";

/** The stores of one tenant, each the owner of its tables (see STORAGE.md). */
interface TenantStores {
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

/**
 * All state of one tenant. One object per tenant serialises writes, so nothing is lost to
 * concurrent requests. The object is a composition root: each store owns its tables and is
 * reached over RPC as a sub-object (`tenant.registry.listTools()`, `tenant.routing.route(…)`);
 * the object itself only does what spans stores: admitting a request, learning from a run,
 * batched feedback, and the alarm that drains evaluations and jobs. `admitted(…)` hands out the
 * same surface as an RPC target of its own, for requests whose action travels with the key check.
 */
export class TenantObject extends DurableObject<Env> {
  #stores: TenantStores;
  readonly #surface = new TenantApiTarget(this);
  /** Single feedback updates: a lone one applied at once, concurrent ones in order in one transaction per turn of the object. */
  readonly #feedback: FeedbackCoalescer<Evaluation, Outcome<FeedbackResult>>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Synchronous SQL in the constructor runs before any request reaches the object.
    migrate(ctx.storage.sql, TENANT_MIGRATIONS);
    this.#stores = openStores(ctx, { armAlarm: () => this.#armAlarm(), learnFromRun: (...run) => this.#learnFromRun(...run) });
    this.#feedback = new FeedbackCoalescer(
      // The stores current at the flush: after a (simulated) eviction, the reloaded ones.
      (evaluations) => this.ctx.storage.transactionSync(() => this.#stores.routing.applyScoresEach(evaluations)),
      // A zero-delay timer ends the window after the updates already delivered to the object, which join the flush.
      (flush) => setTimeout(flush, 0),
    );
  }

  get registry(): TenantRegistry {
    return this.#stores.registry;
  }

  get settings(): TenantSettings {
    return this.#stores.settings;
  }

  get routing(): TenantRouting {
    return this.#stores.routing;
  }

  get runs(): TenantRuns {
    return this.#stores.runs;
  }

  get runSlots(): RunSlots {
    return this.#stores.runSlots;
  }

  get jobs(): TenantJobs {
    return this.#stores.jobs;
  }

  get imports(): TenantImports {
    return this.#stores.imports;
  }

  get protocols(): TenantProtocols {
    return this.#stores.protocols;
  }

  get webhooks(): TenantWebhooks {
    return this.#stores.webhooks;
  }

  get quotas(): TenantQuotas {
    return this.#stores.quotas;
  }

  get idempotency(): TenantIdempotency {
    return this.#stores.idempotency;
  }

  get optimization(): TenantOptimization {
    return this.#stores.optimization;
  }

  get activity(): TenantActivity {
    return this.#stores.activity;
  }

  get observed(): TenantObserved {
    return this.#stores.observed;
  }

  /**
   * Authenticate and admit one request in a single call: the key check, then the tenant's quota
   * for the request's route family (rate, and for model work: tokens today, jobs in flight).
   */
  admit(keyHash: string, family: RouteFamily, nowMs: number): { ok: true } | { ok: false; problem: FailureData | null } {
    if (!this.#stores.registry.authenticate(keyHash)) return { ok: false, problem: null };
    const refused = this.#stores.quotas.admit(family, nowMs);
    return refused === undefined ? { ok: true } : { ok: false, problem: refused };
  }

  /**
   * `admit`, then the tenant's surface (tenant-api-target.ts), for a request whose action travels
   * with the key check: the Worker pipelines the action on `.surface`, one round trip in all. A
   * refusal has no surface, so the pipelined action fails and never runs. The refusal is returned,
   * not thrown: the runtime logs every exception an RPC method throws as uncaught, with a stack.
   */
  admitted(keyHash: string, family: RouteFamily, nowMs: number): { surface: TenantApiTarget } | { refusal: FailureData | null } {
    const admission = this.admit(keyHash, family, nowMs);
    return admission.ok ? { surface: this.#surface } : { refusal: admission.problem };
  }

  /**
   * A finished run teaches the graph (called by the run's `finish`, inside the object, never over
   * RPC): its tool sequence is a trajectory (static counts, eq. 5), and it is queued for the
   * evaluator, whose scores arrive later through the alarm (eq. 6–8). Failures attributed to
   * tools count toward their automatic optimisation.
   */
  async #learnFromRun(runId: string, trajectory: string[], evaluation: EvaluationRequest | undefined, attributedFailures: string[]): Promise<void> {
    const { routing, optimization, jobs, runs } = this.#stores;
    if (trajectory.length > 0) routing.importTrajectories([{ id: `run:${runId}`, tools: trajectory, task: evaluation?.task }], "skip");
    for (const tool of optimization.recordFailures(attributedFailures)) {
      await jobs.create("optimize", { tool, settings: {}, reason: "auto: failures attributed in recent runs" }, null);
    }
    if (evaluation !== undefined && evaluation.steps.length > 0) {
      runs.enqueueEvaluation(runId, evaluation);
      await this.#armAlarm();
    }
  }

  /**
   * Feedback (eq. 6–8): scores for named tools, or one score for a stored run's tool calls.
   * A lone update is applied at once; updates that arrive together are applied in order and
   * written together (feedback-coalescer.ts).
   */
  async applyFeedback(item: FeedbackInput, conversation?: string): Promise<Outcome<FeedbackResult>> {
    const resolved = resolveFeedback(item, (id) => this.#stores.runs.get(id));
    if ("refused" in resolved) return { ok: false, problem: resolved.refused };
    // Sent in an observed conversation: it wins over that conversation's implicit outcome.
    if (conversation !== undefined) this.#stores.observed.noteExplicit(conversation, resolved.evaluation.tools);
    return this.#feedback.submit(resolved.evaluation);
  }

  /** Batched feedback: every item resolved against its run and applied in one transaction, or none (tenant-feedback.ts). */
  applyFeedbackBatch(items: FeedbackInput[]): Outcome<FeedbackResult[]> {
    const { runs, routing } = this.#stores;
    const resolved = batchEvaluations(items, (id) => runs.get(id));
    if ("problem" in resolved) return { ok: false, problem: resolved.problem };
    try {
      return success(this.ctx.storage.transactionSync(() => [...routing.applyScoresBatch(resolved.evaluations)]));
    } catch (error) {
      if (error instanceof FeedbackBatchError) return { ok: false, problem: batchItemProblem(error) };
      throw error;
    }
  }

  /** Bytes of this object's SQLite database (what counts against the per-object storage limit). */
  storageBytes(): number {
    return this.ctx.storage.sql.databaseSize;
  }

  async #armAlarm(): Promise<void> {
    const times = [this.#stores.runs.nextEvaluationDue(), this.#stores.jobs.nextDue(), this.#stores.observed.nextDue()].filter((t): t is number => t !== null);
    if (times.length === 0) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.min(...times));
  }

  /** One alarm drains the queues of due work and closes idle observed conversations; all idempotent, as alarms are at-least-once. */
  override async alarm(): Promise<void> {
    const { registry, routing, runs, jobs, protocols, settings, observed } = this.#stores;
    const tenantId = registry.tenantId() ?? "";
    observed.alarmWork(Date.now());
    await runs.processEvaluations(async (request) => {
      const scores = await evaluateTrajectory(this.env, tenantId, { settings: asLocal(settings) }, request);
      routing.applyScores({ tools: request.steps.map((s) => s.tool), scores });
      return scores;
    });
    const stores = { registry: asLocal(registry), protocols: asLocal(protocols), settings: asLocal(settings), jobs, imports: this.#stores.imports };
    for (const job of jobs.due(Date.now())) {
      jobs.start(job.id);
      try {
        await runJob(this.env, tenantId, stores, job.id);
      } catch (error) {
        jobs.retryLater(job.id, job.attempts + 1, error instanceof Error ? error.message : String(error));
      }
    }
    await this.#armAlarm();
  }

  /** Drop every store's in-memory state, as an eviction would; the next call reloads from SQLite. */
  static reopen(object: TenantObject): void {
    object.#stores = openStores(object.ctx, { armAlarm: () => object.#armAlarm(), learnFromRun: (...run) => object.#learnFromRun(...run) });
  }
}

/** What the stores need of the object itself: its alarm, and learning from a run (which spans stores). */
interface ObjectHooks {
  armAlarm(): Promise<void>;
  learnFromRun: RunSources["learnFromRun"];
}

/** Open the tenant's stores over its SQLite storage, wired to one another only through what each needs. */
function openStores(ctx: DurableObjectState, { armAlarm, learnFromRun }: ObjectHooks): TenantStores {
  const sql = ctx.storage.sql;
  const events = new TenantEvents();
  const registry = new TenantRegistry(ctx.storage, events);
  const settings = new TenantSettings(sql);
  const protocols = new TenantProtocols(sql, () => registry.hashes(), events);
  const toolViews = new TenantToolViews(sql, registry, events);
  const routing = new TenantRouting(sql, {
    catalog: registry,
    descriptions: () => protocols.descriptions(),
    routingHints: () => protocols.routingHints(),
    protocolRunTokens: () => protocols.runTokens(),
    views: (tool, shown, description) => toolViews.viewsOf(tool, shown, description),
    viewsEach: (wanted) => toolViews.viewsOfEach(wanted),
    settings,
    events,
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
    imports: new TenantImports(ctx.storage, registry),
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

/** Compile-time proof that the class offers the surface callers are typed against, with the same types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type SurfaceMatches = Same<Pick<Remote<TenantObject>, keyof TenantApi>, TenantApi>;
export const SURFACE_CHECK: SurfaceMatches = true;
