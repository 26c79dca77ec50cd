import { exports } from "cloudflare:workers";
import type { GatewayProps, IsolateRunRequest, IsolateRunResult } from "../wire";
import { programIsolate, type IsolateMode } from "./program-isolate";
import { runAttemptOnProgramHost, type ProgramHost } from "./remote-attempt";
import { Failure } from "../../common/failures";

/** One attempt as an executor gets it: whose, which isolate, its deadline (relative and absolute), and the run itself. */
export interface ExecutorAttempt {
  tenantId: string;
  mode: IsolateMode;
  deadlineMs: number;
  /** `deadlineMs` as a time on this clock: when the attempt started plus its deadline. */
  deadlineAt: number;
  maxToolCalls: number;
  run: IsolateRunRequest;
}

/**
 * Where a program attempt's isolate runs: one interface, one implementation per place, chosen by
 * configuration (`programExecutor`). Either runs the same Worker Loader isolate with QuickJS
 * inside; both answer the program's tool calls through the same tool gateway. An executor may
 * fail with a `timeout` Failure when its deadline passes first (the caller reports it as the limit).
 */
export interface ProgramExecutor {
  run(attempt: ExecutorAttempt): Promise<IsolateRunResult>;
}

/** In this process (deployed): the isolate's `env.TOOLS` is the service's tool gateway, and the deadline a race. */
class InProcessExecutor implements ProgramExecutor {
  readonly #loader: WorkerLoader;

  constructor(loader: WorkerLoader) {
    this.#loader = loader;
  }

  async run({ tenantId, mode, deadlineMs, maxToolCalls, run }: ExecutorAttempt): Promise<IsolateRunResult> {
    const props: GatewayProps = { tenantId };
    const isolate = programIsolate(this.#loader, { tenantId, mode, deadlineMs, maxToolCalls }, { TOOLS: exports.ToolGateway({ props }) });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      // The deadline is a race here: when it passes first, the attempt fails as `timeout`.
      timer = setTimeout(() => reject(Failure.of("timeout", "the attempt's deadline passed before the isolate answered")), deadlineMs);
    });
    try {
      return await Promise.race([isolate.run(run), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** On the program host (local workerd: `npm start`, tests), in another process (remote-attempt.ts). */
class ProgramHostExecutor implements ProgramExecutor {
  readonly #host: ProgramHost;

  constructor(host: ProgramHost) {
    this.#host = host;
  }

  run({ tenantId, mode, deadlineMs, deadlineAt, run }: ExecutorAttempt): Promise<IsolateRunResult> {
    // The host needs no replay records: the calls come back here and are answered with them.
    // `deadlineAt` is absolute (this clock; the host runs on the same machine), so a program the
    // host starts late gets only what is left, not a fresh `timeoutMs`.
    return runAttemptOnProgramHost(this.#host, { tenantId, mode, deadlineMs, deadlineAt, request: { ...run, calls: { ...run.calls, replay: [] } } }, run.calls);
  }
}

/** The executor this service is configured with: the program host when one is bound (`PROGRAM_HOST`), else this process. */
export function programExecutor(env: Env): ProgramExecutor {
  return env.PROGRAM_HOST === undefined || env.PROGRAM_HOST_SECRET === undefined
    ? new InProcessExecutor(env.LOADER)
    : new ProgramHostExecutor({ binding: env.PROGRAM_HOST, secret: env.PROGRAM_HOST_SECRET });
}
