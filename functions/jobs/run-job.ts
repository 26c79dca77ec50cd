import { importJobSettings, runImportJob } from "./import-job";
import type { JobStores } from "./job-stores";
import { runOptimizeJob } from "./optimize-job";
import { runProbeJob } from "./probe-job";
import { runExamplesJob } from "./examples-job";
import { embedMissingTools, embedTools } from "../services/tool-embeddings";

/** Run one due background job of a tenant to its end (called from the tenant object's alarm). */
export async function runJob(env: Env, tenantId: string, stores: JobStores, jobId: string): Promise<void> {
  const job = stores.jobs.get(jobId);
  if (job === undefined) return;
  switch (job.kind) {
    case "probe":
      return runProbeJob(env, tenantId, stores, job);
    case "optimize":
      return runOptimizeJob(env, tenantId, stores, job);
    case "examples":
      return runExamplesJob(env, tenantId, stores, job);
    case "import":
      return runImportJob(
        stores.imports,
        stores.jobs,
        job,
        importJobSettings(env),
        (tools) => embedTools(env, tenantId, stores, tools),
        (max) => embedMissingTools(env, tenantId, stores, max),
      );
  }
}
