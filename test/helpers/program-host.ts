import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { Miniflare } from "miniflare";
import { pidListeningOn, watchProgramHost, yieldToService, type WatchdogTiming } from "../../scripts/program-host-process.mjs";

/**
 * The program host (functions/sandbox/program-host) as tests and benches run it: its own
 * Miniflare, so its own workerd process, on a free loopback port, with a fresh secret, at a lower
 * CPU priority than the service, and the same watchdog as `npm start` restarting it on the same
 * port when it stops answering.
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
  yieldToService(port);
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
      const pid = pidListeningOn(port);
      if (pid === undefined) throw new Error(`no process listens on port ${port}`);
      process.kill(pid, "SIGSTOP");
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
      yieldToService(port);
      if (disposed) return void (await next.dispose());
      mf = next;
      host.restarts++;
    },
  });
  return host;
}

