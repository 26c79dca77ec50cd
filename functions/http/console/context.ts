import type { Context } from "hono";
import type { TenantApi } from "../../tenant-api/tenant-api";
import type { ServiceApi } from "./service-api";
import type { Session } from "./session";

export type TenantSession = Extract<Session, { kind: "tenant" }>;

/** What the console's middleware puts on every signed-in request. */
export interface ConsoleEnv {
  Bindings: Env;
  Variables: {
    session: Session;
    /** The service's own HTTP API, called in-process with the session's credential. */
    api: ServiceApi;
  };
}

export type ConsoleContext = Context<ConsoleEnv>;

/** The signed-in tenant's session and object stub; tenant pages are only mounted behind a tenant session. */
export function tenantOf(c: ConsoleContext): { session: TenantSession; tenant: TenantApi } {
  const session = c.var.session;
  if (session.kind !== "tenant") throw new Error("tenant page reached without a tenant session");
  return { session, tenant: c.env.TENANTS.getByName(session.tenantId) as unknown as TenantApi };
}
