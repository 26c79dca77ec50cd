import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SealedCredential } from "../../functions/storage/tenant-registry";
import type { SealedToken } from "../../functions/storage/oauth-token-cache";
import { storeCredential } from "../../functions/services/store-credential";
import type { ToolDefinition } from "../../functions/tools/definition";
import { invokeTool } from "../../functions/services/invoke";
import { fakeTenant } from "../helpers/fake-tenant";

/**
 * An OAuth 2 client-credentials credential: the service fetches the access token itself, reuses it
 * while valid, fetches a new one on expiry (and once when the API refuses a cached one), and the
 * client secret never appears in anything a caller sees.
 */

const env = { CREDENTIALS_KEY: "a-credentials-key-of-32-characters" } as unknown as Env;
const SECRET = "client-secret-0123456789";
const definition: ToolDefinition = {
  name: "me",
  method: "GET",
  serverUrl: "https://api.example.com",
  path: "/me",
  operation: "GET /me",
  description: "",
  parameters: [],
  tags: [],
  auth: { scheme: "oauth2", in: "header", scopes: ["User.Read"], tokenUrl: "https://login.example.com/token" },
};

interface Network {
  tokenRequests: { authorization: string | null; body: string }[];
  apiAuthorizations: (string | null)[];
  refused: Set<string>;
}

function stubNetwork(): Network {
  const network: Network = { tokenRequests: [], apiAuthorizations: [], refused: new Set() };
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.url === "https://login.example.com/token") {
      network.tokenRequests.push({ authorization: request.headers.get("Authorization"), body: await request.text() });
      return Response.json({ access_token: `tok-${network.tokenRequests.length}`, token_type: "Bearer", expires_in: 3600 });
    }
    const authorization = request.headers.get("Authorization");
    network.apiAuthorizations.push(authorization);
    if (authorization !== null && network.refused.has(authorization)) return new Response("revoked", { status: 401 });
    return Response.json({ id: "u1" });
  });
  return network;
}

async function tenantWithClientCredentials(tokenUrl?: string) {
  let stored: SealedCredential | undefined;
  const tokens = new Map<string, SealedToken>();
  const registry = {
    async putCredential(credential: SealedCredential) {
      stored = credential;
      const { ciphertext: _c, iv: _i, ...summary } = credential;
      return summary;
    },
    async toolForCall() {
      return { tool: { definition, hash: "h" }, credential: stored };
    },
    async cachedToken(id: string) {
      return tokens.get(id);
    },
    async cacheToken(id: string, token: SealedToken) {
      tokens.set(id, token);
    },
  };
  const tenant = fakeTenant(new Map(), registry);
  const summary = await storeCredential(env, "acme", tenant, {
    scope: { kind: "server", value: "https://api.example.com" },
    scheme: "oauth2ClientCredentials",
    in: "header",
    name: null,
    value: SECRET,
    clientCredentials: { clientId: "app-1", scopes: ["User.Read"], ...(tokenUrl === undefined ? {} : { tokenUrl }) },
  });
  return { tenant, summary, tokens, stored: () => stored };
}

describe("OAuth 2 client credentials", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("fetches a token once, reuses it, refreshes it on expiry, and never shows the secret", async () => {
    const network = stubNetwork();
    const { tenant, summary, tokens, stored } = await tenantWithClientCredentials();
    const first = await invokeTool(env, "acme", tenant, "me", {});
    const second = await invokeTool(env, "acme", tenant, "me", {});
    expect(network.tokenRequests).toHaveLength(1);
    expect(network.apiAuthorizations).toEqual(["Bearer tok-1", "Bearer tok-1"]);
    // RFC 6749 §2.3.1: HTTP Basic with the form-encoded id and secret; the grant and the scopes in the body.
    expect(network.tokenRequests[0]?.authorization).toBe(`Basic ${btoa(`app-1:${SECRET}`)}`);
    expect(network.tokenRequests[0]?.body).toBe("grant_type=client_credentials&scope=User.Read");

    vi.setSystemTime(new Date("2026-01-01T00:59:30Z")); // within a minute of expiry: not used any more
    const third = await invokeTool(env, "acme", tenant, "me", {});
    expect(network.tokenRequests).toHaveLength(2);
    expect(network.apiAuthorizations[2]).toBe("Bearer tok-2");

    const shown = JSON.stringify([first, second, third, summary, [...tokens.values()], stored()?.ciphertext]);
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain("tok-2");
    expect(summary).toMatchObject({ scheme: "oauth2ClientCredentials", hint: "••••6789" });
    expect(first).toMatchObject({ found: true, result: { ok: true, status: 200 } });
  });

  it("fetches a new token once when the API refuses a cached one before its expiry", async () => {
    const network = stubNetwork();
    const { tenant } = await tenantWithClientCredentials();
    await invokeTool(env, "acme", tenant, "me", {});
    network.refused.add("Bearer tok-1");
    const outcome = await invokeTool(env, "acme", tenant, "me", {});
    expect(network.apiAuthorizations).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
    expect(outcome).toMatchObject({ found: true, result: { ok: true, status: 200 } });
  });

  it("fetches tokens only through the destination guard", async () => {
    const network = stubNetwork();
    const { tenant } = await tenantWithClientCredentials("http://169.254.169.254/token");
    const outcome = await invokeTool(env, "acme", tenant, "me", {});
    expect(outcome).toMatchObject({ found: true, result: { ok: false, error: { kind: "token_unavailable" } } });
    expect(JSON.stringify(outcome)).toMatch(/link-local|linkLocal/i);
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(network.tokenRequests).toHaveLength(0);
    expect(network.apiAuthorizations).toHaveLength(0);
  });
});
