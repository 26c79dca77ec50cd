import type { TenantJobs } from "../../durable-objects/tenant-jobs";
import type { TenantApi } from "../../durable-objects/tenant-api";
import { runOptimizeJob } from "./optimize-job";
import { runProbeJob } from "./probe-job";

/** Run one due background job of a tenant to its end (called from the tenant object's alarm). */
export async function runJob(env: Env, tenantId: string, tenant: TenantApi, jobs: TenantJobs, jobId: string): Promise<void> {
  const job = jobs.get(jobId);
  if (job === undefined) return;
  switch (job.kind) {
    case "probe":
      return runProbeJob(env, tenantId, tenant, jobs, job);
    case "optimize":
      return runOptimizeJob(env, tenantId, tenant, jobs, job);
  }
}
