import type { MiddlewareHandler } from "hono";
import { admitTenantRequest, admittedTenant, tenantStub } from "../tenant-api/tenant-api";
import { type FailureData, Failure } from "../common/failures";
import { logRefusal } from "./middleware/refusal-log";
import { constantTimeEqual, sha256Hex, tenantOfKey } from "../tenants/api-keys";
import type { AppEnv } from "./app-env";
import { authFailure, blockedAddress, clientAddress } from "./middleware/auth-failures";
import { tenantExists } from "./tenant-directory";
import type { QuotaFamily } from "../quotas/settings";
import { requestFamily } from "./quota-family";

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Requests whose action may travel with the key check (one round trip to the tenant's object
 * instead of two): reads and the routing hot path. Their handlers reach nothing outside the
 * tenant before the tenant itself answers, so a refused key causes no work elsewhere. Every other
 * request (tool calls, runs, jobs, imports, MCP) waits for its admission first: those may reach
 * the network or a model, parse large bodies, stream, or use the tenant after the response.
 */
function admissionTravelsWithAction(method: string, path: string, family: QuotaFamily): boolean {
  // Only the REST API: the MCP server's GET is a long-lived stream.
  if (!path.startsWith("/v1/")) return false;
  if (method === "GET" || method === "HEAD") return true;
  // The endpoints that declare `routing` (http/endpoints/graph.ts): route, feedback, trajectories.
  return method === "POST" && family === "routing";
}

/**
 * Tenant authentication: `Authorization: Bearer atc_<tenant>_<secret>`. The key names its tenant;
 * that tenant's object checks the hash on every request, so a revoked key fails on the very next
 * one. A tenant that does not exist is never addressed (no storage for strangers), and answers
 * exactly like a wrong key. Failed attempts count against the client address (429 past the
 * limit, for refused keys only: a valid key from that address is still admitted). The same call to the tenant's object admits the request under the tenant's quota (429
 * with Retry-After) and hands out the tenant's surface; where the action may travel with it, the
 * handler's calls are pipelined behind that admission (tenant-api/tenant-api.ts), and the
 * answer still waits for it, so no response leaves before the key is known to be good.
 */
export const requireTenant: MiddlewareHandler<AppEnv> = async (c, next) => {
  const address = clientAddress(c.req.raw.headers);
  const blocked = blockedAddress(address);
  const refuse = async (error: Failure): Promise<Failure> => logRefusal(c.req, blocked ?? (await authFailure(c.env, address, error)));
  const overQuota = (problem: FailureData): Failure => logRefusal(c.req, Failure.from(problem), tenantId);
  const key = bearerToken(c.req.header("authorization"));
  if (key === undefined) throw await refuse(new Failure("unauthorized", "Send an API key as `Authorization: Bearer atc_…`."));
  // Made only when a key is refused: an error captures a stack trace (≈ 9 µs), and most keys are good.
  const invalid = (): Failure => new Failure("unauthorized", "The API key is not valid.");
  const tenantId = tenantOfKey(key);
  // A blocked address still gets its keys checked: behind a shared NAT the failures may be
  // someone else's, and a valid key is never refused for them (a guess still gets 429).
  if (tenantId === undefined) throw await refuse(invalid());
  const keyHash = await sha256Hex(key);
  if (!(await tenantExists(c.env, tenantId))) throw await refuse(invalid());
  // Declared with the endpoint (quota-family.ts).
  const family = requestFamily(c);
  c.set("tenantId", tenantId);
  if (!admissionTravelsWithAction(c.req.method, c.req.path, family)) {
    const admission = await admitTenantRequest(c.env, tenantId, keyHash, family, Date.now());
    if (!admission.ok) throw admission.problem === null ? await refuse(invalid()) : overQuota(admission.problem);
    c.set("tenant", tenantStub(c.env, tenantId));
    await next();
    return;
  }
  const admitted = admittedTenant(c.env, tenantId, keyHash, family, Date.now());
  // Settles once the object has answered the admission (with the action's answer, when pipelined).
  const admission = admitted.refusal.catch((error: unknown) => ({ failed: error }));
  c.set("tenant", admitted.tenant);
  c.set("admission", admission);
  try {
    await next();
    // Every answer waits for the admission, so none leaves before the key is known to be good
    // (a handler that never called the tenant included).
    const refusal = await admission;
    if (refusal === undefined) return;
    if ("failed" in refusal) throw refusal.failed;
    throw refusal.problem === null ? await refuse(invalid()) : overQuota(refusal.problem);
  } finally {
    // These endpoints answer in full before they return (no stream, no work after the response).
    admitted[Symbol.dispose]();
  }
};

/** Admin authentication with the ADMIN_TOKEN secret; refused entirely when it is not set. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (expected === undefined || expected === "") {
    throw new Failure("not-configured", "The admin API is disabled: ADMIN_TOKEN is not set.");
  }
  const address = clientAddress(c.req.raw.headers);
  const token = bearerToken(c.req.header("authorization"));
  if (token === undefined || !constantTimeEqual(token, expected)) {
    throw blockedAddress(address) ?? (await authFailure(c.env, address, new Failure("unauthorized", "Send the admin token as `Authorization: Bearer …`.")));
  }
  await next();
};
