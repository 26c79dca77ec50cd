import type { RpcTarget } from "cloudflare:workers";
import type { EvaluationRequest } from "../functions/chain/evaluator";
import type { FailureData, Outcome } from "../functions/failures";
import type { RouteFamily } from "../functions/quotas/settings";
import type { FeedbackResult } from "../functions/toolnet/graph";
import type { RunSlots } from "./run-slots";
import type { TenantActivity } from "./tenant-activity";
import type { FeedbackInput } from "./tenant-feedback";
import type { TenantIdempotency } from "./tenant-idempotency";
import type { TenantJobs } from "./tenant-jobs";
import type { TenantOptimization } from "./tenant-optimization";
import type { TenantProtocols } from "./tenant-protocols";
import type { TenantQuotas } from "./tenant-quotas";
import type { TenantRegistry } from "./tenant-registry";
import type { TenantRouting } from "./tenant-routing";
import type { TenantRuns } from "./tenant-runs";
import type { TenantSettings } from "./tenant-settings";
import type { TenantWebhooks } from "./tenant-webhooks";

/**
 * An object as another Worker sees it over RPC: every method returns a promise, and a sub-object
 * (an `RpcTarget` returned by a getter) is itself remote. Workers' own RPC typings cannot prove
 * that fields typed `unknown` (JSON schemas, example responses) are serialisable and collapse
 * them to `never`; our records are plain JSON, so stubs are typed from the classes directly.
 */
export type Remote<T> = {
  readonly [K in keyof T as T[K] extends RpcTarget ? K : T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends RpcTarget
    ? Remote<T[K]>
    : T[K] extends (...args: infer A) => infer R
      ? (...args: A) => Promise<Awaited<R>>
      : never;
};

/**
 * The tenant object's RPC surface: its stores as sub-objects, and the operations that span them.
 * Written out (not derived from the class) so code that calls the object never imports it;
 * tenant-object.ts checks at compile time that the class offers exactly this.
 */
export interface TenantApi {
  readonly registry: Remote<TenantRegistry>;
  readonly settings: Remote<TenantSettings>;
  readonly routing: Remote<TenantRouting>;
  readonly runs: Remote<TenantRuns>;
  readonly runSlots: Remote<RunSlots>;
  readonly jobs: Remote<TenantJobs>;
  readonly protocols: Remote<TenantProtocols>;
  readonly webhooks: Remote<TenantWebhooks>;
  readonly quotas: Remote<TenantQuotas>;
  readonly idempotency: Remote<TenantIdempotency>;
  readonly optimization: Remote<TenantOptimization>;
  readonly activity: Remote<TenantActivity>;
  admit(keyHash: string, family: RouteFamily, nowMs: number): Promise<{ ok: true } | { ok: false; problem: FailureData | null }>;
  learnFromRun(runId: string, trajectory: string[], evaluation: EvaluationRequest | undefined, attributedFailures?: string[]): Promise<void>;
  applyFeedback(item: FeedbackInput): Promise<Outcome<FeedbackResult>>;
  applyFeedbackBatch(items: FeedbackInput[]): Promise<Outcome<FeedbackResult[]>>;
  storageBytes(): Promise<number>;
}

/** The tenant's Durable Object stub. */
export function tenantStub(env: Env, tenantId: string): TenantApi {
  return env.TENANTS.getByName(tenantId) as unknown as TenantApi;
}

/**
 * A store used inside its own object where code is written against the remote view: awaiting a
 * synchronous result gives the same value, so the one view serves both.
 */
export function asLocal<T>(store: T): Remote<T> {
  return store as unknown as Remote<T>;
}
