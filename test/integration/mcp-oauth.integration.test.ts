import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  authorizePath,
  codeOf,
  connectClient,
  consoleCookie,
  decideConsent,
  form,
  MCP_RESOURCE,
  mcpCall,
  OAUTH_ORIGIN,
  oauthFetch,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from "../helpers/oauth-flow";
import { ADMIN_TOKEN, createTenant, startService, type TestService } from "../helpers/service";

/**
 * MCP authorization (OAuth 2.1) on `/mcp`, over HTTP: discovery, registration, consent, PKCE,
 * tokens bound to one tenant and to `/mcp`, revocation from the console, and every refusal. The
 * SDK client's own OAuth flow, with the consent page in a browser, is test/e2e/mcp-oauth.e2e.test.ts.
 */

let service: TestService;
let shop: { id: string; key: string };
let movies: { id: string; key: string };
let log = "";

/** RFC 8414 §2 (required: issuer, response_types_supported; authorization and token endpoints for the code grant). */
const AuthorizationServerMetadata = z.object({
  issuer: z.literal(OAUTH_ORIGIN),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
  registration_endpoint: z.string().url(),
  revocation_endpoint: z.string().url(),
  response_types_supported: z.array(z.string()).refine((types) => types.includes("code")),
  grant_types_supported: z.array(z.string()).refine((types) => types.includes("authorization_code") && types.includes("refresh_token")),
  code_challenge_methods_supported: z.array(z.string()).refine((methods) => methods.includes("S256")),
  token_endpoint_auth_methods_supported: z.array(z.string()).refine((methods) => methods.includes("none")),
  scopes_supported: z.array(z.string()),
});

/** RFC 9728 §2 (required: resource; authorization_servers names the issuer). */
const ProtectedResourceMetadata = z.object({
  resource: z.literal(MCP_RESOURCE),
  authorization_servers: z.array(z.literal(OAUTH_ORIGIN)).min(1),
  bearer_methods_supported: z.array(z.literal("header")),
  scopes_supported: z.array(z.string()),
});

const findTools = (token: string | undefined) => mcpCall(service, token, "tools/call", { name: "find_tools", arguments: { task: "list the orders", k: 3 } });

async function oauthKeyCount(): Promise<number> {
  const kv = await service.mf.getKVNamespace("OAUTH_KV");
  return (await kv.list()).keys.length;
}

beforeAll(async () => {
  service = await startService({ onRuntimeOutput: (text) => (log += text) });
  shop = await createTenant(service, "oauth-shop");
  movies = await createTenant(service, "oauth-movies");
  const tool = (name: string, url: string, description: string) => ({ format: "list", source: name, tools: [{ name, method: "GET", url, description }] });
  await service.json("POST", "/v1/tools/import", { key: shop.key, body: tool("listOrders", "https://shop.example.com/orders", "List the shop's orders") });
  await service.json("POST", "/v1/tools/import", {
    key: movies.key,
    body: tool("listMovies", "https://movies.example.com/movies", "List the movies and orders of films"),
  });
});
afterAll(async () => service.dispose());

describe("discovery", () => {
  it("answers /mcp without credentials with 401 naming the protected-resource metadata", async () => {
    const answer = await mcpCall(service, undefined, "tools/list");
    expect(answer.status).toBe(401);
    expect(answer.headers.get("content-type")).toMatch(/application\/problem\+json/);
    const challenge = answer.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? "";
    expect(metadataUrl).toBe(`${OAUTH_ORIGIN}/.well-known/oauth-protected-resource/mcp`);
    const metadata = await oauthFetch(service, new URL(metadataUrl).pathname);
    expect(metadata.status).toBe(200);
    ProtectedResourceMetadata.parse(JSON.parse(metadata.text));
  });

  it("serves RFC 8414 authorization-server metadata with the required fields", async () => {
    const answer = await oauthFetch(service, "/.well-known/oauth-authorization-server");
    expect(answer.status).toBe(200);
    const metadata = AuthorizationServerMetadata.parse(JSON.parse(answer.text));
    expect(metadata.authorization_endpoint).toBe(`${OAUTH_ORIGIN}/console/authorize`);
    expect(metadata.registration_endpoint).toBe(`${OAUTH_ORIGIN}/oauth/register`);
  });

  it("names invalid_token in the challenge when a wrong bearer value was sent", async () => {
    const answer = await mcpCall(service, "not-a-token", "tools/list");
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });
});

