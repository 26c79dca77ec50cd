import type { TenantApi } from "../storage/tenant-api";
import type { TenantJobs } from "../storage/tenant-jobs";
import type { ImportJobStore } from "./import-job";

/**
 * What a background job works with: the tenant's registry, protocols and settings (as the remote
 * view, so the code is the same inside and outside the object) and the job store itself, local.
 */
export interface JobStores extends Pick<TenantApi, "registry" | "protocols" | "settings"> {
  jobs: TenantJobs;
  imports: ImportJobStore;
}
