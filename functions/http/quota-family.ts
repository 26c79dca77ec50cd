import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { QuotaFamily } from "../quotas/settings";
import type { AppEnv } from "./app-env";

/**
 * Which quota family a tenant request counts against is declared with its endpoint, in
 * http/endpoints/: `createRoute({ …, middleware: quotaFamily("routing") })`. An endpoint that declares
 * none counts as `reads` when it only reads (GET, HEAD, OPTIONS) and as `writes` otherwise. The
 * tenant's key check (auth.ts) runs before the endpoint's own middleware, so it reads the declaration
 * off the Hono route the request matched rather than waiting for it to run.
 */

/** Marks the middleware that declares a family: it does nothing when it runs. */
const DECLARED_FAMILY = Symbol("quota family");

type Declaring = MiddlewareHandler<AppEnv> & { [DECLARED_FAMILY]?: QuotaFamily };

/** Hono's mark on a sub-app's handler wrapped by `app.route()` (hono/utils/constants: COMPOSED_HANDLER). */
const COMPOSED_HANDLER = "__COMPOSED_HANDLER";

/** The endpoint middleware that declares `family` for its endpoint. */
export function quotaFamily(family: QuotaFamily): MiddlewareHandler<AppEnv> {
  const declaring: Declaring = (_c, next) => next();
  declaring[DECLARED_FAMILY] = family;
  return declaring;
}

/** The family the request counts against: what its endpoint declares, else reads or writes by method. */
export function requestFamily(c: Context<AppEnv>): QuotaFamily {
  for (const route of matchedRoutes(c)) {
    const declared = declaredBy(route.handler);
    if (declared !== undefined) return declared;
  }
  const method = c.req.method;
  return method === "GET" || method === "HEAD" || method === "OPTIONS" ? "reads" : "writes";
}

/** The family a handler declares, looking through the wrappers of mounted sub-apps. */
function declaredBy(handler: unknown): QuotaFamily | undefined {
  let current = handler as (Declaring & { [COMPOSED_HANDLER]?: unknown }) | undefined;
  while (typeof current === "function") {
    const declared = current[DECLARED_FAMILY];
    if (declared !== undefined) return declared;
    current = current[COMPOSED_HANDLER] as typeof current;
  }
  return undefined;
}
