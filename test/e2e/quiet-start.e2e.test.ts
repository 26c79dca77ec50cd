import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports";

/**
 * `npm start` as a newcomer runs it (no CI variable, no model settings, a fresh state directory):
 * a healthy start prints no stack trace, warning or error, and every service binding it shows is
 * connected. These machines are offline, so this is the offline start; nothing it does reaches
 * for the network (no banner update check, no Request.cf download, no metrics).
 */

const root = resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(join(tmpdir(), "atc-quiet-start-"));
let child: ChildProcess;
let output = "";

beforeAll(async () => {
  const ports = [await freePort(), await freePort()].map(String);
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ["CI", "CLOUDFLARE_CF_FETCH_ENABLED", "WRANGLER_HIDE_BANNER", "WRANGLER_SEND_METRICS", "MODEL_BASE_URL", "MODEL_API_KEY"])
    delete env[name];
  child = spawn(process.execPath, ["scripts/start.mjs", "--port", ports[0] ?? "", "--inspector-port", ports[1] ?? "", "--state", stateDir], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 150_000;
  while (!output.includes("try: curl")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // Anything printed just after the demo tenant is loaded counts too.
  await new Promise((r) => setTimeout(r, 2_000));
}, 180_000);

afterAll(async () => {
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid, "SIGTERM"); // the whole group: wrangler and its workerd
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  }
  rmSync(stateDir, { recursive: true, force: true });
});

describe("npm start on a healthy machine", () => {
  it("prints no stack trace, warning or error", () => {
    const lines = output.split("\n");
    expect(
      lines.filter((line) => /^\s+at\s/.test(line)),
      output,
    ).toEqual([]);
    expect(
      lines.filter((line) => /\b(warn|warning|error|ENOTFOUND|failed)\b/i.test(line)),
      output,
    ).toEqual([]);
    expect(output).not.toContain("might be out of date");
    expect(output).not.toContain("update available");
  });

  it("builds once and shows its bindings once, every service binding connected", () => {
    expect(output).not.toMatch(/changed, restarting build/);
    expect(output.match(/has access to the following bindings/g)).toHaveLength(1);
    expect(output.split("\n").filter((line) => line.startsWith("env.") && line.includes("[not connected]"))).toEqual([]);
    expect(output).toMatch(/env\.SIMULATED_WORLD \(atc-edge-world\)\s+Worker\s+local \[connected\]/);
    expect(output).toMatch(/env\.PROGRAM_HOST \(atc-edge-program-host\)\s+Worker\s+local \[connected\]/);
  });

  it("says where it runs and gives the demo key", () => {
    expect(output).toMatch(/atc-edge is running at http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/demo tenant API key/);
  });
});