describe("the code flow", () => {
  it("issues a code only after approval, and a token that reaches the approving tenant's /mcp only", async () => {
    const { accessToken, refreshToken } = await connectClient(service, shop.key);
    expect(refreshToken).not.toBe("");
    const found = await findTools(accessToken);
    expect(found.status).toBe(200);
    expect(found.text).toContain("listOrders");
    expect(found.text).not.toContain("listMovies");
    // Never the REST API nor the admin API.
    expect((await service.json("GET", "/v1/tools", { key: accessToken })).status).toBe(401);
    expect((await service.json("GET", "/admin/tenants", { key: accessToken })).status).toBe(401);
  });

  it("keeps API keys working on /mcp", async () => {
    const found = await findTools(shop.key);
    expect(found.status).toBe(200);
    expect(found.text).toContain("listOrders");
  });

  it("binds a token to its tenant: one tenant's token cannot be turned into another's", async () => {
    const { accessToken } = await connectClient(service, shop.key);
    // Tokens are <tenant>:<grant>:<secret>; naming the other tenant finds no record.
    const forged = accessToken.replace(/^[^:]+:/, `${movies.id}:`);
    expect(forged).not.toBe(accessToken);
    const answer = await findTools(forged);
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain("listMovies");
  });

  it("lets an operator approve for a tenant they pick", async () => {
    const { clientId } = await registerClient(service);
    const { verifier, challenge } = pkcePair();
    const cookie = await consoleCookie(service, ADMIN_TOKEN, "admin");
    const { page, answer } = await decideConsent(service, cookie, authorizePath(clientId, challenge), "approve", { tenant: movies.id });
    expect(page.text).toContain("oauth-movies");
    const token = await tokenRequest(service, {
      grant_type: "authorization_code",
      code: codeOf(answer),
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    const found = await findTools(String(token.body.access_token));
    expect(found.text).toContain("listMovies");
    expect(found.text).not.toContain("listOrders");
  });

  it("refreshes: the new access token works", async () => {
    const { clientId, refreshToken } = await connectClient(service, shop.key);
    const refreshed = await tokenRequest(service, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect((await findTools(String(refreshed.body.access_token))).status).toBe(200);
  });

  it("redirects a denial back to the client with access_denied and no code", async () => {
    const { clientId } = await registerClient(service);
    const cookie = await consoleCookie(service, shop.key);
    const { answer } = await decideConsent(service, cookie, authorizePath(clientId, pkcePair().challenge), "deny");
    const location = new URL(answer?.headers.get("location") ?? "http://none/");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("code")).toBeNull();
  });
});

describe("refusals", () => {
  it("refuses a reused code with invalid_grant", async () => {
    const { clientId } = await registerClient(service);
    const { verifier, challenge } = pkcePair();
    const cookie = await consoleCookie(service, shop.key);
    const { answer } = await decideConsent(service, cookie, authorizePath(clientId, challenge), "approve");
    const exchange = { grant_type: "authorization_code", code: codeOf(answer), redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier };
    expect((await tokenRequest(service, exchange)).status).toBe(200);
    const again = await tokenRequest(service, exchange);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("refuses a wrong PKCE verifier with invalid_grant", async () => {
    const { clientId } = await registerClient(service);
    const { challenge } = pkcePair();
    const cookie = await consoleCookie(service, shop.key);
    const { answer } = await decideConsent(service, cookie, authorizePath(clientId, challenge), "approve");
    const wrong = await tokenRequest(service, {
      grant_type: "authorization_code",
      code: codeOf(answer),
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: pkcePair().verifier,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
  });

  it("requires PKCE with S256", async () => {
    const { clientId } = await registerClient(service);
    const cookie = await consoleCookie(service, shop.key);
    const { page } = await decideConsent(service, cookie, authorizePath(clientId, undefined), "approve");
    expect(page.status).toBe(302);
    const location = new URL(page.headers.get("location") ?? "http://none/");
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get("error")).toBe("invalid_request");
  });

  it("never redirects to an unregistered redirect URI, nor for an unknown client", async () => {
    const { clientId } = await registerClient(service);
    const cookie = await consoleCookie(service, shop.key);
    const challenge = pkcePair().challenge;
    const foreign = await oauthFetch(service, authorizePath(clientId, challenge, { redirect_uri: "https://attacker.example/cb" }), { headers: { cookie } });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get("location")).toBeNull();
    const unknown = await oauthFetch(service, authorizePath("no-such-client", challenge), { headers: { cookie } });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("location")).toBeNull();
  });

  it("answers bad token requests with OAuth errors and stores nothing", async () => {
    const before = await oauthKeyCount();
    // An unknown client, an unsupported grant, no client at all: client authentication fails first.
    expect((await tokenRequest(service, { grant_type: "authorization_code", code: "x:y:z", client_id: "nobody", code_verifier: "v" })).body.error).toBe(
      "invalid_client",
    );
    expect((await tokenRequest(service, { grant_type: "password", client_id: "nobody" })).status).toBe(401);
    expect((await oauthFetch(service, "/oauth/token", { method: "POST", ...form({}) })).status).toBe(401);
    const { clientId } = await registerClient(service);
    const afterRegistration = await oauthKeyCount();
    const noVerifier = await tokenRequest(service, { grant_type: "authorization_code", code: "x:y:z", client_id: clientId, redirect_uri: REDIRECT_URI });
    expect(noVerifier.status).toBe(400);
    expect(["invalid_request", "invalid_grant"]).toContain(noVerifier.body.error);
    const noGrantType = await tokenRequest(service, { client_id: clientId });
    expect(noGrantType.status).toBe(400);
    expect(["invalid_request", "unsupported_grant_type"]).toContain(noGrantType.body.error);
    const badRegistration = await registerClient(service, { redirect_uris: ["javascript:alert(1)"] });
    expect(badRegistration.status).toBe(400);
    expect(["invalid_redirect_uri", "invalid_client_metadata"]).toContain(JSON.parse(badRegistration.text).error);
    // The one successful registration above is the only record written.
    expect(afterRegistration).toBe(before + 1);
    expect(await oauthKeyCount()).toBe(afterRegistration);
  });
});

describe("revocation from the console", () => {
  it("lists the connected client with its last use, and a revoked token gets 401 at the next request", async () => {
    const { accessToken } = await connectClient(service, shop.key, "Revocation test app");
    expect((await findTools(accessToken)).status).toBe(200);
    const cookie = await consoleCookie(service, shop.key);
    const connections = () => oauthFetch(service, "/console/connections", { headers: { cookie } });
    // The use is recorded after the response (waitUntil): the page shows it once written.
    const lastUse = async () => /Revocation test app<\/th><td>[^<]*<\/td><td>([^<]*)<\/td>/.exec((await connections()).text)?.[1];
    await expect.poll(lastUse, { timeout: 10_000 }).toMatch(/\d/);
    const page = await connections();
    const grants = [...page.text.matchAll(/name="grant" value="([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(grants.length).toBeGreaterThan(0);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
    for (const grant of grants) {
      const revoked = await oauthFetch(service, "/console/connections/revoke", {
        method: "POST",
        ...form({ grant, csrf }),
        headers: { ...form({}).headers, cookie },
      });
      expect(revoked.status).toBe(303);
    }
    const after = await findTools(accessToken);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it("wrote no token or key into the service's log", () => {
    expect(log).not.toMatch(/oauth-shop:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{16,}/);
    expect(log).not.toContain(shop.key);
  });
});
