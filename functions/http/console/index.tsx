import { Hono, type MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { problemResponse } from "../problem";
import type { ConsoleEnv } from "./context";
import { API_PROXY_PREFIX, registerApiProxy } from "./api-proxy";
import { CONSOLE_POLICY, pageSecurityHeaders } from "./content-security";
import { registerGraphPage } from "./graph-page";
import { registerJobPages } from "./job-pages";
import { registerLearningPage } from "./learning-page";
import { registerRoutePage } from "./route-page";
import { registerRunPages } from "./run-pages";
import { ServiceApi, type ServiceFetcher } from "./service-api";
import { adminSession, csrfTokenMatches, endSession, readSession, sessionStillValid, startSession, tenantSession } from "./session";
import { registerToolPages } from "./tool-pages";
import { registerAuthorizePage } from "./authorize";
import { registerConnectionsPage } from "./connections-page";
import { AUTHORIZE_PATH } from "../oauth/oauth-roles";
import { MessagePage } from "./views/message";
import { AdminPage, SignInPage } from "./views/sign-in";

/** Where the console's stylesheet and scripts are: static assets, served before the Worker (scripts/build-console.mjs). */
const ASSETS_PREFIX = "/console/assets/";

/** Pages that need no session. */
const PUBLIC_PATHS = new Set(["/console/sign-in"]);

/**
 * Sign-in, then back where the person was going when that was an app's authorization request
 * (an MCP client sent them to approve it). Nothing else is returned to: no open redirect.
 */
function signInUrl(requestUrl: string): string {
  const url = new URL(requestUrl);
  return url.pathname === AUTHORIZE_PATH ? `/console/sign-in?next=${encodeURIComponent(url.pathname + url.search)}` : "/console/sign-in";
}

function afterSignIn(next: unknown): string | undefined {
  return typeof next === "string" && next.startsWith(`${AUTHORIZE_PATH}?`) ? next : undefined;
}

/** A signed-in session (re-checked: a revoked key ends it), a CSRF token on every form post, and the in-process API. */
function requireSession(service: ServiceFetcher): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path) || c.req.path.startsWith(ASSETS_PREFIX)) return next();
    const session = await readSession(c);
    if (session === undefined || !(await sessionStillValid(c.env, session))) {
      if (session !== undefined) endSession(c);
      if (c.req.path.startsWith(`${API_PROXY_PREFIX}/`)) {
        return problemResponse({ kind: "unauthorized", detail: "Sign in at /console first, or call the API directly with your key." }, c.req.path);
      }
      if (c.req.method === "GET") return c.redirect(signInUrl(c.req.url), 303);
      return c.html(<SignInPage error="Your session has ended; sign in again." />, 401);
    }
    if (c.req.path.startsWith(`${API_PROXY_PREFIX}/`)) {
      // API calls from the reference page: same origin only (SameSite=Strict already keeps the cookie off cross-site requests).
      const origin = c.req.header("origin");
      if (c.req.method !== "GET" && c.req.method !== "HEAD" && origin !== new URL(c.req.url).origin) {
        return problemResponse({ kind: "forbidden", detail: "Console API calls must come from the console's own origin." }, c.req.path);
      }
    } else if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const type = c.req.header("content-type") ?? "";
      const sent =
        type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")
          ? (await c.req.parseBody())["csrf"]
          : c.req.header("x-csrf-token");
      if (!csrfTokenMatches(session, typeof sent === "string" ? sent : undefined)) {
        return c.html(<MessagePage session={session} title="Form expired" message="This form is no longer valid: reload the page and try again." />, 403);
      }
    }
    c.set("session", session);
    c.set("api", new ServiceApi(service, { url: c.req.url, env: c.env, executionCtx: c.executionCtx }, session));
    return next();
  };
}

/** Tenant pages need a tenant session; the administrator is sent to the tenant list. */
const requireTenantSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (c.var.session.kind !== "tenant") return c.redirect("/console/admin", 303);
  return next();
};

