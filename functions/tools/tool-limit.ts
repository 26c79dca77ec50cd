import { Failure } from "../common/failures";

/**
 * Most tools one tenant holds. A tenant's routing state lives in one Durable Object, whose
 * isolate has 128 MB: measured in Node (npm run bench -- route-latency; README "Capacity"), the
 * loaded state — definitions, graph, retrieval index, data-flow and sibling indexes — takes
 * ≈ 37 MB at 10,000 tools and ≈ 88 MB at 25,000, so 50,000 would not fit. 20,000 leaves room
 * for the runtime and requests. Override with the MAX_TOOLS_PER_TENANT variable.
 */
export const MAX_TOOLS_PER_TENANT = 20_000;

export function toolLimit(env: { MAX_TOOLS_PER_TENANT?: string | undefined }): number {
  const configured = Number(env.MAX_TOOLS_PER_TENANT);
  return Number.isInteger(configured) && configured > 0 ? configured : MAX_TOOLS_PER_TENANT;
}

/** Refuses an import that would leave the tenant with more than `limit` tools (nothing is stored). */
export function assertWithinToolLimit(total: number, limit: number): void {
  if (total <= limit) return;
  throw new Failure("invalid-document", toolLimitMessage(total, limit));
}

/** The problem detail of an import refused by the limit. */
export function toolLimitMessage(total: number, limit: number): string {
  return (
    `This import would leave the tenant with ${total.toLocaleString("en-US")} tools; a tenant holds at most ${limit.toLocaleString("en-US")} ` +
    "(its routing state must fit one Durable Object's memory). Nothing was imported: remove tools, or split them across tenants."
  );
}
