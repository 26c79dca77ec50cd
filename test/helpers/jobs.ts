import type { TestService } from "./service";

/** What every job answers; tests add the fields they read (`result`, `items`, …). */
export interface JobState {
  status: string;
}

/** The seconds one long-poll asks for: the most `GET /v1/jobs/{id}?wait=` allows. */
const WAIT_SECONDS = 30;

/**
 * Wait until a job has succeeded or failed, with the API's own long-poll
 * (`GET /v1/jobs/{id}?wait=30`): the tenant object answers the moment the job ends, so there is
 * no polling interval to sleep through. A job still unfinished after `timeoutMs` is an error.
 */
export async function waitForJob<T extends JobState>(service: TestService, key: string, id: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = Math.ceil((deadline - Date.now()) / 1_000);
    const job = await service.json<T>("GET", `/v1/jobs/${id}?wait=${Math.max(0, Math.min(WAIT_SECONDS, left))}`, { key });
    if (job.status !== 200) throw new Error(`GET /v1/jobs/${id} answered ${job.status}: ${JSON.stringify(job.body)}`);
    if (job.body.status === "succeeded" || job.body.status === "failed") return job.body;
    if (left <= 0) throw new Error(`job ${id} did not finish in ${timeoutMs / 1_000} s (still ${job.body.status})`);
  }
}
