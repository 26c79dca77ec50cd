export interface WatchdogTiming {
  intervalMs: number;
  timeoutMs: number;
  failuresBeforeRestart: number;
}
export declare const WATCHDOG_DEFAULTS: WatchdogTiming;
/** Restart the program host (`restart`) when `healthUrl` stops answering; returns `stop()`. */
export declare function watchProgramHost(
  options: { healthUrl: string; restart: () => Promise<void>; onRestart?: (error: unknown) => void } & Partial<WatchdogTiming>,
): { stop(): void };
