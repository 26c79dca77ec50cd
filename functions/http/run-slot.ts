import type { TenantApi } from "../../durable-objects/tenant-api";
import { problemResponse, type ProblemData } from "./problem";

/**
 * Hold one of the tenant's concurrent-run slots while `work` runs (durable-objects/run-slots.ts).
 * When all are taken: a 429 problem with `Retry-After`, and nothing is started or stored.
 */
export async function withRunSlot(tenant: TenantApi, path: string, work: (release: () => Promise<void>) => Promise<Response>): Promise<Response> {
  const key = crypto.randomUUID();
  const slot = await tenant.runSlots.acquire(key, Date.now());
  if (!slot.ok) {
    return problemResponse(runSlotsTaken(slot.limit), path, { "retry-after": String(slot.retryAfterSeconds) });
  }
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await tenant.runSlots.release(key);
  };
  try {
    return await work(release);
  } catch (error) {
    await release();
    throw error;
  }
}

/** The problem a run gets when all of the tenant's run slots are taken (REST and MCP alike). */
export function runSlotsTaken(limit: number): ProblemData {
  return { kind: "rate-limited", detail: `This tenant already has ${limit} runs in progress (its maxConcurrentRuns); retry when one has finished.` };
}
