import type { RpcTarget } from "cloudflare:workers";
import type { FailureData, Outcome } from "../functions/failures";
import type { RouteFamily } from "../functions/quotas/settings";
import type { FeedbackResult } from "../functions/toolnet/graph";
import type { RunSlots } from "./run-slots";
import type { TenantActivity } from "./tenant-activity";
import type { FeedbackInput } from "./tenant-feedback";
import type { TenantIdempotency } from "./tenant-idempotency";
import type { TenantJobs } from "./tenant-jobs";
import type { TenantObserved } from "./tenant-observed";
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
  readonly observed: Remote<TenantObserved>;
  /** `conversation`: the observed conversation the feedback was sent in (it overrides that conversation's implicit scores). */
  applyFeedback(item: FeedbackInput, conversation?: string): Promise<Outcome<FeedbackResult>>;
  applyFeedbackBatch(items: FeedbackInput[]): Promise<Outcome<FeedbackResult[]>>;
  storageBytes(): Promise<number>;
}

/** The tenant's Durable Object stub. */
export function tenantStub(env: Env, tenantId: string): TenantApi {
  return env.TENANTS.getByName(tenantId) as unknown as TenantApi;
}

/**
 * Check a request's key and admit it under the tenant's quota (one round trip), before the
 * action: `{ ok: false, problem: null }` for a key that is not valid.
 */
export function admitTenantRequest(env: Env, tenantId: string, keyHash: string, family: RouteFamily, nowMs: number): Promise<Admission> {
  return admissionStub(env, tenantId).admit(keyHash, family, nowMs);
}

/** The tenant's surface as `admitted()` hands it out: an RPC target the caller disposes of when done. */
export type AdmittedTenant = TenantApi & Disposable;

/**
 * The tenant's surface for a request that carries an API key, without waiting: every call made on
 * it runs only after the object has checked the key and admitted the request under the tenant's
 * quota, and travels in the same round trip (pipelined behind `admitted()`). A refusal rejects
 * every such call, and the surface itself, with `AdmissionRefused` (read it with `admissionRefusal`).
 */
export function admittedTenant(env: Env, tenantId: string, keyHash: string, family: RouteFamily, nowMs: number): AdmittedTenant {
  return admissionStub(env, tenantId).admitted(keyHash, family, nowMs);
}

type Admission = { ok: true } | { ok: false; problem: FailureData | null };

/** The tenant object's own admission methods (tenant-object.ts), as the Worker calls them. */
function admissionStub(env: Env, tenantId: string): {
  admit(keyHash: string, family: RouteFamily, nowMs: number): Promise<Admission>;
  admitted(keyHash: string, family: RouteFamily, nowMs: number): AdmittedTenant;
} {
  return env.TENANTS.getByName(tenantId) as unknown as ReturnType<typeof admissionStub>;
}

const ADMISSION_REFUSED = "tenant admission refused: ";

/**
 * Thrown by the tenant object when it does not admit a request: `problem` null for a key that is
 * not valid, else the quota's problem. Errors cross RPC as their message, so the problem travels
 * in it.
 */
export class AdmissionRefused extends Error {
  constructor(problem: FailureData | null) {
    super(ADMISSION_REFUSED + JSON.stringify(problem));
    this.name = "AdmissionRefused";
  }
}

/** The refusal an error carries, when it is one (`{ problem: null }`: the key is not valid). */
export function admissionRefusal(error: unknown): { problem: FailureData | null } | undefined {
  const message = error instanceof Error ? error.message : undefined;
  const at = message?.indexOf(ADMISSION_REFUSED) ?? -1;
  if (message === undefined || at < 0) return undefined;
  try {
    return { problem: JSON.parse(message.slice(at + ADMISSION_REFUSED.length)) as FailureData | null };
  } catch {
    return undefined;
  }
}

/**
 * A store used inside its own object where code is written against the remote view: awaiting a
 * synchronous result gives the same value, so the one view serves both.
 */
export function asLocal<T>(store: T): Remote<T> {
  return store as unknown as Remote<T>;
}
