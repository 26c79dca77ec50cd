import type { Hono } from "hono";
import { listConnections, revokeConnection } from "../oauth/connections";
import { oauthHelpers } from "../oauth/oauth-roles";
import type { ConsoleEnv } from "./context";
import { tenantOf } from "./context";
import { ConnectionsPage } from "./views/oauth";

/**
 * Connections: the MCP clients this tenant approved (OAuth grants), when each last used `/mcp`,
 * and a Revoke button that ends the grant: its access token gets 401 at the next request.
 */
export function registerConnectionsPage(app: Hono<ConsoleEnv>): void {
  app.get("/connections", async (c) => {
    const { session } = tenantOf(c);
    const oauth = oauthHelpers(c.req.url, c.env);
    const connections = oauth === undefined ? [] : await listConnections(oauth, c.env, session.tenantId);
    const revoked = c.req.query("revoked");
    return c.html(<ConnectionsPage session={session} connections={connections} {...(revoked === undefined ? {} : { notice: `Revoked ${revoked}.` })} />);
  });

  app.post("/connections/revoke", async (c) => {
    const { session } = tenantOf(c);
    const oauth = oauthHelpers(c.req.url, c.env);
    const form = await c.req.parseBody();
    const grantId = typeof form["grant"] === "string" ? form["grant"] : "";
    const connections = oauth === undefined ? [] : await listConnections(oauth, c.env, session.tenantId);
    const connection = connections.find((g) => g.grantId === grantId);
    if (oauth === undefined || connection === undefined) {
      return c.html(<ConnectionsPage session={session} connections={connections} error="No such connection: it may have been revoked already." />, 404);
    }
    await revokeConnection(oauth, c.env, session.tenantId, connection);
    return c.redirect(`/console/connections?revoked=${encodeURIComponent(connection.clientName)}`, 303);
  });
}
