// Looking after the program host's process, for `npm start` (scripts/start.mjs) and the test and
// bench harness (test/helpers/program-host.ts):
// - the watchdog asks the program host's /health at an interval and, when it has not answered for
//   a while (a livelocked V8, a fatal out-of-memory, a crashed process), restarts it. Attempts in
//   flight on the old process fail with a `programHost` limit
//   (functions/sandbox/host/remote-attempt.ts); the service itself is never touched;
// - `yieldToService` puts the host's threads under the idle CPU policy (niceness 10 where that
//   cannot be set), so that the operating system runs the service's requests before generated
//   programs, which get the cores the service leaves.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { dirname } from "node:path";
import { Miniflare } from "miniflare";
import { answerResolveRequest } from "./name-resolver.mjs";

/** The Worker name the service's `PROGRAM_HOST` binding names (wrangler.toml, [env.local]). */
export const PROGRAM_HOST_NAME = "atc-edge-program-host";

function miniflareOptions({ scriptPath, secret, port, devRegistryPath, resolveNames }) {
  return {
    name: PROGRAM_HOST_NAME,
    host: "127.0.0.1",
    port,
    modules: true,
    // What wrangler.program-host.toml's rules say, for wrangler's output.
    modulesRules: [
      { type: "Text", include: ["**/*.js.txt"] },
      { type: "Data", include: ["**/*.wasm.bin"] },
    ],
    scriptPath,
    // Module names relative to the bundle, wherever it is (npm start keeps it in the state directory).
    modulesRoot: dirname(scriptPath),
    compatibilityDate: "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
    workerLoaders: { LOADER: {} },
    bindings: { PROGRAM_HOST_SECRET: secret },
    // Name lookups with this machine's resolver, for the service's tool calls (entry.ts /resolve):
    // a Node function, since workerd's own lookups fail with a stack and no reason a Worker sees.
    // Not bound where the service's network is not this machine's (tests with a scripted network).
    ...(resolveNames ? { serviceBindings: { NAME_RESOLVER: (request) => answerResolveRequest(request) } } : {}),
    ...(devRegistryPath === undefined ? {} : { unsafeDevRegistryPath: devRegistryPath }),
  };
}

/**
 * Run the program host (wrangler's bundle of wrangler.program-host.toml at `scriptPath`) in a
 * workerd process of its own on 127.0.0.1 (`port`, or a free one), with `secret` (or a fresh
 * one), registered in the wrangler dev registry at `devRegistryPath` when given (npm start), under
 * the idle CPU policy (`yieldToService`; after each restart too), under a watchdog that restarts
 * it on the same port when it stops answering. `resolveNames` (default true): it answers the
 * service's name lookups with this machine's resolver.
 */
export async function startProgramHost({
  scriptPath,
  secret = randomBytes(24).toString("hex"),
  port = 0,
  devRegistryPath,
  watchdog = {},
  onRestart,
  resolveNames = true,
}) {
  let mf = new Miniflare(miniflareOptions({ scriptPath, secret, port, devRegistryPath, resolveNames }));
  const boundPort = Number((await mf.ready).port);
  yieldToService(boundPort);
  let disposed = false;
  /** Callers of `nextRestart()`, told when the watchdog's next restart has brought a new process up. */
  const restartWaiters = [];
  const host = {
    address: `127.0.0.1:${boundPort}`,
    port: boundPort,
    secret,
    restarts: 0,
    async kill() {
      const running = mf;
      mf = undefined;
      // An ending process needs CPU to release its memory and its port; under the idle policy it
      // gets none while other threads want the cores, so on a busy machine the watchdog's restart
      // waited seconds to tens of seconds for it.
      leaveIdlePolicy(pidListeningOn(boundPort));
      await running?.dispose();
    },
    nextRestart() {
      return new Promise((resolve) => restartWaiters.push(resolve));
    },
    freeze() {
      const pid = pidListeningOn(boundPort);
      if (pid === undefined) throw new Error(`no process listens on port ${boundPort}`);
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
    onRestart(error) {
      if (error === undefined) for (const resolve of restartWaiters.splice(0)) resolve();
      onRestart?.(error);
    },
    async restart() {
      if (disposed) return;
      await host.kill();
      const next = new Miniflare(miniflareOptions({ scriptPath, secret, port: boundPort, devRegistryPath, resolveNames }));
      await next.ready;
      if (disposed) return void (await next.dispose());
      yieldToService(boundPort);
      mf = next;
      host.restarts++;
    },
  });
  return host;
}

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
    const healthy = await answersHealth(healthUrl, timeoutMs);
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

