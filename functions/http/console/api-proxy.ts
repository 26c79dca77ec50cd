import type { Hono } from "hono";
import { problemResponse } from "../problem";
import type { ConsoleEnv } from "./context";

/** Where the API reference's "Try it" requests arrive when they go through the console session. */
export const API_PROXY_PREFIX = "/console/api";

/**
 * The service's API as the signed-in operator may call it from the browser: the request is sent
 * on in-process with the session's credential (a tenant key for /v1, the admin token for /admin),
 * so the API reference can be used without the key ever reaching the page. Answers, problems
 * included, come back exactly as the API gives them.
 */
export function registerApiProxy(app: Hono<ConsoleEnv>): void {
  app.all("/api/*", async (c) => {
    const path = c.req.path.slice(API_PROXY_PREFIX.length);
    const allowed = c.var.session.kind === "tenant" ? path.startsWith("/v1/") : path.startsWith("/admin/");
    if (!allowed) return problemResponse({ kind: "not-found", detail: `The console session cannot call ${path}.` }, c.req.path);
    const search = new URL(c.req.url).search;
    const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
    return c.var.api.send(
      c.req.method,
      `${path}${search}`,
      hasBody ? await c.req.text() : undefined,
      c.req.header("accept") ?? "application/json",
      c.req.header("content-type"),
    );
  });
}
