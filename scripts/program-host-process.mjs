// Looking after the program host's process, for `npm start` (scripts/start.mjs) and the test and
// bench harness (test/helpers/program-host.ts):
// - the watchdog asks the program host's /health at an interval and, when it has not answered for
//   a while (a livelocked V8, a fatal out-of-memory, a crashed process), restarts it. Attempts in
//   flight on the old process fail with a `programHost` limit
//   (functions/sandbox/host/remote-attempt.ts); the service itself is never touched;
// - `yieldToService` lowers the host's CPU priority, so that on a busy machine the operating
//   system runs the service's requests before generated programs.
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/** Defaults: restart after about 20 s without an answer; a legitimate stretch is far shorter. */
export const WATCHDOG_DEFAULTS = { intervalMs: 2_000, timeoutMs: 6_000, failuresBeforeRestart: 3 };

/**
 * Watch `healthUrl`; after `failuresBeforeRestart` checks in a row without a 2xx within
 * `timeoutMs`, await `restart()` and watch on. Returns `stop()`.
 */
export function watchProgramHost({ healthUrl, restart, onRestart = () => {}, ...options }) {
  const { intervalMs, timeoutMs, failuresBeforeRestart } = { ...WATCHDOG_DEFAULTS, ...options };
  let stopped = false;
  let failures = 0;
  let timer;
  const check = async () => {
    let healthy = false;
    try {
      const response = await fetch(healthUrl, { signal: AbortSignal.timeout(timeoutMs) });
      await response.arrayBuffer();
      healthy = response.ok;
    } catch {
      // no answer in time, or nothing listening
    }
    if (stopped) return;
    failures = healthy ? 0 : failures + 1;
    if (failures >= failuresBeforeRestart) {
      failures = 0;
      try {
        await restart();
        onRestart(undefined);
      } catch (error) {
        onRestart(error);
      }
    }
    if (!stopped) timer = setTimeout(check, intervalMs);
  };
  timer = setTimeout(check, intervalMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Niceness of the program host's threads: programs are background work next to the service's requests. */
export const PROGRAM_HOST_NICENESS = 10;

/**
 * Lower the CPU priority of every thread of the process listening on TCP `port` (the program
 * host's workerd; Linux niceness is per thread). Returns its pid, or undefined where this cannot
 * be done (not Linux, not found): then the host runs at normal priority, nothing else changes.
 */
export function yieldToService(port) {
  if (process.platform !== "linux") return undefined;
  const pid = pidListeningOn(port);
  if (pid === undefined) return undefined;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      setPriority(Number(thread), PROGRAM_HOST_NICENESS);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return pid;
}

/** The process listening on TCP `port` on this machine (Linux: /proc/net/tcp and /proc/<pid>/fd), or undefined. */
export function pidListeningOn(port) {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address ends with the port; state 0A is LISTEN; field 9 is the socket's inode.
      if (fields[1]?.endsWith(hexPort) && fields[3] === "0A" && fields[9] !== undefined) inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds;
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`))?.[1];
        if (inode !== undefined && inodes.has(inode)) return Number(entry);
      } catch {
        // gone meanwhile
      }
    }
  }
  return undefined;
}
