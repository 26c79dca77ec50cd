import { describe, expect, it } from "vitest";
import type { JobRecord } from "../../functions/storage/tenant-jobs";
import { Waiters } from "../../functions/storage/waiters";
import { jobAfterWait, objectWaitMs, type JobReads } from "../../functions/jobs/job-after-wait";

describe("Waiters", () => {
  it("wakes every caller waiting on a key, and only those", async () => {
    const waiters = new Waiters();
    const a1 = waiters.wait("job_a", 10_000);
    const a2 = waiters.wait("job_a", 10_000);
    const b = waiters.wait("job_b", 50);
    expect(waiters.waiting("job_a")).toBe(2);
    waiters.wake("job_a");
    await expect(Promise.all([a1, a2])).resolves.toEqual([true, true]);
    await expect(b).resolves.toBe(false);
    expect(waiters.waiting("job_a")).toBe(0);
    expect(waiters.waiting("job_b")).toBe(0);
  });

  it("ends a wait when its time runs out, forgetting the caller; a later wake finds nobody", async () => {
    const waiters = new Waiters();
    const started = Date.now();
    await expect(waiters.wait("job_a", 30)).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(waiters.waiting("job_a")).toBe(0);
    waiters.wake("job_a");
    const again = waiters.wait("job_a", 10_000);
    waiters.wake("job_a");
    await expect(again).resolves.toBe(true);
  });

  it("never settles a waiter's promise from the caller of wake: the waiter sees the wake from its own timer", async () => {
    // Deployed, a job ends in the alarm (a request context of its own) while a long-poll waits in
    // another: a promise of one settled by the other makes workerd warn, and can hang or throw.
    const waiters = new Waiters();
    let settled = false;
    const waiting = waiters.wait("job_a", 10_000).then((woken) => {
      settled = true;
      return woken;
    });
    waiters.wake("job_a");
    // Every microtask the wake could have queued runs before this timer-free check.
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
    expect(settled).toBe(false);
    await expect(waiting).resolves.toBe(true);
  });
});

const job = (status: JobRecord["status"]): JobRecord => ({
  id: "job_1",
  kind: "probe",
  status,
  request: {},
  progress: {},
  result: null,
  usage: {},
  attempts: 1,
  lastError: null,
  createdAt: "2026-11-23T00:00:00.000Z",
  updatedAt: "2026-11-23T00:00:00.000Z",
  items: [],
});

/** Job reads of a tenant object whose long-poll fails with `waitError`; records every call. */
function reads(waitError?: Error): JobReads & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async get(id) {
      calls.push(`get ${id}`);
      return job("running");
    },
    async waitFor(id, waitMs) {
      calls.push(`waitFor ${id} ${waitMs}`);
      if (waitError !== undefined) throw waitError;
      return job("succeeded");
    },
  };
}

describe("jobAfterWait", () => {
  it("long-polls the tenant object for a wait, and reads at once without one", async () => {
    const jobs = reads();
    expect((await jobAfterWait(jobs, "job_1", 5_000))?.status).toBe("succeeded");
    expect((await jobAfterWait(jobs, "job_1", 0))?.status).toBe("running");
    expect(jobs.calls).toEqual(["waitFor job_1 4000", "get job_1"]);
  });

  it("has the object end its wait before the client's, leaving its answer time to come back (issue 42)", async () => {
    const jobs = reads();
    await jobAfterWait(jobs, "job_1", 2_000);
    await jobAfterWait(jobs, "job_1", 30_000);
    // A quarter of a short wait, 1 s of a long one: Graph's import put 0.25–4.3 s on a ?wait=5 answer's way back.
    expect(jobs.calls).toEqual(["waitFor job_1 1500", "waitFor job_1 29000"]);
    expect(objectWaitMs(400)).toBe(300);
  });

  it("ends the wait early with the stored job when the object goes away meanwhile (a retryable error)", async () => {
    const reset = Object.assign(new Error("Durable Object reset because its code was updated."), { retryable: true });
    const jobs = reads(reset);
    expect((await jobAfterWait(jobs, "job_1", 30_000))?.status).toBe("running");
    expect(jobs.calls).toEqual(["waitFor job_1 29000", "get job_1"]);
  });

  it("passes on any other failure", async () => {
    const jobs = reads(new Error("storage is full"));
    await expect(jobAfterWait(jobs, "job_1", 30_000)).rejects.toThrow("storage is full");
    expect(jobs.calls).toEqual(["waitFor job_1 29000"]);
  });
});
