import { createServer } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, screenshot, signedInConsole } from "../helpers/browser";
import { calibrated } from "../helpers/calibration";
import { connectMcp } from "../helpers/mcp-client";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * The console's learning pages in a real headless Chromium (issue 30), on a tenant of its own:
 * the learning curve drawn from observed MCP conversations, the routing page that learns a marked
 * tool at once, and the graph page that draws the learned transitions first.
 */

const PREFERRED_PORT = 8816;
const TOOLS = [
  { name: "searchMovie", method: "GET", url: "https://api.example.com/search/movie", description: "Search for a movie by its title" },
  { name: "movieCredits", method: "GET", url: "https://api.example.com/movie/credits", description: "Get the cast and crew of a movie" },
  { name: "movieReviews", method: "GET", url: "https://api.example.com/movie/reviews", description: "Get the user reviews of a movie" },
  ...Array.from({ length: 20 }, (_, i) => ({
    name: `otherTool${i}`,
    method: "GET",
    url: `https://api.example.com/other/${i}`,
    description: `Another operation number ${i} about weather`,
  })),
];

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.once("error", () => resolvePort(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolvePort(true)));
  });
}

let service: TestService;
let browser: Browser;
let page: Page;
let base: string;
let key: string;

async function a11y(target: Page): Promise<void> {
  const violations = await accessibilityViolations(target);
  expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
}

/** A chatbot's conversation over MCP: search, call the tools in order, end the session; no feedback. */
async function chat(task: string, tools: readonly string[]): Promise<void> {
  const client: Client = await connectMcp(service, key);
  await client.callTool({ name: "find_tools", arguments: { task, k: 5 } });
  for (const tool of tools) await client.callTool({ name: "call_tool", arguments: { name: tool, arguments: {} } });
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
}

beforeAll(async () => {
  service = await startService({ port: (await portIsFree(PREFERRED_PORT)) ? PREFERRED_PORT : 0, outbound: () => Response.json({ results: [{ id: 1 }] }) });
  base = service.url.origin;
  key = (await createTenant(service, "learning-console")).key;
  const imported = await service.json("POST", "/v1/tools/import", { key, body: { format: "list", source: "movies", tools: TOOLS } });
  expect(imported.status).toBe(200);
  await chat("Who played in the movie? search the movie first", ["searchMovie", "movieCredits"]);
  await chat("What do people say about the movie? search it first", ["searchMovie", "movieReviews"]);
  ({ browser, page } = await signedInConsole(base, key));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.dispose();
});

