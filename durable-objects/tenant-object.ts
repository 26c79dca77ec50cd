import { DurableObject } from "cloudflare:workers";
import { evaluateTrajectory } from "../functions/services/evaluate-trajectory";
import type { EvaluationRequest } from "../functions/chain/evaluator";
import { success, type FailureData, type Outcome } from "../functions/common/failures";
import { runJob } from "../functions/jobs/run-job";
import type { RouteFamily } from "../functions/quotas/settings";
import type { Evaluation, FeedbackResult } from "../functions/toolnet/graph";
import { FeedbackBatchError } from "../functions/toolnet/graph/feedback-batch";
import { FeedbackCoalescer } from "./feedback-coalescer";
import { asLocal, type Remote, type TenantApi } from "../functions/tenant-api/tenant-api";
import { batchEvaluations, batchItemProblem, resolveFeedback, type FeedbackInput } from "../functions/routing/tenant-feedback";
import { TENANT_MIGRATIONS } from "../functions/storage/tenant-schema";
import { STORE_NAMES, type StoreFaces, type TenantStores } from "../functions/tenant-api/store-faces";
import { openTenantStores, storeFaces, type StoreHooks } from "./tenant-stores";
import { migrate } from "../functions/storage/sql";
import { TenantApiTarget } from "./tenant-api-target";

