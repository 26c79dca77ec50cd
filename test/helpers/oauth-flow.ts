import { createHash, randomBytes } from "node:crypto";
import type { TestService } from "./service";

/**
 * MCP authorization (OAuth 2.1) driven over HTTP without a browser, as a client and a person
 * would: register, open the authorization endpoint signed in to the console, approve on the
 * consent page, exchange the code. Requests go through Miniflare's dispatchFetch to a loopback
 * origin (OAuth is offered over https, or http on loopback: functions/http/oauth/oauth-roles.ts).
 */

export const OAUTH_ORIGIN = "http://localhost";
export const MCP_RESOURCE = `${OAUTH_ORIGIN}/mcp`;
export const REDIRECT_URI = "http://127.0.0.1:9/callback";

export interface RawAnswer {
  status: number;
  headers: Headers;
  setCookies: string[];
  text: string;
}

/** One request to the service at OAUTH_ORIGIN; redirects are returned, not followed. */
export async function oauthFetch(
  service: TestService,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const response = await service.mf.dispatchFetch(`${OAUTH_ORIGIN}${path}`, { redirect: "manual", ...init } as never);
  const headers = new Headers();
  for (const [name, value] of response.headers.entries()) if (name !== "set-cookie") headers.append(name, value);
  return { status: response.status, headers, setCookies: response.headers.getSetCookie(), text: await response.text() };
}

export function form(values: Record<string, string>): { headers: Record<string, string>; body: string } {
  return { headers: { "content-type": "application/x-www-form-urlencoded", origin: OAUTH_ORIGIN }, body: new URLSearchParams(values).toString() };
}

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

const cookiePairs = (setCookies: string[]): string[] => setCookies.map((c) => c.split(";")[0] ?? "").filter((c) => c !== "" && !c.endsWith("="));

/** A console session for a tenant key (or the admin token), as a Cookie header value. */
export async function consoleCookie(service: TestService, key: string, as?: "admin"): Promise<string> {
  const answer = await oauthFetch(service, "/console/sign-in", { method: "POST", ...form({ key, ...(as === undefined ? {} : { as }) }) });
  if (answer.status !== 303) throw new Error(`sign-in failed: ${answer.status}`);
  return cookiePairs(answer.setCookies).join("; ");
}

/** Dynamic client registration of a public client (RFC 7591). */
export async function registerClient(service: TestService, metadata: Record<string, unknown> = {}): Promise<RawAnswer & { clientId: string }> {
  const answer = await oauthFetch(service, "/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test chat app",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...metadata,
    }),
  });
  const clientId = answer.status === 201 ? (JSON.parse(answer.text) as { client_id: string }).client_id : "";
  return { ...answer, clientId };
}

export function authorizePath(clientId: string, challenge: string | undefined, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    state: "state-123",
    resource: MCP_RESOURCE,
    ...(challenge === undefined ? {} : { code_challenge: challenge, code_challenge_method: "S256" }),
    ...extra,
  });
  return `/console/authorize?${query}`;
}

/** Open the consent page signed in, then answer it; the redirect back to the client. */
export async function decideConsent(
  service: TestService,
  cookie: string,
  path: string,
  decision: "approve" | "deny",
  fields: Record<string, string> = {},
): Promise<{ page: RawAnswer; answer: RawAnswer | undefined }> {
  const page = await oauthFetch(service, path, { headers: { cookie } });
  if (page.status !== 200) return { page, answer: undefined };
  const handle = /name="handle" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
  const both = [cookie, ...cookiePairs(page.setCookies)].join("; ");
  const answer = await oauthFetch(service, "/console/authorize", { method: "POST", ...withCookie(form({ handle, csrf, decision, ...fields }), both) });
  return { page, answer };
}

function withCookie(request: { headers: Record<string, string>; body: string }, cookie: string) {
  return { headers: { ...request.headers, cookie }, body: request.body };
}

/** The code in a redirect back to the client. */
export function codeOf(answer: RawAnswer | undefined): string {
  const location = new URL(answer?.headers.get("location") ?? "http://none/");
  return location.searchParams.get("code") ?? "";
}

export async function tokenRequest(service: TestService, values: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await oauthFetch(service, "/oauth/token", { method: "POST", ...form(values) });
  return { status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> };
}

/** The whole flow for one tenant: a registered client, its approval, and the token response. */
export async function connectClient(
  service: TestService,
  tenantKey: string,
  clientName?: string,
): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
  const { clientId } = await registerClient(service, clientName === undefined ? {} : { client_name: clientName });
  const { verifier, challenge } = pkcePair();
  const cookie = await consoleCookie(service, tenantKey);
  const { answer } = await decideConsent(service, cookie, authorizePath(clientId, challenge), "approve");
  const token = await tokenRequest(service, {
    grant_type: "authorization_code",
    code: codeOf(answer),
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: MCP_RESOURCE,
  });
  if (token.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(token.body)}`);
  return { clientId, accessToken: String(token.body.access_token), refreshToken: String(token.body.refresh_token) };
}

/** A JSON-RPC call to `/mcp` with a bearer credential. */
export async function mcpCall(service: TestService, bearer: string | undefined, method: string, params: Record<string, unknown> = {}): Promise<RawAnswer> {
  return oauthFetch(service, "/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}
