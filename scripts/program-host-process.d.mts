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
export declare const PROGRAM_HOST_NAME: string;
export interface ProgramHostProcess {
  /** `127.0.0.1:port`, for a service binding to an external address. */
  address: string;
  port: number;
  secret: string;
  /** How many times the watchdog restarted it. */
  restarts: number;
  /** End the process at once, as a crash would (the watchdog brings it back). */
  kill(): Promise<void>;
  /** Stop the process without ending it (SIGSTOP), as a livelocked V8 looks from outside. Linux only. */
  freeze(): void;
  dispose(): Promise<void>;
}
/** Run the program host bundle in its own workerd process under the watchdog. */
export declare function startProgramHost(options: {
  scriptPath: string;
  secret?: string;
  port?: number;
  devRegistryPath?: string;
  watchdog?: Partial<WatchdogTiming>;
  onRestart?: (error: unknown) => void;
}): Promise<ProgramHostProcess>;
