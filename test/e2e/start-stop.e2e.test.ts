import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports";
import { commandOf, descendantsOf, listening, stillRunning } from "../helpers/process-tree";

/**
 * `npm start` stops everything it started when the script alone is signalled (as a process
 * manager or an IDE does: not the whole process group, as a terminal's Ctrl-C does), and answers
 * a port already in use with one line, before anything starts.
 */

const root = resolve(import.meta.dirname, "../..");
const stateDirs: string[] = [];
/** Whatever a test started, killed at the end if the script left it behind. */
const started: number[] = [];

afterAll(() => {
  for (const pid of stillRunning(started)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // ended meanwhile
    }
  }
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

function startScript(port: number, inspectorPort: number): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const stateDir = mkdtempSync(join(tmpdir(), "atc-start-stop-"));
  stateDirs.push(stateDir);
  const env: Record<string, string | undefined> = { ...process.env, CI: "true" };
  for (const name of ["MODEL_BASE_URL", "MODEL_API_KEY"]) delete env[name];
  const args = ["scripts/start.mjs", "--port", String(port), "--inspector-port", String(inspectorPort), "--state", stateDir];
  // Its own group, as a process manager starts it; signals below go to the script alone.
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  if (child.pid !== undefined) started.push(child.pid);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
  return { child, output: () => output, exited };
}

/** Resolves when `text` appears in the output, rejects when the script exits first. */
function outputShows(script: ReturnType<typeof startScript>, text: string): Promise<void> {
  return new Promise((resolveShown, reject) => {
    const check = () => {
      if (script.output().includes(text)) resolveShown();
    };
    script.child.stdout?.on("data", check);
    script.child.stderr?.on("data", check);
    void script.exited.then(() => reject(new Error(`npm start exited before "${text}":\n${script.output().slice(-3000)}`)));
    check();
  });
}

describe("npm start's end", () => {
  it("stops everything it started on SIGINT to the script alone: no process left, no port open", async () => {
    const [port, inspectorPort] = [await freePort(), await freePort()];
    const script = startScript(port, inspectorPort);
    await outputShows(script, "try: curl");
    const pid = script.child.pid as number;
    const descendants = descendantsOf(pid);
    started.push(...descendants);
    const programHostPort = Number(/program host on 127\.0\.0\.1:(\d+)/.exec(script.output())?.[1]);
    expect(descendants.length, "wrangler, workerd and the program host's and world's workerd").toBeGreaterThanOrEqual(3);
    expect(await listening(port)).toBe(true);

    process.kill(pid, "SIGINT");
    await script.exited;

    const left = stillRunning(descendants);
    expect(
      left.map((p) => `${p}: ${commandOf(p)}`),
      script.output().slice(-2000),
    ).toEqual([]);
    expect(await listening(port)).toBe(false);
    expect(await listening(inspectorPort)).toBe(false);
    expect(await listening(programHostPort)).toBe(false);
  }, 240_000);

  it("answers a port already in use with one line, no stack trace", async () => {
    const taken: Server = createServer();
    const port = await new Promise<number>((resolvePort) => taken.listen(0, "127.0.0.1", () => resolvePort((taken.address() as { port: number }).port)));
    const script = startScript(port, await freePort());
    try {
      // On a taken port it must end by itself; a script that does not is stopped at the test's end.
      const code = await Promise.race([script.exited, new Promise<"running">((r) => setTimeout(() => r("running"), 150_000))]);
      const lines = script
        .output()
        .split("\n")
        .filter((line) => line.trim() !== "");
      expect(script.output()).not.toContain("kj::Exception");
      expect(lines.filter((line) => /^\s+at\s/.test(line))).toEqual([]);
      expect(lines, script.output()).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port}`);
      expect(code).toBe(1);
    } finally {
      started.push(...descendantsOf(script.child.pid as number));
      taken.close();
    }
  }, 200_000);
});
