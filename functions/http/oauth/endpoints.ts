import type { Context, Hono } from "hono";
import type { AppEnv } from "../app-env";
import { problemResponse } from "../problem";
import { MCP_PATH, oauthRoles, REGISTER_PATH, TOKEN_PATH, type OAuthRoles } from "./oauth-roles";

/**
 * The protocol endpoints of MCP authorization, answered by `@cloudflare/workers-oauth-provider`:
 * RFC 8414 authorization-server metadata, RFC 9728 protected-resource metadata of `/mcp`, the
 * token endpoint (code and refresh grants, RFC 7009 revocation) and RFC 7591 dynamic client
 * registration. Public routes on the root app: a client holds no credential yet. The authorization
 * endpoint, where a person approves, is the console's (console/authorize.tsx).
 */

function withRoles(answer: (roles: OAuthRoles, c: Context<AppEnv>) => Promise<Response>) {
  return (c: Context<AppEnv>): Promise<Response> | Response => {
    const roles = oauthRoles(c.req.url);
    if (roles === undefined) {
      return problemResponse(
        { kind: "not-found", detail: "OAuth is offered over https (or http on a loopback address) only; use an API key here." },
        c.req.path,
      );
    }
    return answer(roles, c);
  };
}

/** The platform's context, as the library types it (Hono types its own narrower view of the same object). */
function platformContext(c: Context<AppEnv>): ExecutionContext {
  return c.executionCtx as unknown as ExecutionContext;
}

const authorizationServer = withRoles((roles, c) => roles.authorizationServer.fetch(c.req.raw, c.env, platformContext(c)));

export function registerOAuthEndpoints(app: Hono<AppEnv>): void {
  app.all("/.well-known/oauth-authorization-server", authorizationServer);
  app.all(TOKEN_PATH, authorizationServer);
  app.all(REGISTER_PATH, authorizationServer);
  app.all(
    `/.well-known/oauth-protected-resource${MCP_PATH}`,
    withRoles((roles, c) => roles.resourceServer.fetch(c.req.raw, c.env, platformContext(c))),
  );
}
