import { OAuthAuthorizationServer, OAuthResourceServer, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { SERVICE_NAME } from "../../common/service-version";

/**
 * MCP authorization (OAuth 2.1) through `@cloudflare/workers-oauth-provider`: this service is its
 * own authorization server (issuer: its origin), and `/mcp` is the one protected resource. Both
 * roles are fixed to an origin at construction, and the service answers on whatever origin it is
 * reached at (`npm start`'s loopback address, tests' ports, the deployed hostname), so the roles
 * are made per origin and kept. An origin the library refuses as an issuer (plain `http` off
 * loopback) has no OAuth: `/mcp` then takes API keys only.
 */

/** The one scope: use this tenant's tools over MCP. Never the REST API, never the admin API. */
export const MCP_SCOPE = "mcp";
export const MCP_PATH = "/mcp";
export const AUTHORIZE_PATH = "/console/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
/** Access tokens are short-lived; a refresh token (rotated on use) renews them for 30 days. */
export const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

/** What the grant's encrypted props hold: the one tenant the token acts for. */
export interface GrantProps {
  tenantId: string;
}

export interface OAuthRoles {
  authorizationServer: OAuthAuthorizationServer<Env>;
  /** Serves `/mcp`'s RFC 9728 metadata; requests to `/mcp` itself are authenticated in mcp-access.ts. */
  resourceServer: OAuthResourceServer<Env, GrantProps>;
  /** The canonical resource, every token's audience: `<origin>/mcp`. */
  resource: string;
  /** Where `/mcp`'s protected-resource metadata is (named by every 401 challenge). */
  resourceMetadataUrl: string;
}

const MAX_ORIGINS = 16;
const rolesByOrigin = new Map<string, OAuthRoles | null>();

/**
 * The token endpoint's errors are answered by the library; this keeps its log line free of
 * anything a client sent (the default logs the description, which may quote input).
 */
function logOAuthError(error: { code: string; status: number; internal: { reason?: string } }): void {
  console.info(JSON.stringify({ level: "info", event: "oauth_refused", status: error.status, error: error.code, reason: error.internal.reason }));
}

function makeRoles(origin: string): OAuthRoles {
  const resource = `${origin}${MCP_PATH}`;
  const authorizationServer = new OAuthAuthorizationServer<Env>({
    issuer: origin,
    resources: [resource],
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    scopesSupported: [MCP_SCOPE],
    accessTokenTTL: ACCESS_TOKEN_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_SECONDS,
    onError: logOAuthError,
  });
  const resourceServer = new OAuthResourceServer<Env, GrantProps>({
    resourceMetadata: { resource, authorization_servers: [origin], bearer_methods_supported: ["header"], resource_name: `${SERVICE_NAME} MCP server` },
    requiredScopes: [MCP_SCOPE],
    validateToken: (env) => (audience, token) => authorizationServer.validateToken<GrantProps>(audience, token, env),
    // Never reached: only the metadata path is handed to this role (routes.ts).
    handler: { fetch: () => new Response(null, { status: 404 }) },
  });
  const resourceMetadataUrl = `${origin}/.well-known/oauth-protected-resource${MCP_PATH}`;
  return { authorizationServer, resourceServer, resource, resourceMetadataUrl };
}

/** The OAuth roles of the origin a request came to, or undefined where OAuth cannot be offered. */
export function oauthRoles(requestUrl: string): OAuthRoles | undefined {
  const origin = new URL(requestUrl).origin;
  let roles = rolesByOrigin.get(origin);
  if (roles === undefined) {
    try {
      roles = makeRoles(origin);
    } catch {
      roles = null; // the library's rule: https, or http on a loopback host only
    }
    if (rolesByOrigin.size >= MAX_ORIGINS) rolesByOrigin.clear();
    rolesByOrigin.set(origin, roles);
  }
  return roles ?? undefined;
}

/** The library's helpers (parse and complete authorizations, list and revoke grants) for this origin. */
export function oauthHelpers(requestUrl: string, env: Env): OAuthHelpers | undefined {
  return oauthRoles(requestUrl)?.authorizationServer.getOAuthApi(env);
}
