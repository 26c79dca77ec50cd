/**
 * The program host: a Worker of its own that runs generated programs in Worker Loader isolates,
 * so that locally they run in a workerd process apart from the service's (local workerd runs all
 * of a process's isolates on one thread, and a program's synchronous stretch cannot yield). The
 * service opens one WebSocket per attempt (host/remote-attempt.ts); the host never sees a
 * credential: tool calls go back over the socket. Reachable on loopback only, and only with the
 * secret the start script (or the test harness) gives both sides.
 */
import { PROGRAM_HOST_RESOLVE_PATH } from "../../common/program-host";
import { msLeftUntil } from "../deadline";
import { deadlinePassedBeforeStart, failedResult, isolateFailure } from "../host/attempt-outcome";
import { programIsolate } from "../host/program-isolate";
import { DEFAULT_LIMITS } from "../limits";
import { parseToHost, PROGRAM_HOST_SECRET_HEADER, type FromHostMessage, type RunMessage } from "./messages";
import { ToolRelay } from "./tool-relay";

export interface ProgramHostEnv {
  LOADER: WorkerLoader;
  /** Shared with the service; without it the host runs nothing. */
  PROGRAM_HOST_SECRET?: string;
  /**
   * The operating system's resolver, locally (a Node function, scripts/name-resolver.mjs). Not
   * bound when deployed: then `/resolve` answers 501 and the service stops asking for a while.
   */
  NAME_RESOLVER?: Fetcher;
}

/** Compare secrets without an early exit on the first differing character. */
function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

async function runAttempt(env: ProgramHostEnv, message: RunMessage, relay: ToolRelay): Promise<FromHostMessage> {
  const choice = {
    tenantId: message.tenantId,
    mode: message.mode,
    deadlineMs: message.deadlineMs,
    maxToolCalls: message.request.limits.maxToolCalls ?? DEFAULT_LIMITS.maxToolCalls,
  };
  // No bindings: the tools come with the run, as this attempt's relay. No network either:
  // programIsolate makes every isolate with `globalOutbound: null` (host/isolate-code.ts).
  const isolate = programIsolate(env.LOADER, choice, {});
  try {
    // The harness cuts the program's timeout to what is left of the absolute deadline when the
    // program actually starts, which on a busy thread is later than now.
    return { type: "result", outcome: await isolate.run({ ...message.request, deadlineAt: message.deadlineAt }, relay) };
  } catch (error) {
    return { type: "result", outcome: failedResult(isolateFailure(error), message.deadlineMs) };
  }
}

/** One attempt over `socket`: the first message is the run, later ones answer tool calls. */
function serve(env: ProgramHostEnv, socket: WebSocket): void {
  const send = (message: FromHostMessage) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const relay = new ToolRelay(send);
  let started = false;
  socket.addEventListener("message", (event) => {
    const message = parseToHost(event.data);
    if (message === undefined) {
      socket.close(1008, "not a program host message");
      return;
    }
    if (message.type === "answer") {
      relay.answer(message);
      return;
    }
    if (started) return;
    started = true;
    // This thread serves every program: a run can be read long after the service sent it, and
    // one whose deadline has passed must not start (the service has failed it). One whose socket
    // closes before the harness gets the thread is refused there (ToolRelay.open).
    const finish = (result: FromHostMessage) => {
      send(result);
      socket.close(1000, "done");
    };
    if (msLeftUntil(message.deadlineAt, Date.now()) <= 0) return finish({ type: "result", outcome: failedResult(deadlinePassedBeforeStart("deadlineMs"), 0) });
    void runAttempt(env, message, relay).then(finish);
  });
  // The service gave up (deadline) or went away: a run not yet started never starts, and the
  // program's waiting calls fail, so it ends.
  socket.addEventListener("close", () => relay.close("the service closed the attempt"));
}

/** A name lookup for the service's tool calls (functions/tools/safe-call/local-name-resolver.ts), by the resolver bound here. */
async function resolveName(request: Request, env: ProgramHostEnv): Promise<Response> {
  if (request.method !== "GET") return new Response("GET only", { status: 405 });
  if (env.NAME_RESOLVER === undefined) return new Response("no name resolver here", { status: 501 });
  return env.NAME_RESOLVER.fetch(`http://resolver/?host=${encodeURIComponent(new URL(request.url).searchParams.get("host") ?? "")}`);
}

export default {
  async fetch(request: Request, env: ProgramHostEnv): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/health") return new Response("ok");
    if (pathname !== "/attempt" && pathname !== PROGRAM_HOST_RESOLVE_PATH) return new Response("not found", { status: 404 });
    const secret = env.PROGRAM_HOST_SECRET;
    if (secret === undefined || secret.length < 16) return new Response("the program host has no secret", { status: 503 });
    if (!sameSecret(request.headers.get(PROGRAM_HOST_SECRET_HEADER) ?? "", secret)) return new Response("forbidden", { status: 403 });
    if (pathname === PROGRAM_HOST_RESOLVE_PATH) return resolveName(request, env);
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("a WebSocket upgrade is required", { status: 426 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    server.accept();
    serve(env, server);
    return new Response(null, { status: 101, webSocket: client });
  },
} satisfies ExportedHandler<ProgramHostEnv>;
