import type { JobRecord } from "../storage/tenant-jobs";

/** The longest `GET /v1/jobs/{id}?wait=` holds a request, in seconds. */
export const MAX_JOB_WAIT_SECONDS = 30;

/**
 * What a long-poll leaves for its answer's way back: the object's wait ends this much before the
 * client's `wait` (a quarter of it, at most 1 s). The answer, read when the object's timer fires,
 * then reaches the client within its wait even when it queues behind the object's background work
 * (an import's pieces, bounded in time) and the Worker's other requests on the way in and out:
 * Microsoft Graph's import, measured, put 0.25–4.3 s on a `?wait=5` answer without it.
 */
export function objectWaitMs(waitMs: number): number {
  return Math.max(0, waitMs - Math.min(1_000, waitMs / 4));
}

/** The tenant object's job reads, as the Worker calls them over RPC. */
export interface JobReads {
  get(id: string): Promise<JobRecord | undefined>;
  waitFor(id: string, waitMs: number): Promise<JobRecord | undefined>;
}

/**
 * Long-poll one job: the tenant object answers when the job reaches a final state or the wait
 * runs out (less what its answer's way back may take, objectWaitMs). When the object goes away meanwhile (an eviction, a deploy), the runtime fails the
 * call with a `retryable` error; the read is idempotent, so the wait just ends early with what
 * is stored.
 */
export async function jobAfterWait(jobs: JobReads, id: string, waitMs: number): Promise<JobRecord | undefined> {
  if (waitMs <= 0) return jobs.get(id);
  try {
    return await jobs.waitFor(id, objectWaitMs(waitMs));
  } catch (error) {
    if (isRetryable(error)) return jobs.get(id);
    throw error;
  }
}

/** Errors of the Durable Object infrastructure that are safe to retry for idempotent calls. */
function isRetryable(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === true;
}
