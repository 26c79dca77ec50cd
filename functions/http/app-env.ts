import type { AdmissionRefusal, TenantApi } from "../tenant-api/tenant-api";

/** Per-request variables set by middleware. */
export interface AppVariables {
  tenantId: string;
  tenant: TenantApi;
  /** Set when the tenant's calls travel with its admission (auth.ts): how that admission ended. */
  admission?: Promise<AdmissionRefusal | { failed: unknown }>;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
