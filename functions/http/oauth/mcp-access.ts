import type { MiddlewareHandler } from "hono";
import { admitGrantedRequest, tenantStub } from "../../tenant-api/tenant-api";
import { tenantOfKey } from "../../tenants/api-keys";
import type { AppEnv } from "../app-env";
import { bearerToken, requireTenant } from "../auth";
import { authFailure, blockedAddress, clientAddress } from "../middleware/auth-failures";
import { logRefusal } from "../middleware/refusal-log";
import { requestFamily } from "../quota-family";
import { Failure } from "../../common/failures";
import { tenantExists } from "../tenant-directory";
import { recordLastUse } from "./last-use";
import { MCP_SCOPE, oauthRoles, type GrantProps } from "./oauth-roles";

/**
 * Who may use `/mcp`: a tenant API key (`atc_…`, checked as on `/v1`), or an OAuth access token
 * issued by this service for the `/mcp` resource. A token's grant names its one tenant (its
 * `userId` and encrypted props, both written at consent); the token is admitted under that
 * tenant's quota and reaches that tenant's MCP server only. Tokens are refused everywhere else:
 * `/v1` and `/admin` check API keys and the admin token, never this.
 */
export const requireKeyOrToken: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerToken(c.req.header("authorization"));
  const roles = oauthRoles(c.req.url);
  // No credential, an API key, or no OAuth on this origin: the API-key check (and its 401).
  if (token === undefined || tenantOfKey(token) !== undefined || roles === undefined) return requireTenant(c, next);
  const address = clientAddress(c.req.raw.headers);
  const refuse = async (detail: string): Promise<Failure> =>
    logRefusal(c.req, blockedAddress(address) ?? (await authFailure(c.env, address, new Failure("unauthorized", detail))));
  const validated = await roles.authorizationServer.validateToken<GrantProps>(roles.resource, token, c.env);
  const tenantId = validated?.props.tenantId;
  // Expired, revoked, for another resource, or not one of ours: the client should authorise again.
  if (validated === null || tenantId === undefined || tenantId !== validated.userId || !validated.scope.includes(MCP_SCOPE)) {
    throw await refuse("The access token is not valid (expired, revoked or not issued for /mcp): authorise again.");
  }
  if (!(await tenantExists(c.env, tenantId))) throw await refuse("The access token's tenant does not exist.");
  const admission = await admitGrantedRequest(c.env, tenantId, requestFamily(c), Date.now());
  if (!admission.ok) throw logRefusal(c.req, Failure.from(admission.problem ?? { kind: "forbidden" }), tenantId);
  c.set("tenantId", tenantId);
  c.set("tenant", tenantStub(c.env, tenantId));
  recordLastUse(c.env, c.executionCtx, tenantId, validated.clientId);
  await next();
};

/**
 * Every `401` of `/mcp` names where to authorise (RFC 9728 §5.1, MCP authorization): the
 * protected-resource metadata, the scope to ask for, and `invalid_token` when a credential was
 * sent. The body stays the service's problem document.
 */
export const challengeUnauthorized: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.res.status !== 401) return;
  const roles = oauthRoles(c.req.url);
  if (roles === undefined) return;
  const sent = bearerToken(c.req.header("authorization")) !== undefined;
  const challenge = `Bearer realm="OAuth", resource_metadata="${roles.resourceMetadataUrl}", scope="${MCP_SCOPE}"${sent ? ', error="invalid_token"' : ""}`;
  const headers = new Headers(c.res.headers);
  headers.set("WWW-Authenticate", challenge);
  headers.append("Access-Control-Expose-Headers", "WWW-Authenticate");
  c.res = new Response(c.res.body, { status: 401, headers });
};
