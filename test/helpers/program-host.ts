import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { Miniflare } from "miniflare";
import { watchProgramHost, type WatchdogTiming } from "../../scripts/program-host-watchdog.mjs";

/**
 * The program host (functions/sandbox/program-host) as tests and benches run it: its own
 * Miniflare, so its own workerd process, on a free loopback port, with a fresh secret, and the
 * same watchdog as `npm start` restarting it on the same port when it stops answering.
 */

export interface ProgramHostProcess {
  /** `127.0.0.1:port`, for a service binding to an external address. */
  address: string;
  secret: string;
  /** How many times the watchdog restarted it. */
  restarts: number;
  /** End the process at once, as a crash would (the watchdog brings it back). */
  kill(): Promise<void>;
  /** Stop the process without ending it (SIGSTOP), as a livelocked V8 looks from outside. Linux only. */
  freeze(): void;
  dispose(): Promise<void>;
}

const BUNDLE = ".test-build/program-host/entry.js";

function hostOptions(secret: string, port: number) {
  return {
    host: "127.0.0.1",
    port,
    modules: true,
    modulesRules: [
      { type: "Text" as const, include: ["**/*.js.txt"] },
      { type: "Data" as const, include: ["**/*.wasm.bin"] },
    ],
    scriptPath: BUNDLE,
    compatibilityDate: "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
    workerLoaders: { LOADER: {} },
    bindings: { PROGRAM_HOST_SECRET: secret },
  };
}

/** Start a program host with its watchdog (`watchdog`: faster timing for tests of the watchdog). */
export async function startProgramHost(watchdog: Partial<WatchdogTiming> = {}): Promise<ProgramHostProcess> {
  if (!existsSync(BUNDLE)) throw new Error(`no program host bundle at ${BUNDLE}: run through vitest (globalSetup builds it)`);
  const secret = randomBytes(24).toString("hex");
  let mf: Miniflare | undefined = new Miniflare(hostOptions(secret, 0));
  const port = Number((await mf.ready).port);
  let disposed = false;
  const host: ProgramHostProcess = {
    address: `127.0.0.1:${port}`,
    secret,
    restarts: 0,
    async kill() {
      const running = mf;
      mf = undefined;
      await running?.dispose();
    },
    freeze() {
      process.kill(pidListeningOn(port), "SIGSTOP");
    },
    async dispose() {
      disposed = true;
      watch.stop();
      await host.kill();
    },
  };
  const watch = watchProgramHost({
    ...watchdog,
    healthUrl: `http://${host.address}/health`,
    async restart() {
      if (disposed) return;
      await host.kill();
      const next = new Miniflare(hostOptions(secret, port));
      await next.ready;
      if (disposed) return void (await next.dispose());
      mf = next;
      host.restarts++;
    },
  });
  return host;
}

/** The process listening on TCP `port` on this machine (Linux: /proc/net/tcp and /proc/<pid>/fd). */
function pidListeningOn(port: number): number {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address ends with the port; state 0A is LISTEN; field 9 is the socket's inode.
      if (fields[1]?.endsWith(hexPort) === true && fields[3] === "0A" && fields[9] !== undefined) inodes.add(fields[9]);
    }
  }
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode !== undefined && inodes.has(inode)) return Number(entry);
      } catch {
        // gone meanwhile
      }
    }
  }
  throw new Error(`no process of this user listens on port ${port}`);
}
