import { createRouter } from "../app";
import type { Router } from "../sub-apps";
import { challengeUnauthorized, requireKeyOrToken } from "../oauth/mcp-access";

/**
 * The tenant's MCP server, a sub-app like those of sub-apps.ts: the tenant API key, as on `/v1`, or
 * an OAuth access token issued for `/mcp` (oauth/mcp-access.ts); every 401 names where to
 * authorise. JSON-RPC bodies (no Idempotency-Key).
 */
export function mcpApp(): Router {
  const app = createRouter();
  app.use("*", challengeUnauthorized);
  app.use("*", requireKeyOrToken);
  return app;
}
