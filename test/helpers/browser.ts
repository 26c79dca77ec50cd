import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

/**
 * A real headless Chromium for browser tests: Debian's `chromium` package (installed by .ci/run),
 * driven by playwright-core through `executablePath`; playwright never downloads a browser.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Where browser tests write their screenshots (gitignored; docs/console/ keeps one committed set). */
export const ARTIFACTS_DIR = resolve("test-artifacts/console");

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  // --no-sandbox: CI runs as root, where Chromium's own sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
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