/**
 * All state of one tenant. One object per tenant serialises writes, so nothing is lost to
 * concurrent requests. The object is a composition root: each store owns its tables and is
 * reached over RPC as a sub-object (`tenant.registry.listTools()`, `tenant.routing.route(…)`);
 * the object itself only does what spans stores: admitting a request, learning from a run,
 * batched feedback, and the alarm that drains evaluations and jobs. `admitted(…)` hands out the
 * same surface as an RPC target of its own, for requests whose action travels with the key check.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the store getters are defined in the static block, from the stores' declaration; the interface below types them.
export class TenantObject extends DurableObject<Env> {
  /**
   * The stores, as opened over this object's SQLite storage. An instance field, so never reachable
   * over RPC; a subclass may reopen them (the test worker simulates an eviction that way).
   */
  protected stores: TenantStores;
  /** What the stores need of this object. */
  protected readonly storeHooks: StoreHooks = {
    armAlarm: () => this.#armAlarm(),
    learnFromRun: (...run) => this.#learnFromRun(...run),
    runLater: (task, delayMs) => this.runLater(task, delayMs),
  };
  /** The stores as the Worker reaches them: only their Worker methods (tenant-stores.ts). */
  readonly #faces = storeFaces(() => this.stores);
  readonly #surface = new TenantApiTarget(this);
  /** Single feedback updates: a lone one applied at once, concurrent ones in order in one transaction per turn of the object. */
  readonly #feedback: FeedbackCoalescer<Evaluation, Outcome<FeedbackResult>>;

  /**
   * The stores' background work (reading tool views into memory), on a timer after the current
   * request. A field, so not reachable over RPC; a subclass may drop work of stores it replaced.
   */
  protected runLater = (task: () => void, delayMs: number): void => void setTimeout(task, delayMs);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Synchronous SQL in the constructor runs before any request reaches the object.
    migrate(ctx.storage.sql, TENANT_MIGRATIONS);
    this.stores = openTenantStores(ctx, this.storeHooks);
    this.#feedback = new FeedbackCoalescer(
      // The stores current at the flush: after a (simulated) eviction, the reloaded ones.
      (evaluations) => this.ctx.storage.transactionSync(() => this.stores.routing.applyScoresEach(evaluations)),
      // A zero-delay timer ends the window after the updates already delivered to the object, which join the flush.
      (flush) => setTimeout(flush, 0),
    );
  }

  static {
    // One getter per store (`tenant.registry`, …), each answering the store's RPC face.
    for (const name of STORE_NAMES) {
      Object.defineProperty(TenantObject.prototype, name, {
        configurable: true,
        get(this: TenantObject) {
          return this.#faces[name];
        },
      });
    }
  }

  /**
   * Authenticate and admit one request in a single call: the key check, then the tenant's quota
   * for the request's route family (rate, and for model work: tokens today, jobs in flight).
   */
  admit(keyHash: string, family: RouteFamily, nowMs: number): { ok: true } | { ok: false; problem: FailureData | null } {
    if (!this.stores.registry.authenticate(keyHash)) return { ok: false, problem: null };
    const refused = this.stores.quotas.admit(family, nowMs);
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
    const { routing, optimization, jobs, runs } = this.stores;
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
    const resolved = resolveFeedback(item, (id) => this.stores.runs.get(id));
    if ("refused" in resolved) return { ok: false, problem: resolved.refused };
    // Sent in an observed conversation: it wins over that conversation's implicit outcome.
    if (conversation !== undefined) this.stores.observed.noteExplicit(conversation, resolved.evaluation.tools);
    return this.#feedback.submit(resolved.evaluation);
  }

  /** Batched feedback: every item resolved against its run and applied in one transaction, or none (routing/tenant-feedback.ts). */
  applyFeedbackBatch(items: FeedbackInput[]): Outcome<FeedbackResult[]> {
    const { runs, routing } = this.stores;
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
    const { runs, jobs, observed, routing, imports } = this.stores;
    const times = [runs.nextEvaluationDue(), jobs.nextDue(), observed.nextDue(), routing.preparationDue(), imports.nextDue()].filter(
      (t): t is number => t !== null,
    );
    if (times.length === 0) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.min(...times));
  }

  /**
   * One alarm drains the queues of due work, closes idle observed conversations, drops abandoned
   * uploads, and prepares routing after a catalog change; all idempotent, as alarms are at-least-once.
   */
  override async alarm(): Promise<void> {
    const { registry, routing, runs, jobs, protocols, settings, observed } = this.stores;
    const tenantId = registry.tenantId() ?? "";
    observed.alarmWork(Date.now());
    this.stores.imports.dropAbandonedUploads(Date.now());
    await runs.processEvaluations(async (request) => {
      const scores = await evaluateTrajectory(this.env, tenantId, { settings: asLocal(settings) }, request);
      routing.applyScores({ tools: request.steps.map((s) => s.tool), scores });
      return scores;
    });
    const stores = {
      registry: asLocal(registry),
      protocols: asLocal(protocols),
      settings: asLocal(settings),
      routing: asLocal(routing),
      jobs,
      imports: this.stores.imports,
    };
    for (const job of jobs.due(Date.now())) {
      jobs.start(job.id);
      try {
        await runJob(this.env, tenantId, stores, job.id);
      } catch (error) {
        jobs.retryLater(job.id, job.attempts + 1, error instanceof Error ? error.message : String(error));
      }
    }
    // Not while a job goes on at once (a background import's every batch changes the catalog): once, after its last slice.
    // The stores as they are now (a test's simulated eviction may have reopened them meanwhile).
    const nextJob = this.stores.jobs.nextDue();
    if (nextJob === null || nextJob > Date.now()) this.prepareRouting(Date.now());
    await this.#armAlarm();
  }

  /**
   * Routing's derived state prepared after a catalog change, when due (a seam tests hold to see
   * the unprepared path). A field, not a method: RPC reaches every method of the class.
   */
  protected prepareRouting = (now: number): void => {
    this.stores.routing.prepareIfDue(now);
  };
}

/** The store getters, generated above from the stores' declaration. */
export interface TenantObject extends StoreFaces {}

/** Compile-time proof that the class offers the surface callers are typed against, with the same types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type SurfaceMatches = Same<Pick<Remote<TenantObject>, keyof TenantApi>, TenantApi>;
export const SURFACE_CHECK: SurfaceMatches = true;
