import type { TenantJobs } from "../../durable-objects/tenant-jobs";
import type { TenantApi } from "../../durable-objects/tenant-api";
import { runOptimizeJob } from "./optimize-job";
import { runProbeJob } from "./probe-job";

/**
 * What a background job works with: the tenant's registry, protocols and settings (as the remote
 * view, so the code is the same inside and outside the object) and the job store itself, local.
 */
export interface JobStores extends Pick<TenantApi, "registry" | "protocols" | "settings"> {
  jobs: TenantJobs;
}

/** Run one due background job of a tenant to its end (called from the tenant object's alarm). */
export async function runJob(env: Env, tenantId: string, stores: JobStores, jobId: string): Promise<void> {
  const job = stores.jobs.get(jobId);
  if (job === undefined) return;
  switch (job.kind) {
    case "probe":
      return runProbeJob(env, tenantId, stores, job);
    case "optimize":
      return runOptimizeJob(env, tenantId, stores, job);
  }
}
