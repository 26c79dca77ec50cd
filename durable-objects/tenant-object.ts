import { DurableObject } from "cloudflare:workers";
import { isFailure, success, type FailureData, type Outcome } from "../functions/common/failures";
import type { QuotaFamily } from "../functions/quotas/settings";
import type { Evaluation, FeedbackResult } from "../functions/toolnet/graph";
import { batchEvaluations, batchItemProblem, resolveFeedback, type FeedbackInput } from "../functions/routing/tenant-feedback";
import type { Admission, Remote, TenantAdmission, TenantApi, TenantSurface } from "../functions/tenant-api/tenant-api";
import { FeedbackCoalescer } from "./feedback-coalescer";
import {
  type RegistryRpc,
  type SettingsRpc,
  type RoutingRpc,
  type RunsRpc,
  type RunSlotsRpc,
  type JobsRpc,
  type ImportsRpc,
  type ProtocolsRpc,
  type WebhooksRpc,
  type QuotasRpc,
  type IdempotencyRpc,
  type OptimizationRpc,
  type ActivityRpc,
  type ObservedRpc,
  openStoreFaces,
} from "./store-faces";
import { TenantApiTarget } from "./tenant-api-target";
import { TenantCore } from "./tenant-core";

/**
 * All state of one tenant. One object per tenant serialises writes, so nothing is lost to
 * concurrent requests. This class is the object's RPC surface and nothing else: the surface
 * declared in functions/tenant-api/ (`TenantSurface`: a getter per store, answering the store's
 * RPC face with only the methods the Worker calls, and the operations that span stores), plus
 * admission (`TenantAdmission`, declared beside it) and the runtime's alarm handler. What it does inside (the stores, learning from a run,
 * the alarm's work) is `TenantCore`'s, which RPC cannot reach. `admitted(…)` hands out the same
 * surface as an RPC target of its own, for requests whose action travels with the key check.
 */
export class TenantObject extends DurableObject<Env> implements TenantSurface, TenantAdmission {
  /** The object's inside; a field, so never reachable over RPC (a test worker passes a subclass). */
  protected readonly core: TenantCore;
  /** The stores as the Worker reaches them: only their Worker methods (store-faces.ts). */
  readonly #faces;
  readonly #surface = new TenantApiTarget(this);
  /** Single feedback updates: a lone one applied at once, concurrent ones in order in one transaction per turn of the object. */
  readonly #feedback: FeedbackCoalescer<Evaluation, Outcome<FeedbackResult>>;

