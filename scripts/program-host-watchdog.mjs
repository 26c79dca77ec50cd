// The program host's watchdog, for `npm start` (scripts/start.mjs) and the test and bench
// harness (test/helpers/program-host.ts): it asks the program host's /health at an interval and,
// when it has not answered for a while (a livelocked V8, a fatal out-of-memory, a crashed
// process), restarts it. Attempts in flight on the old process fail with a `programHost` limit
// (functions/sandbox/host/remote-attempt.ts); the service itself is never touched.

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
