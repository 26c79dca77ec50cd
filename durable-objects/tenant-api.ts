import type { RpcTarget } from "cloudflare:workers";
import type { TenantObject } from "./tenant-object";

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

/** The tenant object's RPC surface: its stores as sub-objects, and the operations that span them. */
export type TenantApi = Remote<TenantObject>;

/** The remote view of one store (what a job or route is given, e.g. `Remote<TenantRegistry>`). */
export type StoreApi<K extends keyof TenantApi> = TenantApi[K];

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