  constructor(ctx: DurableObjectState, env: Env, core: TenantCore = new TenantCore(ctx, env)) {
    super(ctx, env);
    this.core = core;
    this.#faces = openStoreFaces(() => this.core.stores);
    this.#feedback = new FeedbackCoalescer(
      // The stores current at the flush: after a (simulated) eviction, the reloaded ones.
      (evaluations) => this.ctx.storage.transactionSync(() => this.core.stores.routing.applyScoresEach(evaluations)),
      // A zero-delay timer ends the window after the updates already delivered to the object, which join the flush.
      (flush) => setTimeout(flush, 0),
    );
  }

  get registry(): RegistryRpc {
    return this.#faces.registry;
  }
  get settings(): SettingsRpc {
    return this.#faces.settings;
  }
  get routing(): RoutingRpc {
    return this.#faces.routing;
  }
  get runs(): RunsRpc {
    return this.#faces.runs;
  }
  get runSlots(): RunSlotsRpc {
    return this.#faces.runSlots;
  }
  get jobs(): JobsRpc {
    return this.#faces.jobs;
  }
  get imports(): ImportsRpc {
    return this.#faces.imports;
  }
  get protocols(): ProtocolsRpc {
    return this.#faces.protocols;
  }
  get webhooks(): WebhooksRpc {
    return this.#faces.webhooks;
  }
  get quotas(): QuotasRpc {
    return this.#faces.quotas;
  }
  get idempotency(): IdempotencyRpc {
    return this.#faces.idempotency;
  }
  get optimization(): OptimizationRpc {
    return this.#faces.optimization;
  }
  get activity(): ActivityRpc {
    return this.#faces.activity;
  }
  get observed(): ObservedRpc {
    return this.#faces.observed;
  }

  /**
   * Authenticate and admit one request in a single call: the key check, then the tenant's quota
   * for the request's quota family (rate, and for model work: tokens today, jobs in flight).
   */
  admit(keyHash: string, family: QuotaFamily, nowMs: number): Admission {
    const { registry, quotas } = this.core.stores;
    if (!registry.authenticate(keyHash)) return { ok: false, problem: null };
    const refused = quotas.admit(family, nowMs);
    return refused === undefined ? { ok: true } : { ok: false, problem: refused };
  }

  /**
   * Admit one request under the tenant's quota whose caller the Worker has already authenticated
   * by other means than an API key: an OAuth access token on `/mcp`, which the authorization
   * server's KV record binds to this tenant (functions/http/oauth/). Quota only; no key to check.
   */
  admitGranted(family: QuotaFamily, nowMs: number): { ok: true } | { ok: false; problem: FailureData } {
    const refused = this.core.stores.quotas.admit(family, nowMs);
    return refused === undefined ? { ok: true } : { ok: false, problem: refused };
  }

  /**
   * `admit`, then the tenant's surface (tenant-api-target.ts), for a request whose action travels
   * with the key check: the Worker pipelines the action on `.surface`, one round trip in all. A
   * refusal has no surface, so the pipelined action fails and never runs. The refusal is returned,
   * not thrown: the runtime logs every exception an RPC method throws as uncaught, with a stack.
   */
  admitted(keyHash: string, family: QuotaFamily, nowMs: number): { surface: TenantApiTarget } | { refusal: FailureData | null } {
    const admission = this.admit(keyHash, family, nowMs);
    return admission.ok ? { surface: this.#surface } : { refusal: admission.problem };
  }

  /**
   * Feedback (eq. 6–8): scores for named tools, or one score for a stored run's tool calls.
   * A lone update is applied at once; updates that arrive together are applied in order and
   * written together (feedback-coalescer.ts).
   */
  async applyFeedback(item: FeedbackInput, conversation?: string): Promise<Outcome<FeedbackResult>> {
    const resolved = resolveFeedback(item, (id) => this.core.stores.runs.get(id));
    if ("refused" in resolved) return { ok: false, problem: resolved.refused };
    // Sent in an observed conversation: it wins over that conversation's implicit outcome.
    if (conversation !== undefined) this.core.stores.observed.noteExplicit(conversation, resolved.evaluation.tools, resolved.evaluation.scores);
    return this.#feedback.submit(resolved.evaluation);
  }

  /** Batched feedback: every item resolved against its run and applied in one transaction, or none (routing/tenant-feedback.ts). */
  applyFeedbackBatch(items: FeedbackInput[]): Outcome<FeedbackResult[]> {
    const { runs, routing } = this.core.stores;
    const resolved = batchEvaluations(items, (id) => runs.get(id));
    if ("problem" in resolved) return { ok: false, problem: resolved.problem };
    try {
      return success(this.ctx.storage.transactionSync(() => [...routing.applyScoresBatch(resolved.evaluations)]));
    } catch (error) {
      if (isFailure(error, "feedback_item_refused")) return { ok: false, problem: batchItemProblem(error) };
      throw error;
    }
  }

  /** Bytes of this object's SQLite database (what counts against the per-object storage limit). */
  storageBytes(): number {
    return this.ctx.storage.sql.databaseSize;
  }

  /** The alarm's work (tenant-core.ts); the runtime calls this handler when the alarm is due. */
  override async alarm(): Promise<void> {
    await this.core.alarm();
  }
}

/** Compile-time proof that the class offers the surface callers are typed against, with the same types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type SurfaceMatches = Same<Pick<Remote<TenantObject>, keyof TenantApi>, TenantApi>;
export const SURFACE_CHECK: SurfaceMatches = true;
/** The same for admission as the Worker awaits it (`admitted`'s answer is pipelined, typed in tenant-api.ts). */
export const ADMISSION_CHECK: Same<Pick<Remote<TenantObject>, "admit" | "admitGranted">, Remote<Omit<TenantAdmission, "admitted">>> = true;
