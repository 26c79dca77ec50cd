import type { RpcTarget } from "cloudflare:workers";
import type { FailureData, Outcome } from "../common/failures";
import type { QuotaFamily } from "../quotas/settings";
import type { FeedbackResult } from "../toolnet/graph";
import type { FeedbackInput } from "../routing/tenant-feedback";
import type { StoreFaces } from "./store-faces";

/**
 * An object as another Worker sees it over RPC: every method returns a promise, and a sub-object
 * (an `RpcTarget` returned by a getter) is itself remote. Workers' own RPC typings cannot prove
 * that fields typed `unknown` (JSON schemas, example responses) are serialisable and collapse
 * them to `never`; our records are plain JSON, so stubs are typed from the classes directly.
 */
export type Remote<T> = {
  readonly [K in keyof T as [T[K]] extends [never]
    ? never
    : T[K] extends RpcTarget
      ? K
      : T[K] extends (...args: never[]) => unknown
        ? K
        : never]: T[K] extends RpcTarget ? Remote<T[K]> : T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/**
 * The tenant object's RPC surface, declared once: its stores as sub-objects, each with only the
 * methods the Worker calls (store-faces.ts), and the operations that span them. The object
 * (durable-objects/tenant-object.ts) and the admitted surface (tenant-api-target.ts) implement
 * it, synchronous where they are; callers see it as `TenantApi`, so they never import the object.
 */
export interface TenantSurface extends StoreFaces {
  /** `conversation`: the observed conversation the feedback was sent in (it overrides that conversation's implicit scores). */
  applyFeedback(item: FeedbackInput, conversation?: string): Promise<Outcome<FeedbackResult>>;
  applyFeedbackBatch(items: FeedbackInput[]): Outcome<FeedbackResult[]>;
  storageBytes(): number;
}

/** The tenant's surface as another Worker reaches it over RPC (every call answers a promise). */
export type TenantApi = { readonly [K in keyof StoreFaces]: Remote<StoreFaces[K]> } & Remote<Omit<TenantSurface, keyof StoreFaces>>;

/** How a request's admission ended: admitted, or refused (`problem` null for a key that is not valid). */
export type Admission = { ok: true } | { ok: false; problem: FailureData | null };

/**
 * The tenant object's admission, declared once beside its surface and, like it, implemented by the
 * object (durable-objects/tenant-object.ts); the Worker's stub type is made from it. Admission
 * comes before any action, so it is not part of the surface `admitted` hands out.
 */
export interface TenantAdmission {
  /** The key check, then the tenant's quota for the request's quota family (rate; for model work, tokens today and jobs in flight). */
  admit(keyHash: string, family: QuotaFamily, nowMs: number): Admission;
  /** The quota alone, for a caller the Worker authenticated without an API key (an OAuth access token bound to this tenant). */
  admitGranted(family: QuotaFamily, nowMs: number): { ok: true } | { ok: false; problem: FailureData };
  /** `admit`, then the tenant's surface as an RPC target of its own, so an action pipelined on it travels with the key check. */
  admitted(keyHash: string, family: QuotaFamily, nowMs: number): { surface: TenantSurface & RpcTarget } | { refusal: FailureData | null };
}

/** The tenant's Durable Object stub. */
export function tenantStub(env: Env, tenantId: string): TenantApi {
  return env.TENANTS.getByName(tenantId) as unknown as TenantApi;
}

/**
 * Check a request's key and admit it under the tenant's quota (one round trip), before the
 * action: `{ ok: false, problem: null }` for a key that is not valid.
 */
export function admitTenantRequest(env: Env, tenantId: string, keyHash: string, family: QuotaFamily, nowMs: number): Promise<Admission> {
  return admissionStub(env, tenantId).admit(keyHash, family, nowMs);
}

/**
 * Admit, under the tenant's quota, a request the Worker authenticated without an API key (an OAuth
 * access token bound to this tenant): the same admission as `admitTenantRequest`, less the key check.
 */
export function admitGrantedRequest(env: Env, tenantId: string, family: QuotaFamily, nowMs: number): Promise<Admission> {
  return admissionStub(env, tenantId).admitGranted(family, nowMs);
}

/** How a request's admission ended: undefined when admitted, `problem` null for a key that is not valid. */
export type AdmissionRefusal = { problem: FailureData | null } | undefined;

/** The tenant's surface for one admitted request, its refusal (once known), and its release. */
export interface AdmittedTenant extends Disposable {
  /** Calls made on it run only once the object has admitted the request; on a refusal they fail. */
  readonly tenant: TenantApi;
  readonly refusal: Promise<AdmissionRefusal>;
}

/**
 * The tenant's surface for a request that carries an API key, without waiting: every call made on
 * it runs only after the object has checked the key and admitted the request under the tenant's
 * quota, and travels in the same round trip (pipelined behind `admitted()`). A refused request's
 * answer has no surface, so every such call fails; `refusal` says why.
 */
export function admittedTenant(env: Env, tenantId: string, keyHash: string, family: QuotaFamily, nowMs: number): AdmittedTenant {
  const answer = admissionStub(env, tenantId).admitted(keyHash, family, nowMs);
  return {
    tenant: answer.surface,
    refusal: answer.then((a) => ("refusal" in a ? { problem: a.refusal } : undefined)),
    [Symbol.dispose]: () => answer[Symbol.dispose](),
  };
}

/** `admitted()`'s answer as the Worker sees it: pipelined, so its `surface` can be called before it arrives. */
type AdmittedAnswer = Promise<{ surface: TenantApi } | { refusal: FailureData | null }> & { readonly surface: TenantApi } & Disposable;

/** `TenantAdmission` as the Worker calls it: every answer a promise, and `admitted()`'s pipelined. */
type AdmissionApi = Remote<Omit<TenantAdmission, "admitted">> & {
  admitted(...args: Parameters<TenantAdmission["admitted"]>): AdmittedAnswer;
};

/** The tenant object's admission, as the Worker calls it. */
function admissionStub(env: Env, tenantId: string): AdmissionApi {
  return env.TENANTS.getByName(tenantId) as unknown as AdmissionApi;
}

/**
 * A store used inside its own object where code is written against the remote view: awaiting a
 * synchronous result gives the same value, so the one view serves both.
 */
export function asLocal<T>(store: T): Remote<T> {
  return store as unknown as Remote<T>;
}
