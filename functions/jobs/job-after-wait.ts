import type { JobRecord } from "../storage/tenant-jobs";

/** The longest `GET /v1/jobs/{id}?wait=` holds a request, in seconds. */
export const MAX_JOB_WAIT_SECONDS = 30;

/** The tenant object's job reads, as the Worker calls them over RPC. */
export interface JobReads {
  get(id: string): Promise<JobRecord | undefined>;
  waitFor(id: string, waitMs: number): Promise<JobRecord | undefined>;
}

/**
 * Long-poll one job: the tenant object answers when the job reaches a final state or the wait
 * runs out. When the object goes away meanwhile (an eviction, a deploy), the runtime fails the
 * call with a `retryable` error; the read is idempotent, so the wait just ends early with what
 * is stored.
 */
export async function jobAfterWait(jobs: JobReads, id: string, waitMs: number): Promise<JobRecord | undefined> {
  if (waitMs <= 0) return jobs.get(id);
  try {
    return await jobs.waitFor(id, waitMs);
  } catch (error) {
    if (isRetryable(error)) return jobs.get(id);
    throw error;
  }
}

/** Errors of the Durable Object infrastructure that are safe to retry for idempotent calls. */
function isRetryable(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === true;
}
