/**
 * The console's Graph page at 1,000 tools in headless Chromium: page weight and time to first render.
 *
 *   node bench/run.mjs console-graph [--skip-build] [--tools=1000] [--degree=3] [--loads=5]
 *
 * The service runs as the integration tests run it (wrangler bundles, Miniflare, SQLite Durable
 * Objects) and listens on a free loopback port. A tenant gets `--tools` tools (StableToolBench's
 * operations, then renamed copies; lib/tool-corpus.ts) and seeded random walks giving each tool
 * ≈ `--degree` observed successors. Chromium (Debian's package, through playwright-core) signs in,
 * then loads /console/graph `--loads` times, each in a fresh browser context (signed in, its HTTP
 * cache empty: a first visit), and reports:
 *   weight      bytes of every response of the page load (document, stylesheet, script), as sent
 *               (local workerd does not compress) and gzip-compressed here for comparison
 *   first paint the browser's first-contentful-paint (the page's text, before the drawing)
 *   drawn       the `graph-drawn` mark the page's script sets once the SVG is in the document
 *               (layout of all nodes and edges included), from navigation start
 */
import { gzipSync } from "node:zlib";
import buildBundles from "../test/helpers/global-setup";
import { launchChromium } from "../test/helpers/browser";
import { startService } from "../test/helpers/service";
import { setUpTenant } from "./lib/bench-service";
import { syntheticWalks, toolItems } from "./lib/tool-corpus";
import { machineLine, summary } from "./lib/stats";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const TOOLS = Number(option("tools", "1000"));
const DEGREE = Number(option("degree", "3"));
const LOADS = Number(option("loads", "5"));

if (!process.argv.includes("--skip-build")) buildBundles();
const service = await startService({ port: 0 });
const base = service.url.origin;
const items = toolItems(TOOLS);
const names = items.map((item) => item.name);
const setup = await setUpTenant(service, "console-bench", items, syntheticWalks(names, DEGREE, 15));

const browser = await launchChromium();
try {
  const viewport = { width: 1280, height: 860 };
  const signIn = await browser.newContext({ viewport });
  const signInPage = await signIn.newPage();
  await signInPage.goto(`${base}/console/sign-in`);
  await signInPage.getByLabel("Tenant API key").fill(setup.key);
  await signInPage.getByRole("button", { name: "Sign in", exact: true }).click();
  await signInPage.waitForURL(`${base}/console/tools`);
  // Each load gets a context of its own with the session cookie: CDP's Network.setCacheDisabled on
  // one long-lived page still let Chromium revalidate the assets (304s, weighing nothing).
  const signedIn = await signIn.storageState();
  await signIn.close();

  const drawn: number[] = [];
  const firstPaint: number[] = [];
  let weight: { name: string; bytes: number; gzip: number }[] = [];
  for (let load = 0; load < LOADS; load += 1) {
    const context = await browser.newContext({ viewport, storageState: signedIn });
    const page = await context.newPage();
    const responses: Promise<{ name: string; bytes: number; gzip: number }>[] = [];
    const onResponse = (response: import("playwright-core").Response) => {
      responses.push(
        (async () => {
          const sizes = await response.request().sizes();
          const name = new URL(response.url()).pathname;
          // A cache's answer would make the page look lighter than a first visit is.
          if (response.status() === 304) throw new Error(`${name} answered 304 from a cache that should be empty`);
          // A redirect's body is not given to the page (Playwright refuses to read it): its
          // headers and the body size the network reported are what it weighs.
          if (response.status() >= 300 && response.status() < 400) {
            const bytes = sizes.responseHeadersSize + sizes.responseBodySize;
            return { name: `${name} (${response.status()})`, bytes, gzip: bytes };
          }
          const body = await response.body();
          return {
            name,
            bytes: sizes.responseHeadersSize + body.byteLength,
            gzip: sizes.responseHeadersSize + gzipSync(body).byteLength,
          };
        })(),
      );
    };
    page.on("response", onResponse);
    await page.goto(`${base}/console/graph`);
    await page.waitForSelector("svg#graph[data-drawn]", { timeout: 120_000 });
    page.off("response", onResponse);
    weight = await Promise.all(responses);
    const marks = (await page.evaluate(`({
      drawn: performance.getEntriesByName("graph-drawn")[0]?.startTime ?? NaN,
      paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
      nodes: document.querySelectorAll("svg#graph g.node.tool").length,
      edges: document.querySelectorAll("svg#graph line.edge").length,
    })`)) as { drawn: number; paint: number; nodes: number; edges: number };
    if (marks.nodes !== TOOLS) throw new Error(`the page drew ${marks.nodes} tool nodes, not ${TOOLS}`);
    if (load === 0) console.log(`drawn: ${marks.nodes} tool nodes, ${marks.edges} edges`);
    drawn.push(marks.drawn);
    firstPaint.push(marks.paint);
    await context.close();
  }

  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(machineLine());
  console.log(`Graph page, ${TOOLS} tools, ≈${DEGREE} successors each, ${LOADS} loads, each a first visit (empty cache)`);
  for (const r of weight) console.log(`  ${r.name.padEnd(28)} ${kb(r.bytes).padStart(10)} as sent, ${kb(r.gzip).padStart(10)} gzip`);
  const total = weight.reduce((sum, r) => sum + r.bytes, 0);
  const totalGzip = weight.reduce((sum, r) => sum + r.gzip, 0);
  console.log(`  total                        ${kb(total).padStart(10)} as sent, ${kb(totalGzip).padStart(10)} gzip`);
  const d = summary(drawn);
  const p = summary(firstPaint.filter((t) => Number.isFinite(t)));
  console.log(`first contentful paint p50 ${p.p50.toFixed(0)} ms (max ${p.max.toFixed(0)}; reported in ${p.n} of ${LOADS} loads)`);
  console.log(`graph drawn (SVG in the document) p50 ${d.p50.toFixed(0)} ms (max ${d.max.toFixed(0)})`);
} finally {
  await browser.close();
  await service.dispose();
}