describe("the console's learning pages in Chromium", () => {
  it("charts the learning curve from the tenant's observed conversations", async () => {
    const curve = await service.json<{ days: { searches: number; offeredHits: number; sessions: number }[] }>("GET", "/v1/learning-curve", { key });
    const [today] = curve.body.days;
    expect(today?.sessions).toBe(2);
    // The signal weights made first (the alarm's work), so the page and the API show the same ones.
    const calibration = await calibrated(service, "learning-console", key);
    await page.goto(`${base}/console/learning`);
    const points = page.locator("svg#learning-chart circle.share");
    expect(await points.count()).toBe(1);
    expect(await points.first().getAttribute("data-share")).toBe(((today?.offeredHits ?? 0) / (today?.searches ?? 1)).toFixed(3));
    expect(await page.locator("svg#learning-chart rect.sessions").first().getAttribute("data-sessions")).toBe("2");
    expect(await page.locator("svg#learning-chart desc").textContent()).toContain("searches offered the tool called next");
    expect(await page.locator("#observed-sessions").textContent()).toContain("searchMovie → movieCredits");
    // How much each signal counts for this tenant, as the calibration API gives it.
    expect(await page.locator("#signal-weights tbody tr").count()).toBe(Object.keys(calibration.weights).length);
    for (const [signal, weight] of Object.entries(calibration.weights))
      expect(await page.locator(`#signal-weights tr[data-signal="${signal}"] .weight`).textContent()).toMatch(new RegExp(`^${weight}\\b`));
    await a11y(page);
    await screenshot(page, "learning");
  });

  it("shows the words a tool learned on its page, and from how many conversations", async () => {
    const learned = await service.json<{ sources: number; terms: { term: string }[] }>("GET", "/v1/tools/searchMovie/learned-words", { key });
    expect(learned.body.terms.length).toBeGreaterThan(0);
    await page.goto(`${base}/console/tools/searchMovie`);
    const section = page.getByRole("region", { name: "Learned words" });
    expect(await section.locator("li code").allTextContents()).toEqual(learned.body.terms.map((t) => t.term));
    expect(await section.textContent()).toContain(`From ${learned.body.sources} conversation`);
    await a11y(page);
    await screenshot(page, "tool-learned-words");
    // The next test starts on the learning page.
    await page.goto(`${base}/console/learning`);
  });

  it("turns implicit learning off and on from the learning page", async () => {
    await page.getByRole("button", { name: "Turn implicit learning off" }).click();
    await page.waitForURL(/changed/);
    expect((await service.json<{ implicit: boolean }>("GET", "/v1/settings/learning", { key })).body.implicit).toBe(false);
    await page.getByRole("button", { name: "Turn implicit learning on" }).click();
    await page.waitForURL(/changed/);
    expect((await service.json<{ implicit: boolean }>("GET", "/v1/settings/learning", { key })).body.implicit).toBe(true);
  });

  it("shows ranked candidates with why, and learns a marked tool at once", async () => {
    const task = "Which films did this actor appear in";
    await page.goto(`${base}/console/route?task=${encodeURIComponent(task)}`);
    const candidates = page.locator("#route-candidates > li");
    expect(await candidates.count()).toBeGreaterThan(1);
    const before = await candidates.first().getAttribute("data-tool");
    const marked = before === "movieCredits" ? "searchMovie" : "movieCredits";
    await page.getByRole("button", { name: `Mark ${marked} as the right tool` }).click();
    await page.waitForURL(/marked=/);
    expect(await page.getByRole("status").textContent()).toContain(`${marked} is the right tool`);
    expect(await page.locator(`#route-candidates > li[data-tool="${marked}"] .why`).textContent()).toContain("similar earlier task");
    await a11y(page);
    await screenshot(page, "route");
  });

  it("draws the learned transitions first, start to end, every tool on demand, and finds a tool", async () => {
    await page.goto(`${base}/console/graph`);
    await page.waitForSelector("svg#graph[data-drawn]");
    expect(await page.locator("svg#graph g.node.tool").count()).toBe(3);
    const spots = await page.locator("svg#graph g.node").evaluateAll((groups) => groups.map((g) => g.getAttribute("transform") ?? ""));
    expect(new Set(spots).size).toBe(spots.length);
    const xOf = async (id: string) =>
      Number(/translate\(([-\d.]+),/.exec((await page.locator(`svg#graph g.node[data-tool="${id}"]`).getAttribute("transform")) ?? "")?.[1]);
    expect(await xOf("<start>")).toBeLessThan(await xOf("searchMovie"));
    expect(await xOf("searchMovie")).toBeLessThan(await xOf("movieCredits"));
    expect(await xOf("movieCredits")).toBeLessThan(await xOf("<end>"));
    await page.getByRole("button", { name: `Show all ${TOOLS.length} tools` }).click();
    expect(await page.locator("svg#graph g.node.tool").count()).toBe(TOOLS.length);
    await page.getByRole("button", { name: "Show learned transitions only" }).click();
    await page.getByLabel("Find a tool").fill("otherTool7");
    await page.getByLabel("Find a tool").press("Enter");
    await expect.poll(() => page.locator("#graph-panel h2").textContent()).toBe("otherTool7");
    await a11y(page);
    await screenshot(page, "graph-learned");
  });
});
