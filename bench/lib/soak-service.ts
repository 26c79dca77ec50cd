import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

/**
 * `npm start` as the soak drives it: its own port, inspector port and state directory, a local
 * model server (MODEL_ALLOW_LOOPBACK), and the workerd processes it runs, found in /proc so their
 * memory can be sampled while traffic flows.
 */

export interface StartedService {
  child: ChildProcess;
  baseUrl: string;
  demoKey: string;
  output: () => string;
}

export async function startNpmStart(
  root: string,
  options: { port: number; inspectorPort: number; stateDir: string; modelBaseUrl: string },
): Promise<StartedService> {
  const child = spawn(
    process.execPath,
    ["scripts/start.mjs", "--port", String(options.port), "--inspector-port", String(options.inspectorPort), "--state", options.stateDir],
    {
      cwd: root,
      env: { ...process.env, MODEL_ALLOW_LOOPBACK: "true", MODEL_BASE_URL: options.modelBaseUrl, MODEL_API_KEY: "local", MODEL_NAME: "scripted", CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  let output = "";
  // Only the tail is kept: a soak's log is long.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-2_000_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const deadline = Date.now() + 240_000;
  while (!/try: curl/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const demoKey = /demo tenant API key[^\n]*\n\s+(atc_\S+)/.exec(output)?.[1];
  if (demoKey === undefined) throw new Error(`no demo key in npm start's output:\n${output.slice(-2000)}`);
  return { child, baseUrl: `http://127.0.0.1:${options.port}`, demoKey, output: () => output };
}

export async function stopNpmStart(started: StartedService): Promise<void> {
  const { child } = started;
  if (child.pid === undefined || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid, "SIGTERM"); // the group: wrangler, its workerd, the program host
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
}

export type WorkerdRole = "service" | "program host" | "wrangler proxy";

function parentOf(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces) start after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function descends(pid: number, ancestor: number): boolean {
  for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 10; hops += 1) {
    if (p === ancestor) return true;
    p = parentOf(p);
  }
  return false;
}

/** The workerd processes under `npm start`'s process, by role (found afresh each time: a restarted program host is a new process). */
export function workerdProcesses(rootPid: number): { pid: number; role: WorkerdRole }[] {
  const found: { pid: number; role: WorkerdRole }[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (!cmdline.includes("workerd\u0000serve") || !descends(pid, rootPid)) continue;
    // start.mjs starts the program host itself; wrangler starts the service (with the inspector) and its proxy.
    const role: WorkerdRole = parentOf(pid) === rootPid ? "program host" : cmdline.includes("--inspector-addr") ? "service" : "wrangler proxy";
    found.push({ pid, role });
  }
  return found;
}

/** Resident memory of a process in MiB (undefined once it is gone). */
export function residentMib(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}
