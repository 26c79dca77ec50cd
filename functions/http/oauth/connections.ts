import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { forgetLastUse, lastUseOf } from "./last-use";

/** One client connected to a tenant's `/mcp`: what the console lists, and can revoke. */
export interface Connection {
  grantId: string;
  clientId: string;
  /** As the client registered itself: self-asserted, shown as such. */
  clientName: string;
  scope: string[];
  approvedAt: string;
  /** When the grant ends, however often it is refreshed. */
  expiresAt: string | undefined;
  lastUsedAt: string | undefined;
}

const PAGE = 100;

/** The tenant's grants (the tenant is the grant's user), newest first, with client names and last use. */
export async function listConnections(oauth: OAuthHelpers, env: Env, tenantId: string): Promise<Connection[]> {
  const grants = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(tenantId, { limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    grants.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined && grants.length < 10 * PAGE);
  const connections = await Promise.all(
    grants.map(async (grant) => {
      const client = await oauth.lookupClient(grant.clientId);
      return {
        grantId: grant.id,
        clientId: grant.clientId,
        clientName: client?.clientName ?? grant.clientId,
        scope: grant.scope,
        approvedAt: new Date(grant.createdAt * 1000).toISOString(),
        expiresAt: grant.expiresAt === undefined ? undefined : new Date(grant.expiresAt * 1000).toISOString(),
        lastUsedAt: await lastUseOf(env, tenantId, grant.clientId),
      };
    }),
  );
  return connections.sort((a, b) => b.approvedAt.localeCompare(a.approvedAt));
}

/** Revoke one of the tenant's connections: its access and refresh tokens stop working at once. */
export async function revokeConnection(oauth: OAuthHelpers, env: Env, tenantId: string, connection: Connection): Promise<void> {
  await oauth.revokeGrant(connection.grantId, tenantId);
  await forgetLastUse(env, tenantId, connection.clientId);
}
