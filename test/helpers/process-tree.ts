import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";

/** Processes on this machine (Linux /proc): what a test started, and what those started in turn. */

interface ProcessStat {
  pid: number;
  parent: number;
  state: string;
}

function processStats(): ProcessStat[] {
  const stats: ProcessStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // After the command name (which may hold spaces): state, then the parent's pid.
      const [state = "", parent = "0"] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.push({ pid: Number(entry), parent: Number(parent), state });
    } catch {
      // ended meanwhile
    }
  }
  return stats;
}

/** Every process descended from `pid` (children, their children, …), now. */
export function descendantsOf(pid: number): number[] {
  const stats = processStats();
  const found: number[] = [];
  let parents = new Set([pid]);
  while (parents.size > 0) {
    const next = stats.filter((stat) => parents.has(stat.parent)).map((stat) => stat.pid);
    found.push(...next);
    parents = new Set(next);
  }
  return found;
}

/** Those of `pids` still running (a zombie, ended and waiting to be reaped, is not). */
export function stillRunning(pids: number[]): number[] {
  const running = new Set(
    processStats()
      .filter((stat) => stat.state !== "Z")
      .map((stat) => stat.pid),
  );
  return pids.filter((pid) => running.has(pid));
}

/** The command line of `pid`, for a failure's message. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "(ended)";
  }
}

/** True when something accepts a TCP connection on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolveListening) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolveListening(true);
    });
    socket.once("error", () => resolveListening(false));
  });
}
