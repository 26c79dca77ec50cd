import type { TenantApi } from "../../durable-objects/tenant-api";

/** Per-request variables set by middleware. */
export interface AppVariables {
  tenantId: string;
  tenant: TenantApi;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
