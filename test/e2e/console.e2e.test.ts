import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { accessibilityViolations, launchChromium, overlappingGraphLabels, screenshot } from "../helpers/browser";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connectMcp } from "../helpers/mcp-client";
import { createScriptedModel } from "../helpers/scripted-model";
import { ADMIN_TOKEN, createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * The operator console in a real headless Chromium, against the service listening on its own
 * port with the demo tenant loaded as `npm start` loads it, and the scripted model for runs.
 */

/** This test's own port (never npm start's 8787); a free one when another run holds it. */
const PREFERRED_PORT = 8815;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.once("error", () => resolvePort(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolvePort(true)));
  });
}
const DEMO_TOOLS = 87;
const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const fence = (code: string) => `Here is the program.\n\`\`\`ts\n${code}\n\`\`\``;
const WRONG_PROGRAM = [
  'const found = await tools.getSearchPerson({ query: "Bradley Cooper" });',
  "const personId = found.result[0].id;",
  "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: personId });",
  "return credits.cast.length;",
].join("\n");
const RIGHT_PROGRAM = [
  'const found: { results: { id: number }[] } = await tools.getSearchPerson({ query: "Bradley Cooper" });',
  "const personId = found.results[0].id;",
  "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: personId });",
  "return `${credits.cast.length} movies`;",
].join("\n");
const RUN_TOOLS = ["getSearchPerson", "getPersonPersonIdMovieCredits"];
const SLOW_HOST = "slow.example.com";
const SLOW_TOOL_MS = 3_000;

let service: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let base: string;
let demoKey: string;
let demoRunId: string;
let otherRunId: string;
/** Where the demo seeding writes its key file (not the reader's own .wrangler/state). */
let stateDir: string;

async function a11y(target: Page): Promise<void> {
  const violations = await accessibilityViolations(target);
  expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
}

