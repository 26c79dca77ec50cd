import { exports } from "cloudflare:workers";
import { msLeftUntil } from "../deadline";
import { parseFromHost, PROGRAM_HOST_SECRET_HEADER, type AnswerMessage, type RunMessage } from "../program-host/messages";
import type { ProgramError } from "../types";
import type { CallContext, GatewayProps, IsolateRunResult, ToolCallAnswer, ToolsCapability } from "../wire";
import { deadlineError, failedResult } from "./attempt-outcome";

/** Where the program host is and the secret it wants. */
export interface ProgramHost {
  binding: Fetcher;
  secret: string;
}

/** The program host could not be reached, or went away during the attempt (its watchdog restarted it). */
function hostError(detail: string): ProgramError {
  return { kind: "runtime", limit: "programHost", message: `the program host ${detail}; the attempt was stopped` };
}

/** A call the gateway itself failed on (in this process it would reach the program as a rejection too). */
function gatewayFailure(tool: string, args: unknown, error: unknown): ToolCallAnswer {
  const message = `${tool} failed: ${error instanceof Error ? error.message : String(error)}`;
  return {
    ok: false,
    error: message,
    trace: { tool, arguments: args, sent: false, replayed: false, ok: false, durationMs: 0, bytes: 0, truncated: false, error: message },
  };
}

/**
 * Run one attempt on the program host (program-host/entry.ts) over a WebSocket: send the run,
 * answer each tool call here (the tenant's credentials never leave the service), wait for the
 * result. The deadline (`run.deadlineAt`) is this side's timer: this thread is not the one running
 * programs, so it fires on time even when the program host is wedged.
 */
export async function runAttemptOnProgramHost(host: ProgramHost, run: Omit<RunMessage, "type">, calls: CallContext): Promise<IsolateRunResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The deadline covers reaching the host too: a frozen host accepts connections and never answers.
  const deadline = new Promise<IsolateRunResult>((resolve) => {
    timer = setTimeout(() => resolve(failedResult(deadlineError(run.deadlineMs), run.deadlineMs)), msLeftUntil(run.deadlineAt, Date.now()));
  });
  try {
    return await Promise.race([deadline, attempt(host, run, calls, deadline)]);
  } finally {
    clearTimeout(timer);
  }
}

/** Connect, send the run, answer calls until the result, a close or an unreadable message. */
async function attempt(host: ProgramHost, run: Omit<RunMessage, "type">, calls: CallContext, deadline: Promise<unknown>): Promise<IsolateRunResult> {
  let response: Response;
  try {
    response = await host.binding.fetch("http://program-host/attempt", { headers: { upgrade: "websocket", [PROGRAM_HOST_SECRET_HEADER]: host.secret } });
  } catch (error) {
    return failedResult(hostError(`could not be reached (${error instanceof Error ? error.message : String(error)})`), 0);
  }
  const socket = response.webSocket;
  if (socket === null) return failedResult(hostError(`refused the attempt (HTTP ${response.status})`), 0);
  socket.accept();
  const close = () => {
    try {
      socket.close(1000, "attempt over");
    } catch {
      // already closed
    }
  };
  // Past the deadline the host is told by the socket closing; the program's waiting calls fail.
  void deadline.then(close);
  // The harness counts calls too; this count does not depend on the host being what it should be.
  const maxCalls = run.request.limits.maxToolCalls ?? Number.POSITIVE_INFINITY;
  let callsAnswered = 0;
  // Calls are answered by the service's tool gateway, the same `env.TOOLS` an in-process isolate gets.
  const gateway = exports.ToolGateway({ props: { tenantId: run.tenantId } satisfies GatewayProps }) as unknown as ToolsCapability;
  return new Promise<IsolateRunResult>((resolve) => {
    let settled = false;
    const finish = (outcome: IsolateRunResult) => {
      if (settled) return;
      settled = true;
      close();
      resolve(outcome);
    };
    socket.addEventListener("message", (event) => {
      const message = parseFromHost(event.data);
      if (message === undefined) return finish(failedResult(hostError("sent something that is not a program host message"), 0));
      if (message.type === "result") return finish(message.outcome);
      if (++callsAnswered > maxCalls) return finish(failedResult(hostError(`sent more than the attempt's ${maxCalls} tool calls`), 0));
      void gateway
        .call(message.name, message.args, calls)
        .catch((error: unknown) => gatewayFailure(message.name, message.args, error))
        .then((answer) => {
          const reply: AnswerMessage = { type: "answer", id: message.id, answer };
          if (settled) return;
          try {
            socket.send(JSON.stringify(reply));
          } catch {
            // The socket closed meanwhile: its close event fails the attempt.
          }
        });
    });
    socket.addEventListener("close", () => finish(failedResult(hostError("closed the attempt before it ended"), 0)));
    socket.addEventListener("error", () => finish(failedResult(hostError("failed during the attempt"), 0)));
    socket.send(JSON.stringify({ type: "run", ...run } satisfies RunMessage));
  });
}
