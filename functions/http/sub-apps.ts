import type { OpenAPIHono } from "@hono/zod-openapi";
import { createRouter } from "./app";
import type { AppEnv } from "./app-env";
import { requireAdmin, requireTenant } from "./auth";
import { idempotency } from "./middleware/idempotency";

/**
 * The service's routes are grouped by how a caller proves who it is, and a route is authenticated
 * by the sub-app it is registered on: every route of a sub-app passes its middleware, so a new
 * route needs no list or exemption. service-app.ts joins them to the root app with `app.route()`:
 * admin at `/admin`, signed webhooks at `/v1/webhooks`, the tenant API at `/v1`, the MCP server at
 * `/mcp` (its sub-app is in mcp/mcp-app.ts: a key or an OAuth access token). Public routes
 * (health, the OpenAPI document, /docs, OAuth discovery and tokens, the console with its own
 * session) are registered on the root app itself.
 */
export type Router = OpenAPIHono<AppEnv>;

/** Routes for the operator: the admin token, for every one. */
export function adminApp(): Router {
  const app = createRouter();
  app.use("*", requireAdmin);
  return app;
}

/** Routes a tenant calls with its API key; POSTs honour Idempotency-Key (it needs the tenant, so it comes after the key check). */
export function tenantApp(): Router {
  const app = createRouter();
  app.use("*", requireTenant);
  app.use("*", idempotency);
  return app;
}

/** Routes that authenticate the delivery itself: no key; each handler verifies its signature first. */
export function signedWebhookApp(): Router {
  return createRouter();
}