beforeAll(async () => {
  const model = createScriptedModel();
  model.on({ name: "revise", match: (r) => r.lastUserMessage.includes("Attempt 1"), answer: { text: fence(RIGHT_PROGRAM) } });
  model.on({ name: "generate", match: (r) => r.lastUserMessage.includes("How many movies"), answer: { text: fence(WRONG_PROGRAM) } });
  model.on({ name: "evaluator", match: (r) => r.lastUserMessage.includes("score every tool call"), answer: { text: '{"scores":[2,2]}' } });
  service = await startService({
    port: (await portIsFree(PREFERRED_PORT)) ? PREFERRED_PORT : 0,
    outbound: async (request) => {
      const host = new URL(request.url).hostname;
      if (host === "model.atc.test") return model.handle(request);
      if (host === SLOW_HOST) {
        // A slow tool keeps the probe job running long enough to be watched.
        await new Promise((done) => setTimeout(done, SLOW_TOOL_MS));
        return Response.json({ id: 7, name: "slow thing" });
      }
      return new Response("offline", { status: 599 });
    },
  });
  base = service.url.origin;
  stateDir = mkdtempSync(join(tmpdir(), "atc-console-e2e-"));
  demoKey = (await seedDemo(base, ADMIN_TOKEN, stateDir)).key;

  const run = { task: "How many movies has Bradley Cooper acted in?", tools: RUN_TOOLS };
  const made = await service.json<{ id: string; status: string }>("POST", "/v1/runs", { key: demoKey, body: run });
  expect(made.status).toBe(201);
  demoRunId = made.body.id;
  const other = await createTenant(service, "other");
  await service.json("POST", "/v1/tools/import", { key: other.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  const otherRun = await service.json<{ id: string }>("POST", "/v1/runs", { key: other.key, body: run });
  expect(otherRun.status).toBe(201);
  otherRunId = otherRun.body.id;

  browser = await launchChromium();
  // bypassCSP only so axe-core can be injected; the CSP itself is checked on the response headers.
  context = await browser.newContext({ viewport: { width: 1280, height: 860 }, bypassCSP: true, acceptDownloads: true });
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.dispose();
  if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
});

describe("operator console in Chromium", () => {
  it("refuses a wrong key with a message, not JSON", async () => {
    await page.goto(`${base}/console`);
    expect(page.url()).toBe(`${base}/console/sign-in`);
    await a11y(page);
    await page.getByLabel("Tenant API key").fill("atc_demo_notTheRightSecret000000000000");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("That API key is not valid");
    expect(await page.content()).not.toContain('"type":"https://atc-edge.dev/problems/');
    await screenshot(page, "sign-in-error");
  });

  it("signs in with the keyboard only, keeps the key in a sealed HttpOnly cookie, and lists the 87 demo tools", async () => {
    await page.goto(`${base}/console/sign-in`);
    await page.keyboard.press("Tab"); // skip link
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.keyboard.press("Tab"); // brand link
    await page.keyboard.press("Tab"); // the key field
    expect(await page.evaluate("document.activeElement?.id")).toBe("api-key");
    await page.keyboard.type(demoKey);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${base}/console/tools`);

    const [cookie] = await context.cookies(`${base}/console`);
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.secure).toBe(true);
    expect(cookie?.sameSite).toBe("Strict");
    expect(cookie?.value).not.toContain(demoKey.slice(-12));
    expect(await page.content()).not.toContain(demoKey);

    await expect.poll(() => page.locator("#tools tbody tr").count()).toBe(DEMO_TOOLS);
    expect(await page.locator("#tools caption").textContent()).toContain(`${DEMO_TOOLS} tools`);
    // The run made in setup shows up as calls with a success rate.
    expect(await page.locator('tr[data-tool="getPersonPersonIdMovieCredits"] td.num').last().textContent()).toBe("100 %");
    await a11y(page);
    await screenshot(page, "tools");
  });

  it("starts a probe and watches every tool's progress bar reach done, live", async () => {
    const slow = { name: "getSlowThing", method: "GET", url: `https://${SLOW_HOST}/things/{thing_id}` };
    const imported = await service.json("POST", "/v1/tools/import", { key: demoKey, body: { format: "list", source: "slow", tools: [slow] } });
    expect(imported.status).toBe(200);
    await page.reload();
    await page.getByRole("button", { name: `Probe ${DEMO_TOOLS + 1} undocumented tools` }).click();
    await page.waitForURL(/\/console\/jobs\/job_/);
    // The slow tool holds the job open: the page is served while it runs, then follows it live.
    expect(await page.locator("#job").getAttribute("data-live")).toMatch(/\/events$/);
    await screenshot(page, "job-running");
    const overall = page.locator("#job progress").first();
    await expect.poll(async () => Number(await overall.getAttribute("value")), { timeout: 90_000, interval: 500 }).toBe(1);
    await expect.poll(() => page.locator("#job [data-field=status] .badge").first().textContent()).toBe("succeeded");
    // Set by the page's script when the server-sent events said the job finished: the bars moved live.
    expect(await page.locator("#job").getAttribute("data-finished")).toBe("true");
    const bars = await Promise.all((await page.locator("#job-tools progress").all()).map(async (bar) => Number(await bar.getAttribute("value"))));
    expect(bars).toHaveLength(DEMO_TOOLS + 1);
    expect(bars.every((v) => v === 1)).toBe(true);
    await a11y(page);
    await screenshot(page, "job");
    await page.goto(`${base}/console/tools`);
    expect(await page.locator("#tools .badge", { hasText: "documented" }).count()).toBeGreaterThan(0);
    await page.goto(`${base}/console/jobs`);
    await a11y(page);
    await screenshot(page, "jobs");
  }, 120_000);

  it("draws the learned transitions first, start to end, every tool on demand (the 87 demo tools and the slow one), finds and selects a tool, and downloads the SVG", async () => {
    await page.goto(`${base}/console/graph`);
    await page.waitForSelector("svg#graph[data-drawn]");
    const learned = await page.locator("svg#graph g.node.tool").count();
    expect(learned).toBeGreaterThan(1);
    expect(learned).toBeLessThan(DEMO_TOOLS + 1);
    expect(await page.locator("svg#graph line.edge").count()).toBeGreaterThan(0);
    // Start on the left, end on the right; no two learned nodes share a spot (labels apart).
    const spots = await page.locator("svg#graph g.node").evaluateAll((groups) => groups.map((g) => g.getAttribute("transform") ?? ""));
    expect(new Set(spots).size).toBe(spots.length);
    const xOf = (transform: string) => Number(/translate\(([-\d.]+),/.exec(transform)?.[1]);
    const startX = xOf((await page.locator("svg#graph g.node.special").first().getAttribute("transform")) ?? "");
    expect(Math.min(...spots.map(xOf))).toBe(startX);
    await page.getByRole("button", { name: `Show all ${DEMO_TOOLS + 1} tools` }).click();
    expect(await page.locator("svg#graph g.node.tool").count()).toBe(DEMO_TOOLS + 1);
    // Long names (TMDB's) in the grid of every tool stay inside their column.
    expect(await overlappingGraphLabels(page)).toEqual([]);
    await page.getByRole("button", { name: "Show learned transitions only" }).click();
    await page.getByLabel("Find a tool").fill("getSlowThing");
    await page.getByLabel("Find a tool").press("Enter");
    await expect.poll(() => page.locator("#graph-panel h2").textContent()).toBe("getSlowThing");
    expect(await page.locator("svg#graph g.node.tool").count()).toBe(DEMO_TOOLS + 1);
    await page.locator('svg#graph g.node[data-tool="getSearchPerson"]').focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#graph-panel").textContent()).toContain("getPersonPersonIdMovieCredits");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download SVG" }).click()]);
    const svg = readFileSync(await download.path(), "utf8");
    expect(svg.startsWith("<?xml")).toBe(true);
    expect(svg.match(/class="node tool/g)).toHaveLength(DEMO_TOOLS + 1);
    await a11y(page);
    await screenshot(page, "graph");
  });

  it("charts the learning curve from observed conversations, and the routing page learns a marked tool at once", async () => {
    // A chatbot over MCP: a search, then a call, then the end of its session; no feedback.
    const client = await connectMcp(service, demoKey);
    await client.callTool({ name: "find_tools", arguments: { task: "Find the person Bradley Cooper", k: 5 } });
    await client.callTool({ name: "call_tool", arguments: { name: "getSearchPerson", arguments: { query: "Bradley Cooper" } } });
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
    const curve = await service.json<{ days: { day: string; searches: number; offeredHits: number; sessions: number }[] }>("GET", "/v1/learning-curve", {
      key: demoKey,
    });
    const [today] = curve.body.days;
    expect(today?.sessions).toBe(1);

    await page.goto(`${base}/console/learning`);
    const points = page.locator("svg#learning-chart circle.share");
    expect(await points.count()).toBe(1);
    expect(await points.first().getAttribute("data-share")).toBe(((today?.offeredHits ?? 0) / (today?.searches ?? 1)).toFixed(3));
    expect(await page.locator("svg#learning-chart rect.sessions").first().getAttribute("data-sessions")).toBe("1");
    expect(await page.locator("#observed-sessions").textContent()).toContain("Find the person Bradley Cooper");
    await a11y(page);
    await screenshot(page, "learning");

    const task = "Which films did this actor appear in";
    await page.goto(`${base}/console/route?task=${encodeURIComponent(task)}`);
    const candidates = page.locator("#route-candidates > li");
    expect(await candidates.count()).toBeGreaterThan(1);
    const marked = await candidates.nth(1).getAttribute("data-tool");
    await page.getByRole("button", { name: `Mark ${marked} as the right tool` }).click();
    await page.waitForURL(/marked=/);
    expect(await page.getByRole("status").textContent()).toContain(`${marked} is the right tool`);
    expect(await page.locator(`#route-candidates > li[data-tool="${marked}"] .why`).textContent()).toContain("similar earlier task");
    await a11y(page);
    await screenshot(page, "route");
  });

  it("shows a run's task, highlighted programs, trace, attributed error and answer", async () => {
    await page.goto(`${base}/console/runs`);
    expect(await page.locator("#runs tbody tr").count()).toBe(1);
    await a11y(page);
    await screenshot(page, "runs");
    await page.getByRole("link", { name: "How many movies has Bradley Cooper acted in?" }).click();
    await page.waitForURL(`${base}/console/runs/${demoRunId}`);
    expect(await page.locator("pre.program").count()).toBe(2);
    expect(await page.locator("pre.program .hljs-keyword").count()).toBeGreaterThan(0);
    expect(await page.locator("pre.program").first().textContent()).toContain("found.result[0].id");
    expect(await page.locator("table.trace").first().textContent()).toContain("getSearchPerson");
    expect(await page.getByRole("note").textContent()).toContain("Attributed to getSearchPerson");
    expect(await page.locator("#answer").textContent()).toMatch(/\d+ movies/);
    await a11y(page);
    await screenshot(page, "run");
  });

  it("streams a new run's progress from the page and opens it when done", async () => {
    await page.goto(`${base}/console/runs`);
    await page.getByLabel("Start a run: the task").fill("How many movies has Bradley Cooper acted in, live?");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith("/console/runs/run_") && !url.pathname.endsWith(demoRunId), { timeout: 60_000 });
    expect(await page.locator("h1").textContent()).toBe("How many movies has Bradley Cooper acted in, live?");
  }, 60_000);

  it("does not show another tenant's run", async () => {
    const response = await page.goto(`${base}/console/runs/${otherRunId}`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole("alert").textContent()).toContain(`No run ${otherRunId}`);
    await screenshot(page, "run-not-found");
  });

  it("refuses a form post without the session's CSRF token and sends security headers", async () => {
    const refused = await page.request.post(`${base}/console/probe`, { form: { csrf: "forged" }, headers: { origin: base } });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain("This form is no longer valid");
    const headers = (await page.request.get(`${base}/console/tools`)).headers();
    expect(headers["content-security-policy"]).toContain("script-src 'self'");
  });

  it("serves the API reference at /docs, usable with the console session's key without showing it", { timeout: 60_000 }, async () => {
    await page.goto(`${base}/docs`);
    await page.getByRole("heading", { name: "atc-edge", exact: true }).waitFor({ timeout: 30_000 });
    // The first server is the service itself (a typed key); the console session is the second.
    expect(await page.getByText("This service: send your tenant API key").count()).toBeGreaterThan(0);
    expect(await page.content()).not.toContain(demoKey);
    await screenshot(page, "docs");
    // What "Try it" does with the first server (the console session): the same origin, the session's key.
    const listed = (await page.evaluate(`fetch("/console/api/v1/tools").then(async (r) => ({ status: r.status, body: await r.json() }))`)) as {
      status: number;
      body: { tools: unknown[] };
    };
    expect(listed.status).toBe(200);
    expect(listed.body.tools).toHaveLength(DEMO_TOOLS + 1);
    const crossSite = await page.request.post(`${base}/console/api/v1/probe`, { data: {}, headers: { origin: "https://evil.example" } });
    expect(crossSite.status()).toBe(403);
  });

  it("shows the tool page with versions and actions, and the admin's tenant list", async () => {
    await page.goto(`${base}/console/tools/getSearchPerson`);
    expect(await page.locator(".card").count()).toBeGreaterThan(0);
    expect(await page.getByRole("button", { name: "Optimise description (Play2Prompt)" }).count()).toBe(1);
    await a11y(page);
    await screenshot(page, "tool");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/sign-in/);
    await page.getByText("Administrators").click();
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in as administrator" }).click();
    await page.waitForURL(`${base}/console/admin`);
    expect(await page.locator("#tenants tbody tr").count()).toBe(2);
    await a11y(page);
    await screenshot(page, "admin");
  });
});
