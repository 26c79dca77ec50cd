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
export declare const PROGRAM_HOST_NICENESS: number;
/** Lower the CPU priority of every thread of the process listening on `port`; its pid, or undefined. */
export declare function yieldToService(port: number): number | undefined;
/** The process listening on TCP `port` (Linux), or undefined. */
export declare function pidListeningOn(port: number): number | undefined;