/**
 * The operator console at /console: server-rendered pages (Hono JSX) over the service's own API
 * and the tenant object's read methods, with two small scripts (graph drawing, live progress).
 */
export function createConsole(service: ServiceFetcher): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const consoleHeaders = pageSecurityHeaders(CONSOLE_POLICY);
  // The consent page sets its own (its form leads to the client's redirect URI: authorize.tsx).
  app.use("*", (c, next) => (c.req.path === AUTHORIZE_PATH ? next() : consoleHeaders(c, next)));
  // Form posts must come from this origin (Origin / Sec-Fetch-Site), on top of SameSite=Strict and the token.
  app.use("*", csrf());
  app.use("*", requireSession(service));
  app.onError((error, c) => {
    if (error instanceof HTTPException && error.status === 403) {
      // hono/csrf: a form posted from another site.
      return c.html(<MessagePage title="Form refused" message="This form was not sent from the console itself, so nothing was done." />, 403);
    }
    console.error("console error", error);
    return c.html(
      <MessagePage title="Something went wrong" message="The console could not show this page. Try again; if it keeps failing, check the service's log." />,
      500,
    );
  });

  // The assets answer before the Worker is reached; what comes here is a file that does not exist.
  app.get("/assets/*", (c) => c.text("Not found", 404));

  app.get("/", (c) => c.redirect(c.var.session.kind === "tenant" ? "/console/tools" : "/console/admin", 303));

  app.get("/sign-in", async (c) => {
    const session = await readSession(c);
    const next = afterSignIn(c.req.query("next"));
    if (session !== undefined && (await sessionStillValid(c.env, session))) return c.redirect(next ?? "/console", 303);
    return c.html(<SignInPage signedOut={c.req.query("signed-out") !== undefined} {...(next === undefined ? {} : { next })} />);
  });

  app.post("/sign-in", async (c) => {
    const form = await c.req.parseBody();
    const key = typeof form["key"] === "string" ? form["key"].trim() : "";
    const asAdmin = form["as"] === "admin";
    const session = key === "" ? undefined : asAdmin ? adminSession(c.env, key) : await tenantSession(c.env, key);
    if (session === undefined) {
      const error = asAdmin ? "That is not the admin token." : "That API key is not valid: check it, or ask an administrator for a new one.";
      const next = afterSignIn(form["next"]);
      return c.html(<SignInPage error={error} {...(next === undefined ? {} : { next })} />, 401);
    }
    await startSession(c, session);
    return c.redirect(afterSignIn(form["next"]) ?? (session.kind === "tenant" ? "/console/tools" : "/console/admin"), 303);
  });

  app.post("/sign-out", (c) => {
    endSession(c);
    return c.redirect("/console/sign-in?signed-out", 303);
  });

  app.get("/admin", async (c) => {
    const { session } = c.var;
    if (session.kind !== "admin")
      return c.html(<MessagePage session={session} title="Administrators only" message="Sign in with the admin token to see every tenant." />, 403);
    const answer = await c.var.api.call<{ tenants: { id: string; name: string; createdAt: string }[] }>("GET", "/admin/tenants");
    return answer.ok
      ? c.html(<AdminPage session={session} tenants={answer.data.tenants} />)
      : c.html(<AdminPage session={session} tenants={[]} error={answer.message} />, answer.status as 500);
  });

  registerApiProxy(app);
  registerAuthorizePage(app);
  const tenantPages = new Hono<ConsoleEnv>();
  tenantPages.use("*", requireTenantSession);
  registerToolPages(tenantPages);
  registerGraphPage(tenantPages);
  registerRoutePage(tenantPages);
  registerLearningPage(tenantPages);
  registerRunPages(tenantPages);
  registerJobPages(tenantPages);
  registerConnectionsPage(tenantPages);
  app.route("/", tenantPages);

  app.all("*", (c) => c.html(<MessagePage session={c.var.session} title="Not found" message={`There is no console page at ${c.req.path}.`} />, 404));
  return app;
}
