import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot } from "../helpers/browser";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * The API reference (/docs) and the console in a real headless Chromium that enforces their
 * Content-Security-Policy (no bypass): every request a page makes is recorded, and the browser's
 * CSP refusals are collected from its console.
 */

let service: TestService;
let browser: Browser;
let origin: string;
let tenant: { id: string; key: string };

interface Watched {
  page: Page;
  context: BrowserContext;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** Every CSP refusal the browser reported. */
  refusals: string[];
}

async function watchedPage(): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const watched: Watched = { page, context, requests: [], refusals: [] };
  page.on("request", (request) => watched.requests.push(request.url()));
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) watched.refusals.push(message.text());
  });
  return watched;
}

/** The requests that went anywhere but the service (data: and blob: URLs never leave the browser). */
function elsewhere(requests: string[]): string[] {
  return requests.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url));
}

beforeAll(async () => {
  service = await startService({ port: 0, programHost: false });
  origin = service.url.origin;
  tenant = await createTenant(service, "reference-reader");
  const tools = [
    { name: "getWeather", method: "GET", url: "https://weather.example/v1/weather/{city}" },
    { name: "getForecast", method: "GET", url: "https://weather.example/v1/forecast/{city}" },
  ];
  const imported = await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "weather", tools } });
  expect(imported.status).toBe(200);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.dispose();
});

describe("/docs in Chromium", () => {
  let docs: Watched;
  afterAll(async () => docs?.context.close());

  it("loads only from the service, under its CSP, with nothing refused", { timeout: 120_000 }, async () => {
    docs = await watchedPage();
    await docs.page.goto(`${origin}/docs`);
    await docs.page.getByRole("heading", { name: "atc-edge", exact: true }).waitFor({ timeout: 60_000 });
    // Let anything the reference starts after rendering (registries, agents, fonts) be asked for.
    await docs.page.waitForTimeout(2_000);
    expect(elsewhere(docs.requests)).toEqual([]);
    expect(docs.requests).toEqual(expect.arrayContaining([`${origin}/docs/scalar.js`, `${origin}/docs/api-reference.js`, `${origin}/openapi.json`]));
    expect(docs.refusals).toEqual([]);
    await screenshot(docs.page, "docs-api-reference");
  });

  it("sends Try it, and copies requests, to the service with the API key as a Bearer token", { timeout: 120_000 }, async () => {
    const { page, requests, refusals } = docs;
    const sent: { url: string; authorization: string | undefined; status?: number }[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/v1/tools") sent.push({ url: request.url(), authorization: request.headers()["authorization"] });
    });
    page.on("response", (response) => {
      const match = sent.find((s) => s.url === response.url() && s.status === undefined);
      if (match !== undefined) match.status = response.status();
    });
    await page.getByPlaceholder("Token").first().fill(tenant.key);
    await page.goto(`${origin}/docs#tag/tools/GET/v1/tools`);

    // The example request shown for copying (Shell, curl).
    const copied = page
      .locator("pre")
      .filter({ hasText: `curl ${origin}/v1/tools \\` })
      .first();
    await copied.waitFor({ state: "attached", timeout: 30_000 });
    expect(await copied.textContent()).toContain(`Authorization: Bearer ${tenant.key}`);

    await page.getByRole("button", { name: "Test Request (get /v1/tools)", exact: true }).click();
    await page.getByRole("button", { name: /^Send/ }).first().click();
    await expect.poll(() => sent.at(-1)?.status, { timeout: 30_000 }).toBe(200);
    expect(sent.at(-1)).toEqual({ url: `${origin}/v1/tools`, authorization: `Bearer ${tenant.key}`, status: 200 });
    expect(elsewhere(requests)).toEqual([]);
    expect(refusals).toEqual([]);
  });
});

describe("the console in Chromium under its CSP", () => {
  it("styles and scripts every page from the service, with nothing refused", { timeout: 120_000 }, async () => {
    const { page, context, requests, refusals } = await watchedPage();
    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel("Tenant API key").fill(tenant.key);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${origin}/console/tools`);
    // console.css applied: the header's dark background comes from the stylesheet asset.
    expect(await page.evaluate('getComputedStyle(document.querySelector("header.top")).backgroundColor')).toBe("rgb(13, 17, 23)");

    await page.goto(`${origin}/console/graph`);
    await page.waitForSelector("svg#graph[data-drawn]");
    expect(await page.locator("svg#graph g.node.tool").count()).toBe(2);
    for (const path of ["/console/tools/getWeather", "/console/runs", "/console/jobs"]) {
      const response = await page.goto(`${origin}${path}`);
      expect(response?.status(), path).toBe(200);
    }
    expect(requests).toEqual(expect.arrayContaining([`${origin}/console/assets/console.css`, `${origin}/console/assets/graph.js`]));
    expect(elsewhere(requests)).toEqual([]);
    expect(refusals).toEqual([]);
    await context.close();
  });
});
