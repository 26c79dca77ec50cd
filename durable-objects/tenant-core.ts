import { evaluateTrajectory } from "../functions/services/evaluate-trajectory";
import type { EvaluationRequest } from "../functions/chain/evaluator";
import { runJob } from "../functions/jobs/run-job";
import { queueExampleRequests, type ExamplesQueueTenant } from "../functions/services/example-requests-at-import";
import { migrate } from "../functions/storage/sql";
import { TENANT_MIGRATIONS } from "../functions/storage/tenant-schema";
import type { TenantStores } from "../functions/tenant-api/store-faces";
import { asLocal } from "../functions/tenant-api/tenant-api";
import { openTenantStores, type StoreHooks } from "./tenant-stores";
import { WorkSlice, type SliceBudget, type SliceReport } from "../functions/common/work-slice";

/** One alarm's share of routing's preparation: pieces of ≈ 1 MB of definitions, the object handed back between them. */
const PREPARATION_SLICE: SliceBudget = { sliceMs: 2_000, slicePieces: 64 };

/**
 * The tenant object's inside: its stores, what they need of the object (its alarm, learning from
 * a run, background work), and the alarm's work. A plain class, not an RPC target and never
 * handed out, so none of its methods is reachable over RPC whatever it is named: the seams a test
 * holds (background work, routing's preparation, reopening the stores) are ordinary methods here,
 * which the test worker's subclass overrides (test/helpers/test-worker.ts).
 */
export class TenantCore {
  /** The stores, as opened over the object's SQLite storage (reopened after a simulated eviction). */
  stores: TenantStores;
  protected readonly ctx: DurableObjectState;
  readonly #env: Env;
  /** What the stores need of the object; calls go through this core's methods, so a subclass's overrides apply. */
  readonly #hooks: StoreHooks = {
    armAlarm: () => this.armAlarm(),
    learnFromRun: (...run) => this.#learnFromRun(...run),
    runLater: (task, delayMs) => this.runLater(task, delayMs),
  };

  constructor(ctx: DurableObjectState, env: Env) {
    this.ctx = ctx;
    this.#env = env;
    // Synchronous SQL in the constructor runs before any request reaches the object.
    migrate(ctx.storage.sql, TENANT_MIGRATIONS);
    this.stores = openTenantStores(ctx, this.#hooks);
  }

  /** The stores opened again from SQLite, as after an eviction. */
  reopenStores(): void {
    this.stores = openTenantStores(this.ctx, this.#hooks);
  }

  /** The stores' background work (reading tool views into memory), on a timer after the current request. */
  runLater(task: () => void, delayMs: number): void {
    setTimeout(task, delayMs);
  }

  /** Routing's derived state prepared after a catalog change, when due, for one slice (tests hold it to see the unprepared path); what the slice did. */
  async prepareRouting(now: number): Promise<SliceReport> {
    const slice = new WorkSlice(PREPARATION_SLICE);
    await this.stores.routing.prepareSomeIfDue(now, slice);
    return slice.report();
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
      await this.armAlarm();
    }
  }

  /** The alarm set to the earliest due work of any store, or cleared when none is due. */
  async armAlarm(): Promise<void> {
    const { runs, jobs, observed, routing, imports } = this.stores;
    const times = [runs.nextEvaluationDue(), jobs.nextDue(), observed.nextDue(), routing.preparationDue(), imports.nextDue()].filter(
      (t): t is number => t !== null,
    );
    if (times.length === 0) await this.ctx.storage.deleteAlarm();
    // Work still due (a preparation a slice did not finish) is due in the past; setting the alarm
    // to the time the running alarm was set for changes nothing, and the runtime then clears it.
    else await this.ctx.storage.setAlarm(Math.max(Math.min(...times), Date.now() + 1));
  }

  /**
   * One alarm drains the queues of due work, closes idle observed conversations, drops abandoned
   * uploads, and prepares routing after a catalog change; all idempotent, as alarms are at-least-once.
   */
  async alarm(): Promise<void> {
    // The stores as the alarm began: its evaluations and jobs are theirs.
    const current = this.stores;
    const { registry, routing, runs, settings, observed } = current;
    const tenantId = registry.tenantId() ?? "";
    observed.alarmWork(Date.now());
    this.stores.imports.dropAbandonedUploads(Date.now());
    await runs.processEvaluations(async (request) => {
      const scores = await evaluateTrajectory(this.#env, tenantId, { settings: asLocal(settings) }, request);
      routing.applyScores({ tools: request.steps.map((s) => s.tool), scores });
      return scores;
    });
    await this.#runDueJobs(current, tenantId);
    // Between a job's slices too: an import's batches note the tools they change, and the index is saved in pieces after many.
    await this.stores.routing.saveIndexSomeIfDue(new WorkSlice(PREPARATION_SLICE));
    // Not while a job goes on at once (a background import's every batch changes the catalog): once, after its last slice.
    // The stores as they are now (a test's simulated eviction may have reopened them meanwhile).
    const nextJob = this.stores.jobs.nextDue();
    if (nextJob === null || nextJob > Date.now()) await this.prepareRouting(Date.now());
    await this.armAlarm();
  }

  /** Every job due now, each started, run, and retried later when it fails. */
  async #runDueJobs(current: TenantStores, tenantId: string): Promise<void> {
    const { registry, routing, jobs, protocols, settings, quotas } = current;
    const stores = {
      registry: asLocal(registry),
      protocols: asLocal(protocols),
      settings: asLocal(settings),
      routing: asLocal(routing),
      quotas: asLocal(quotas),
      jobs,
      imports: this.stores.imports,
    };
    for (const job of jobs.due(Date.now())) {
      jobs.start(job.id);
      try {
        await runJob(this.#env, tenantId, stores, job.id);
      } catch (error) {
        jobs.retryLater(job.id, job.attempts + 1, error instanceof Error ? error.message : String(error));
      }
      if (job.kind === "import") await this.#afterImport({ settings: stores.settings, quotas: stores.quotas, jobs: asLocal(jobs) }, tenantId, job.id);
    }
  }

  /** A background import that has just succeeded queues the writing of its tools' example requests (when the tenant wants it). */
  async #afterImport(stores: ExamplesQueueTenant, tenantId: string, jobId: string): Promise<void> {
    const job = this.stores.jobs.get(jobId);
    if (job?.status !== "succeeded") return;
    const source = (job.request as { source?: unknown }).source;
    if (typeof source === "string") await queueExampleRequests(this.#env, tenantId, stores, { source });
  }
}
