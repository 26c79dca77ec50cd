import type { TenantApi } from "../tenant-api/tenant-api";
import { beginRun, type RunLease } from "../services/start-run";
import { problemResponse } from "./problem";
import type { FailureData } from "../common/failures";

/**
 * Begin a run in the tenant's object (one call: its slot, tools and settings;
 * storage/run-slots.ts) and hand it to `work`, which finishes or releases it. When all
 * slots are taken: a 429 problem with `Retry-After`, and nothing is started or stored.
 */
export async function withRunSlot(
  tenant: Pick<TenantApi, "runSlots">,
  request: { task: string; tools?: string[] | undefined },
  path: string,
  work: (lease: RunLease) => Promise<Response>,
): Promise<Response> {
  const begun = await beginRun(tenant, request);
  if ("refused" in begun) {
    return problemResponse(runSlotsTaken(begun.refused.limit), path, { "retry-after": String(begun.refused.retryAfterSeconds) });
  }
  try {
    return await work(begun.run);
  } catch (error) {
    await begun.run.release();
    throw error;
  }
}

/** The problem a run gets when all of the tenant's run slots are taken (REST and MCP alike). */
export function runSlotsTaken(limit: number): FailureData {
  return { kind: "rate-limited", detail: `This tenant already has ${limit} runs in progress (its maxConcurrentRuns); retry when one has finished.` };
}
