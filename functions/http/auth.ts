import type { MiddlewareHandler } from "hono";
import { tenantStub } from "../../durable-objects/tenant-api";
import { constantTimeEqual, sha256Hex, tenantOfKey } from "../tenants/api-keys";
import type { AppEnv } from "./app-env";
import { authFailure, blockedAddress, clientAddress } from "./middleware/auth-failures";
import { ApiError } from "./problem";
import { isKnownTenant, tenantExists } from "./tenant-directory";
import { routeFamily } from "../quotas/route-family";

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Tenant authentication: `Authorization: Bearer atc_<tenant>_<secret>`. The key names its tenant;
 * that tenant's object checks the hash, so a revoked key fails on the very next request. A tenant
 * that does not exist is never addressed (no storage for strangers), and answers exactly like a
 * wrong key. Failed attempts count against the client address (429 past the limit). The same
 * call to the tenant's object admits the request under the tenant's quota (429 with Retry-After).
 */
export const requireTenant: MiddlewareHandler<AppEnv> = async (c, next) => {
  const address = clientAddress(c.req.raw.headers);
  const blocked = blockedAddress(address);
  const refuse = async (error: ApiError): Promise<ApiError> => blocked ?? (await authFailure(c.env, address, error));
  const key = bearerToken(c.req.header("authorization"));
  if (key === undefined) throw await refuse(new ApiError("unauthorized", "Send an API key as `Authorization: Bearer atc_…`."));
  const invalid = new ApiError("unauthorized", "The API key is not valid.");
  const tenantId = tenantOfKey(key);
  if (tenantId === undefined || (blocked !== undefined && !isKnownTenant(tenantId))) throw await refuse(invalid);
  const keyHash = await sha256Hex(key);
  if (!(await tenantExists(c.env, tenantId))) throw await refuse(invalid);
  const stub = tenantStub(c.env, tenantId);
  const admitted = await stub.admit(keyHash, routeFamily(c.req.method, c.req.path), Date.now());
  if (!admitted.ok) throw admitted.problem === null ? await refuse(invalid) : ApiError.from(admitted.problem);
  c.set("tenantId", tenantId);
  c.set("tenant", stub);
  await next();
};

/** Admin authentication with the ADMIN_TOKEN secret; refused entirely when it is not set. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (expected === undefined || expected === "") {
    throw new ApiError("not-configured", "The admin API is disabled: ADMIN_TOKEN is not set.");
  }
  const address = clientAddress(c.req.raw.headers);
  const token = bearerToken(c.req.header("authorization"));
  if (token === undefined || !constantTimeEqual(token, expected)) {
    throw blockedAddress(address) ?? (await authFailure(c.env, address, new ApiError("unauthorized", "Send the admin token as `Authorization: Bearer …`.")));
  }
  await next();
};
