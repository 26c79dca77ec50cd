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
/** Linux's number for the SCHED_IDLE policy, as /proc/<pid>/task/<tid>/stat reports it. */
export declare const SCHED_IDLE: number;
/**
 * Put every thread of the process listening on `port` under SCHED_IDLE (niceness 10 where that
 * cannot be set); its pid and the policy applied, or undefined (not Linux, not found).
 */
export declare function yieldToService(port: number): { pid: number; policy: "idle" | "nice" } | undefined;
/** Put every thread of `pid` back under the normal policy (niceness kept), so that a killed process ends at once; best effort. */
export declare function leaveIdlePolicy(pid: number | undefined): void;
/** The thread ids of `pid` (Linux), none when it has ended. */
export declare function threadsOf(pid: number): number[];
/** The scheduling policy of thread `tid` of `pid` (0 normal, 5 SCHED_IDLE), or undefined when it ended. */
export declare function threadPolicy(pid: number, tid: number): number | undefined;
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
  /** Settles when the watchdog's next restart has a new process answering (a failed restart is tried again). */
  nextRestart(): Promise<void>;
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
  /** Answer the service's name lookups with this machine's resolver (default true). */
  resolveNames?: boolean;
}): Promise<ProgramHostProcess>;
