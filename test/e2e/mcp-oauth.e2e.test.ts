import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser, Page } from "playwright-core";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, launchChromium } from "../helpers/browser";
import { freePort } from "../helpers/ports";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * The official MCP SDK client's own OAuth flow against the service on a real port, as Claude,
 * ChatGPT, VS Code or Cursor run it: a 401 with the resource metadata, discovery, dynamic
 * registration, authorisation with PKCE through the console's sign-in and consent pages in a
 * real Chromium, the code exchange, `find_tools`, and a refresh once the access token is refused.
 */

/**
 * The client's redirect URI: a server of this test on its own port, as a desktop client listens on
 * loopback for the code (Playwright does not route a request reached by a redirect).
 */
let redirectUrl = "";
let callbackServer: Server;
let codeArrived: (code: string) => void = () => {};

async function listenForCallback(): Promise<void> {
  callbackServer = createServer((request, response) => {
    codeArrived(new URL(request.url ?? "/", "http://127.0.0.1").searchParams.get("code") ?? "");
    response.end("You can close this window.");
  });
  const port = await freePort();
  await new Promise<void>((listening) => callbackServer.listen(port, "127.0.0.1", listening));
  redirectUrl = `http://127.0.0.1:${port}/oauth/callback`;
}

/** An OAuthClientProvider whose "user" is a headless Chromium signing in and clicking Allow. */
class BrowserDrivenProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  code: string | undefined;
  consentText = "";

  constructor(
    private readonly page: Page,
    private readonly tenantKey: string,
  ) {}

  get redirectUrl(): string {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test client",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }

  /** The person: signs in with the tenant key (the console returns to the request), reads the consent page, allows. */
  async redirectToAuthorization(url: URL): Promise<void> {
    const callback = new Promise<string>((resolveCode) => {
      codeArrived = resolveCode;
    });
    await this.page.goto(url.href);
    await this.page.fill("#api-key", this.tenantKey);
    await this.page.click("#sign-in button[type=submit]");
    await this.page.waitForSelector("#consent");
    this.consentText = (await this.page.textContent("main")) ?? "";
    await this.page.click("#consent button[value=approve]");
    this.code = await callback;
  }
}

let service: TestService;
let browser: Browser;
let base: string;
let tenant: { id: string; key: string };

beforeAll(async () => {
  service = await startService({ port: await freePort() });
  base = `http://127.0.0.1:${service.url.port}`;
  tenant = await createTenant(service, "sdk-oauth");
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: {
      format: "list",
      source: "shop",
      tools: [{ name: "listOrders", method: "GET", url: "https://shop.example.com/orders", description: "List the shop's orders" }],
    },
  });
  await listenForCallback();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await service?.dispose();
  callbackServer?.close();
});

async function connected(provider: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
  return client;
}

describe("the MCP SDK client's OAuth flow", () => {
  it("registers, authorises with PKCE through the consent page, exchanges, calls find_tools and refreshes", { timeout: 120_000 }, async () => {
    const page = await (await browser.newContext()).newPage();
    const provider = new BrowserDrivenProvider(page, tenant.key);
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    // No token yet: the 401 sends the client through discovery, registration and the browser.
    await expect(new Client({ name: "sdk-oauth-test", version: "1.0.0" }).connect(transport)).rejects.toThrow(UnauthorizedError);
    expect(provider.client?.client_id).toBeTruthy();
    expect(provider.consentText).toContain("SDK test client");
    expect(provider.consentText).toContain("127.0.0.1");
    expect(provider.code).toBeTruthy();
    await transport.finishAuth(provider.code ?? "");
    expect(provider.saved?.refresh_token).toBeTruthy();

    const client = await connected(provider);
    const found = await client.callTool({ name: "find_tools", arguments: { task: "list the orders", k: 3 } });
    expect(JSON.stringify(found.content)).toContain("listOrders");
    await client.close();

    // The access token is refused (as an expired one is): the client refreshes and goes on.
    const first = provider.saved;
    provider.saved = { ...(first as OAuthTokens), access_token: `${tenant.id}:stale:0000000000000000` };
    const again = await connected(provider);
    expect(JSON.stringify((await again.callTool({ name: "find_tools", arguments: { task: "list the orders", k: 3 } })).content)).toContain("listOrders");
    expect(provider.saved?.access_token).not.toBe(first?.access_token);
    expect(provider.saved?.refresh_token).not.toBe(first?.refresh_token);
    await again.close();
  });

  it("shows a consent page without accessibility violations", async () => {
    // bypassCSP only so axe-core can be injected (the flow above runs under the page's real policy).
    const page = await (await browser.newContext({ bypassCSP: true })).newPage();
    const registered = await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Accessible client", redirect_uris: [redirectUrl], token_endpoint_auth_method: "none" }),
    });
    const { client_id } = (await registered.json()) as { client_id: string };
    const query = new URLSearchParams({
      response_type: "code",
      client_id,
      redirect_uri: redirectUrl,
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      state: "s",
    });
    await page.goto(`${base}/console/authorize?${query}`);
    await page.fill("#api-key", tenant.key);
    await page.click("#sign-in button[type=submit]");
    await page.waitForSelector("#consent");
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
