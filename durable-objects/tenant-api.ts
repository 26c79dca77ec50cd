import type { TenantObject } from "./tenant-object";

/**
 * The tenant object's RPC methods as the Worker calls them. Workers' RPC typings cannot prove
 * that fields typed `unknown` (JSON schemas, example responses) are serialisable, and collapse
 * them to `never`; our records are plain JSON, so the stub is typed from the class directly.
 */
export type TenantApi = {
  [K in keyof TenantObject as TenantObject[K] extends (...args: never[]) => unknown ? K : never]: TenantObject[K] extends (
    ...args: infer A
  ) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/** The tenant's Durable Object stub. */
export function tenantStub(env: Env, tenantId: string): TenantApi {
  return env.TENANTS.getByName(tenantId) as unknown as TenantApi;
}
