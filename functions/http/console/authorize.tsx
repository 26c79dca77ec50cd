import { AuthorizationError, authorizationErrorRedirect, type AuthRequest, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context, Hono } from "hono";
import { MCP_SCOPE, oauthHelpers } from "../oauth/oauth-roles";
import { tenantExists } from "../tenant-directory";
import { CONSOLE_POLICY, pageSecurityHeaders } from "./content-security";
import type { ConsoleEnv } from "./context";
import { MessagePage } from "./views/message";
import { ConsentPage } from "./views/oauth";

/**
 * The authorization endpoint of MCP authorization (`/console/authorize`): the library checks the
 * request (client, exact redirect URI, resource), the signed-in person approves on the consent
 * page, and only then is a code issued, bound to one tenant: the session's, or for an operator
 * the tenant they pick. PKCE with S256 is required of every client, confidential ones too. The
 * request is kept server-side between the page and the form (the library's consent handle, bound
 * to this browser by a cookie); the form carries the handle and the console's CSRF token.
 */

type ConsoleContext = Context<ConsoleEnv>;

function problemPage(c: ConsoleContext, message: string, status: 400 | 404) {
  return c.html(<MessagePage session={c.var.session} title="This connection cannot go on" message={message} />, status);
}

/** What the library refuses: back to the client when its redirect URI is proven, else on this page. */
function refusal(c: ConsoleContext, error: unknown): Response | Promise<Response> {
  if (error instanceof AuthorizationError) {
    if (error.redirectTo !== undefined) return c.redirect(error.redirectTo, 302);
    return problemPage(c, `The app's request is not valid: ${error.description}`, 400);
  }
  throw error;
}

/**
 * Where the consent form may lead: the console's policy allows forms to its own origin only, and
 * browsers hold the redirect after the form to it too, so the client's redirect origin is added.
 */
function formTargetOf(request: AuthRequest): string {
  const target = new URL(request.redirectUri);
  return target.protocol === "https:" || target.protocol === "http:" ? target.origin : target.protocol;
}

async function operatorTenants(c: ConsoleContext): Promise<{ id: string; name: string }[]> {
  if (c.var.session.kind !== "admin") return [];
  const answer = await c.var.api.call<{ tenants: { id: string; name: string }[] }>("GET", "/admin/tenants");
  return answer.ok ? answer.data.tenants : [];
}

async function showConsent(c: ConsoleContext, oauth: OAuthHelpers): Promise<Response> {
  let request: AuthRequest;
  try {
    request = await oauth.parseAuthRequest(c.req.raw);
  } catch (error) {
    return withPolicy(c, await refusal(c, error));
  }
  if (request.codeChallenge === undefined || request.codeChallengeMethod !== "S256") {
    return withPolicy(c, c.redirect(authorizationErrorRedirect(request, "invalid_request", "PKCE with code_challenge_method=S256 is required."), 302));
  }
  // Described first: a failed lookup leaves nothing stored.
  const details = await oauth.describeConsent(request);
  const tenants = await operatorTenants(c);
  const consent = await oauth.beginConsent(request);
  const page = await c.html(<ConsentPage session={c.var.session} details={details} handle={consent.handle} tenants={tenants} />);
  // The library's cookie binds the handle to this browser; its framing headers are the console's already.
  for (const [name, value] of consent.headers) if (name === "set-cookie") page.headers.append(name, value);
  return withPolicy(c, page, formTargetOf(request));
}

/** The console's security headers (the console app skips this path to let the consent page's form reach the client). */
async function withPolicy(c: ConsoleContext, response: Response, formTarget?: string): Promise<Response> {
  const policy = formTarget === undefined ? CONSOLE_POLICY : { ...CONSOLE_POLICY, formAction: ["'self'", formTarget] };
  await pageSecurityHeaders(policy)(c, async () => {
    c.res = response;
  });
  return c.res;
}

/** The tenant the approval is for: the signed-in tenant's, or the one an operator picked (which must exist). */
async function approvedTenant(c: ConsoleContext, picked: unknown): Promise<string | undefined> {
  const { session } = c.var;
  if (session.kind === "tenant") return session.tenantId;
  return typeof picked === "string" && picked !== "" && (await tenantExists(c.env, picked)) ? picked : undefined;
}

async function decide(c: ConsoleContext, oauth: OAuthHelpers): Promise<Response> {
  const form = await c.req.parseBody();
  const handle = typeof form["handle"] === "string" ? form["handle"] : "";
  try {
    if (form["decision"] !== "approve") {
      const denied = await oauth.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const tenantId = await approvedTenant(c, form["tenant"]);
    if (tenantId === undefined) return problemPage(c, "Pick an existing tenant for this app.", 400);
    const approved = await oauth.approveConsent(c.req.raw, handle, { scope: [MCP_SCOPE] });
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId: tenantId,
      metadata: { approvedBy: c.var.session.kind },
      scope: [MCP_SCOPE],
      props: { tenantId },
    });
    approved.headers.set("Location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (error) {
    // An expired, reused or foreign handle: nothing was granted.
    if (error instanceof AuthorizationError)
      return problemPage(c, "This approval page has expired or was already used: start connecting again from the app.", 400);
    throw error;
  }
}

export function registerAuthorizePage(app: Hono<ConsoleEnv>): void {
  app.on(["GET", "POST"], "/authorize", async (c) => {
    const oauth = oauthHelpers(c.req.url, c.env);
    if (oauth === undefined) return withPolicy(c, await problemPage(c, "OAuth is offered over https (or http on a loopback address) only.", 404));
    return c.req.method === "GET" ? showConsent(c, oauth) : withPolicy(c, await decide(c, oauth));
  });
}