/**
 * Whether `healthUrl` answers with a 2xx within `timeoutMs`. The check ends by its own timer, not
 * by the request's abort alone: on a loaded machine a check awaiting `fetch` with
 * `AbortSignal.timeout` was seen never to end (against a host just restarted under the idle
 * policy), and the watchdog, awaiting it, never checked or restarted the host again. Where in
 * Node's fetch it stuck is not pinned down (nodejs/node#56917 is one such case: an abort during
 * the body read leaves `arrayBuffer()` pending).
 */
async function answersHealth(healthUrl, timeoutMs) {
  const controller = new AbortController();
  let timer;
  const noAnswer = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answer = fetch(healthUrl, { signal: controller.signal }).then(
    async (response) => {
      await response.arrayBuffer();
      return response.ok;
    },
    // nothing listening, or aborted
    () => false,
  );
  try {
    return await Promise.race([answer, noAnswer]);
  } catch {
    return false; // the body broke off
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/**
 * Put every thread of `pid` back under the normal policy (its niceness stays), so that a process
 * being killed ends at once instead of when the cores are idle. Best effort: leaving SCHED_IDLE
 * needs CAP_SYS_NICE or an RLIMIT_NICE that allows the niceness; without them it ends as before.
 */
export function leaveIdlePolicy(pid) {
  if (process.platform !== "linux" || pid === undefined) return;
  spawnSync("chrt", ["--other", "--all-tasks", "--pid", "0", String(pid)], { stdio: "ignore" });
}

/** Niceness of the program host's threads, where the idle policy cannot be set: programs are background work next to the service's requests. */
export const PROGRAM_HOST_NICENESS = 10;

/** Linux's number for the SCHED_IDLE scheduling policy, as /proc/<pid>/task/<tid>/stat reports it. */
export const SCHED_IDLE = 5;

let fallbackSaid = false;

/**
 * Make every thread of the process listening on TCP `port` (the program host's workerd) yield
 * the CPU to the service: the Linux SCHED_IDLE policy (`chrt --idle`), so the kernel runs the
 * host only on a core no other thread wants and preempts it as soon as one of the service's
 * threads wakes; threads the host makes later inherit the policy from their creator. Niceness
 * 10 is set first, and is what stays where the policy cannot be set (no `chrt`, refused; said
 * once on stderr). Returns the pid and the policy applied, or undefined where neither can be
 * done (not Linux, not found): then the host runs at normal priority, nothing else changes.
 */
export function yieldToService(port) {
  if (process.platform !== "linux") return undefined;
  const pid = pidListeningOn(port);
  if (pid === undefined) return undefined;
  for (const thread of threadsOf(pid)) {
    try {
      setPriority(thread, PROGRAM_HOST_NICENESS);
    } catch {
      // a thread that ended meanwhile
    }
  }
  const failure = setIdlePolicy(pid);
  if (failure === undefined) return { pid, policy: "idle" };
  if (!fallbackSaid) {
    fallbackSaid = true;
    console.error(`program host: the idle CPU policy could not be set (${failure}); its threads run at niceness ${PROGRAM_HOST_NICENESS} instead`);
  }
  return { pid, policy: "nice" };
}

/**
 * Put every thread of `pid` under SCHED_IDLE with `chrt`; once more for a thread made meanwhile
 * by one not yet switched. Returns why it could not, or undefined when every thread has it.
 */
function setIdlePolicy(pid) {
  for (let pass = 0; pass < 2; pass++) {
    const result = spawnSync("chrt", ["--idle", "--all-tasks", "--pid", "0", String(pid)], { encoding: "utf8" });
    if (result.error !== undefined) return `chrt: ${result.error.message}`;
    if (result.status !== 0) return `chrt: ${result.stderr.trim() || `exit status ${result.status}`}`;
    if (threadsOf(pid).every((thread) => [SCHED_IDLE, undefined].includes(threadPolicy(pid, thread)))) return undefined;
  }
  return "a thread kept the normal policy";
}

/** The thread ids of `pid` (Linux), none when it has ended. */
export function threadsOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

/** The scheduling policy of thread `tid` of `pid` (0 normal, 5 SCHED_IDLE), or undefined when it ended. */
export function threadPolicy(pid, tid) {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at field 3; policy is field 41.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[41 - 3]);
  } catch {
    return undefined;
  }
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
