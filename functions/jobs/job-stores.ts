import type { Remote } from "../tenant-api/tenant-api";
import type { TenantJobs } from "../storage/tenant-jobs";
import type { TenantStores } from "../tenant-api/store-faces";
import type { ImportJobStore } from "./import-job";

/**
 * What a background job works with, inside the tenant object: the registry, protocols and settings
 * (as the remote view, so the code reads like the Worker's) and the job store itself, local.
 */
export interface JobStores {
  registry: Remote<TenantStores["registry"]>;
  protocols: Remote<TenantStores["protocols"]>;
  settings: Remote<TenantStores["settings"]>;
  /** Tool vectors: a background import embeds each batch's new tools. */
  routing: Remote<TenantStores["routing"]>;
  /** The tenant's quotas: a job that asks the model stops when the day's model tokens are used up. */
  quotas: Remote<TenantStores["quotas"]>;
  jobs: TenantJobs;
  imports: ImportJobStore;
}
