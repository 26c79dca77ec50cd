// What `npm start` (scripts/start.mjs) starts is stopped however it ends: SIGINT, SIGTERM or SIGHUP
// to the script alone (a process manager or an IDE signals only the process it started), an
// error, or its parent dying. Child processes start in process groups of their own, so stopping
// one reaches what it started in turn (wrangler's workerd); the script exits only once every
// group it started is gone, so the ports are free when it has exited.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { constants } from "node:os";

/** How long a group gets to stop after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 10_000;

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

/** How often the parent is looked for: a parent that died leaves the script with another (init, a subreaper). */
const PARENT_CHECK_MS = 1_000;

/**
 * The script's lifetime: `spawn` starts a child in a group of its own and stops it with the
 * script; `onStop` adds something to dispose of (an in-process server, a Miniflare); `stop(code)`
 * stops everything and exits with `code`, once, whoever asks first. A second signal while
 * stopping kills what is left at once.
 */
export function processLifetime() {
  const groups = new Set();
  const disposers = [];
  let stopping;
  const stop = (code) => {
    stopping ??= stopEverything(groups, disposers).finally(() => process.exit(code));
    return stopping;
  };
  const ours = new Map();
  for (const signal of SIGNALS) {
    const onSignal = () => {
      if (stopping !== undefined) for (const child of groups) signalGroup(child, "SIGKILL");
      void stop(128 + constants.signals[signal]);
    };
    ours.set(signal, onSignal);
    process.on(signal, onSignal);
  }
  const fail = (error) => {
    console.error(`npm start stopped: ${error instanceof Error ? error.message : String(error)}`);
    void stop(1);
  };
  process.on("uncaughtException", fail);
  process.on("unhandledRejection", fail);
  // A closed terminal or a dead parent's pipe: writing to it fails; nobody is left to read.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => void stop(1));
  watchParent(() => void stop(1));
  return {
    spawn(command, args, options) {
      const child = spawn(command, args, { ...options, detached: true });
      groups.add(child);
      return child;
    },
    onStop(dispose) {
      disposers.push(dispose);
    },
    stop,
    /**
     * Leaves the signals to this lifetime alone. Miniflare (the world and the program host run in
     * this process) adds SIGINT and SIGTERM listeners that stop its workerd and exit at once,
     * before wrangler's group is stopped; call this after each Miniflare is made. Its workerd
     * still stops: with its `dispose()` here, and on exit by its own exit listener.
     */
    ownSignals() {
      for (const signal of SIGNALS)
        for (const listener of process.listeners(signal)) if (listener !== ours.get(signal)) process.removeListener(signal, listener);
    },
    get stopping() {
      return stopping !== undefined;
    },
  };
}

async function stopEverything(groups, disposers) {
  for (const child of groups) signalGroup(child, "SIGTERM");
  await Promise.allSettled([...groups].map((child) => groupGone(child, STOP_GRACE_MS)));
  for (const child of groups) signalGroup(child, "SIGKILL");
  await Promise.allSettled([...groups].map((child) => groupGone(child, STOP_GRACE_MS)));
  await Promise.race([Promise.allSettled(disposers.map((dispose) => dispose())), new Promise((r) => setTimeout(r, STOP_GRACE_MS))]);
}

function signalGroup(child, signal) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

/** True while a process of `child`'s group runs (a zombie, ended but not yet reaped, does not count). */
function groupAlive(child) {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
  } catch {
    return false;
  }
  return process.platform !== "linux" || livingGroupMembers(child.pid) > 0;
}

/** Processes of group `pgid` that have not ended (Linux: /proc/<pid>/stat, state and process group). */
function livingGroupMembers(pgid) {
  let living = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // After the command name (which may hold spaces): state, parent, process group.
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(group) === pgid && state !== "Z") living++;
    } catch {
      // ended meanwhile
    }
  }
  return living;
}

/** True once no process of `child`'s group is left (checked every 100 ms), false after `withinMs`. */
async function groupGone(child, withinMs) {
  const deadline = Date.now() + withinMs;
  while (groupAlive(child)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

function watchParent(onGone) {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) onGone();
  }, PARENT_CHECK_MS).unref();
}

/** True when nothing listens on `host`:`port` (it can be listened on now). */
export function portIsFree(port, host) {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once("error", () => resolveFree(false));
    server.listen(port, host, () => server.close(() => resolveFree(true)));
  });
}
