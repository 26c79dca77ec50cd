import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, it, vi } from "vitest";
import { watchProgramHost } from "../../scripts/program-host-process.mjs";

/**
 * The program host's watchdog (scripts/program-host-process.mjs) on its own: every health check
 * ends within its timeout whatever the request does, so a host that stops answering is always
 * restarted.
 */

const TIMING = { intervalMs: 10, timeoutMs: 50, failuresBeforeRestart: 3 };

let stopWatching = (): void => undefined;
afterEach(() => {
  stopWatching();
  vi.unstubAllGlobals();
});

/** Watch `healthUrl`; resolves at the first restart the watchdog asks for. */
function firstRestart(healthUrl: string): Promise<void> {
  return new Promise((resolve) => {
    stopWatching = watchProgramHost({ ...TIMING, healthUrl, restart: async () => resolve() }).stop;
  });
}

/** A server that accepts connections and never answers, as a frozen host's kernel does; `close` ends them too. */
async function silentServer(): Promise<{ server: Server; close(): void }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe("the program host's watchdog", () => {
  it("restarts a host that accepts health requests and never answers them", async () => {
    const silent = await silentServer();
    const address = silent.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    try {
      await firstRestart(`http://127.0.0.1:${address.port}/health`);
    } finally {
      silent.close();
    }
  });

  it("restarts it even when a health request never settles, not even on its abort (seen under load)", async () => {
    // The request as it behaved on a loaded machine: pending for good, its abort without effect.
    vi.stubGlobal("fetch", () => new Promise<Response>(() => undefined));
    await firstRestart("http://127.0.0.1:9/health");
  });
});
