import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { freePort } from "./ports";

export { freePort };

/** `npm start` (scripts/start.mjs) for end-to-end tests: on this test's ports and state directory. */

const root = resolve(import.meta.dirname, "../..");

export interface Started {
  process: ChildProcess;
  output: () => string;
}

/** Which model the service gets: a model server's base URL (as Ollama would be), the demo model, or none. */
export type ModelChoice = { baseUrl: string } | "demo-model" | "none";

const MODEL_VARS = ["MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME", "EMBEDDING_MODEL", "MODEL_ALLOW_LOOPBACK"];

/** `npm start`'s script with these ports, state and model; resolves once the demo tenant is seeded. */
export async function startService(port: number, stateDir: string, model: ModelChoice): Promise<Started> {
  const inspectorPort = await freePort();
  const env: Record<string, string | undefined> = { ...process.env, CI: "true" };
  for (const name of MODEL_VARS) delete env[name];
  if (typeof model === "object")
    Object.assign(env, { MODEL_ALLOW_LOOPBACK: "true", MODEL_BASE_URL: model.baseUrl, MODEL_API_KEY: "local", MODEL_NAME: "scripted" });
  const args = [
    "scripts/start.mjs",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--state",
    stateDir,
    ...(model === "demo-model" ? ["--demo-model"] : []),
  ];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!output.includes("atc-edge is running at")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  while (!output.includes("try: curl")) await new Promise((r) => setTimeout(r, 100));
  return { process: child, output: () => output };
}

/**
 * Stop `npm start` and everything it started. The script exits before its workerd children have let
 * go of their ports, so this waits for the whole process group to be gone: a restart on the same
 * port would otherwise find it still in use.
 */
export async function stopService(started: Started | undefined): Promise<void> {
  const pid = started?.process.pid;
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, "SIGTERM"); // the whole group: wrangler, its workerd, the program host and the world
  if (await groupGone(pid, 10_000)) return;
  process.kill(-pid, "SIGKILL");
  await groupGone(pid, 5_000);
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function groupGone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}
