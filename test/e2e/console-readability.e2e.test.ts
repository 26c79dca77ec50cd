import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibilityViolations, overlappingGraphLabels, screenshot, signedInConsole } from "../helpers/browser";
import { connectMcp } from "../helpers/mcp-client";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * What a user reads in the console after the first hour (issue 46), in a real headless Chromium:
 * the routing page offers example tasks from the tenant's own catalog, the learning chart's legend
 * stays inside the chart, and the graph's labels are readable at the default zoom.
 */

const CHAIN = ["findCity", "cityWeather", "weatherAlerts", "alertDetails", "nearbyShelters", "shelterRoute"];
const TOOLS: { name: string; method: string; url: string; description?: string }[] = [
  ...CHAIN.map((name, i) => ({
    name,
    method: "GET",
    url: `https://api.example.com/weather/${i}`,
    description: `Step ${i + 1} of a storm plan: ${name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)} for a place. Returns JSON.`,
  })),
  { name: "searchMovie", method: "GET", url: "https://api.example.com/search/movie", description: "Search for a movie by its title" },
  { name: "movieCredits", method: "GET", url: "https://api.example.com/movie/credits", description: "Get the cast and crew of a movie" },
  { name: "movieReviews", method: "GET", url: "https://api.example.com/movie/reviews", description: "Get the user reviews of a movie" },
  { name: "noDescription", method: "GET", url: "https://api.example.com/misc" },
];

let service: TestService;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  service = await startService({ port: 0, outbound: () => Response.json({ ok: true }) });
  base = service.url.origin;
  const { key } = await createTenant(service, "readable-console");
  const weather = await service.json("POST", "/v1/tools/import", { key, body: { format: "list", source: "weather", tools: TOOLS.slice(0, CHAIN.length) } });
  expect(weather.status).toBe(200);
  const movies = await service.json("POST", "/v1/tools/import", { key, body: { format: "list", source: "movies", tools: TOOLS.slice(CHAIN.length) } });
  expect(movies.status).toBe(200);
  // A long learned chain: start, six tools, end: eight columns, wider than the page.
  const taught = await service.json("POST", "/v1/graph/trajectories", {
    key,
    body: { trajectories: [{ id: "storm", tools: CHAIN, task: "Plan for the storm" }] },
  });
  expect(taught.status).toBe(200);
  // One observed conversation, so the learning page draws its chart (and the legend).
  const client = await connectMcp(service, key);
  await client.callTool({ name: "find_tools", arguments: { task: "Who played in the movie? search it first", k: 5 } });
  for (const tool of ["searchMovie", "movieCredits"]) await client.callTool({ name: "call_tool", arguments: { name: tool, arguments: {} } });
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
  ({ browser, page } = await signedInConsole(base, key));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.dispose();
});

/** The first sentence of each imported description, as a user would type it. */
const catalogTasks = new Map(
  TOOLS.flatMap((t) => (t.description === undefined ? [] : [[t.description.split(/(?<=\.)\s/)[0]?.replace(/\.$/, ""), t.name] as const])),
);

describe("the console, readable at first sight", () => {
  it("offers example tasks from the tenant's catalog, and a click fills the task", async () => {
    await page.goto(`${base}/console/route`);
    const examples = page.getByRole("region", { name: "Example tasks" }).getByRole("link");
    const texts = await examples.allTextContents();
    expect(texts.length).toBeGreaterThanOrEqual(2);
    for (const text of texts) expect(catalogTasks.has(text), text).toBe(true);
    // Spread over the sources, not all from the first one.
    expect(new Set(texts.map((text) => (CHAIN.includes(catalogTasks.get(text) ?? "") ? "weather" : "movies"))).size).toBe(2);
    expect((await accessibilityViolations(page)).map((v) => v.id)).toEqual([]);
    await screenshot(page, "route-examples");
    const chosen = texts.find((text) => catalogTasks.get(text) === "movieReviews") ?? (texts[0] as string);
    await examples.filter({ hasText: chosen }).click();
    await page.waitForURL(/task=/);
    expect(await page.getByLabel("Task").inputValue()).toBe(chosen);
    // The example is one the catalog answers: its own tool is among the candidates.
    expect(await page.locator("#route-candidates > li").evaluateAll((items) => items.map((li) => li.getAttribute("data-tool")))).toContain(
      catalogTasks.get(chosen),
    );
  });

  it("keeps the learning chart's legend inside the chart", async () => {
    await page.goto(`${base}/console/learning`);
    const legend = page.locator("svg#learning-chart text", { hasText: "conversations learned" });
    expect(await legend.count()).toBe(1);
    const chart = await page.locator("svg#learning-chart").boundingBox();
    const box = await legend.boundingBox();
    if (chart === null || box === null) throw new Error("the chart or its legend is not rendered");
    expect(box.x).toBeGreaterThanOrEqual(chart.x);
    expect(box.x + box.width).toBeLessThanOrEqual(chart.x + chart.width);
    expect(box.y + box.height).toBeLessThanOrEqual(chart.y + chart.height);
    await screenshot(page, "learning-legend");
  });

  it("draws the graph's labels at a readable size at the default zoom", async () => {
    await page.goto(`${base}/console/graph`);
    await page.waitForSelector("svg#graph[data-drawn]");
    const nodes = await page.locator("svg#graph g.node").count();
    expect(nodes).toBeGreaterThanOrEqual(CHAIN.length + 2);
    // The size on screen: the computed font size times the drawing's scale.
    // (A string: the type check knows no DOM.)
    const sizes = (await page.evaluate(
      `[...document.querySelectorAll("svg#graph g.node text")].map((label) => parseFloat(getComputedStyle(label).fontSize) * (label.getScreenCTM()?.a ?? 0))`,
    )) as number[];
    expect(sizes.length).toBe(nodes);
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(10);
    // No label drawn over another.
    expect(await overlappingGraphLabels(page)).toEqual([]);
    await screenshot(page, "graph-labels");
    // Wider than the page, the drawing scrolls: the last column's labels are reachable.
    const last = page.locator(`svg#graph g.node[data-tool="shelterRoute"]`);
    await last.scrollIntoViewIfNeeded();
    expect(await last.isVisible()).toBe(true);
    expect((await accessibilityViolations(page)).map((v) => v.id)).toEqual([]);
    await screenshot(page, "graph-labels-scrolled");
  });
});
