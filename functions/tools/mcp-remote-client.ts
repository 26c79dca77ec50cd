import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { guardWith } from "./safe-call/deadline";
import { guardedFetch, guardedFetchFailure, type GuardedFetchCode, type GuardedFetchOptions } from "./safe-call/guarded-fetch";
import { Failure, isFailure } from "../common/failures";
import { SERVICE_NAME, SERVICE_VERSION } from "../common/service-version";

/**
 * A session with a tenant's remote MCP server (Streamable HTTP), for importing its tools and for
 * calling one of them. Every request goes through the safe-call path as a `fetch`; one deadline
 * covers connecting, the work and closing.
 */

export interface RemoteServerOptions extends Omit<GuardedFetchOptions, "signal"> {
  url: string;
  timeoutMs: number;
}

/** Why an exchange with a remote MCP server failed (a Failure of one of these codes), in safe-call's error kinds. */
export type RemoteServerCode = GuardedFetchCode | "timeout" | "network" | "http_status" | "protocol_error";

const REMOTE_SERVER_CODES: readonly RemoteServerCode[] = [
  "blocked_destination",
  "too_many_redirects",
  "too_large",
  "invalid_definition",
  "name_lookup",
  "timeout",
  "network",
  "http_status",
  "protocol_error",
];

/** Whether `error` is how `withRemoteServer` failed. */
export function isRemoteServerFailure(error: unknown): error is Failure & { code: RemoteServerCode } {
  return isFailure(error, ...REMOTE_SERVER_CODES);
}

/**
 * Connect (initialize), run `work` with the client, close (ending the server's session if it
 * made one). Every failure becomes a Failure of a RemoteServerCode; nothing is retried.
 */
export async function withRemoteServer<T>(options: RemoteServerOptions, work: (client: Client) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const guard = guardWith(controller.signal);
  const guarded = guardedFetch({ ...options, signal: controller.signal });
  // This client never waits for server-initiated messages, so it does not open the optional
  // standalone GET stream: answering 405 locally is what the SDK treats as "not offered".
  const fetchFn: typeof fetch = (input, init) =>
    (init?.method ?? "GET") === "GET" ? Promise.resolve(new Response(null, { status: 405 })) : guarded(input, init);
  const transport = new StreamableHTTPClientTransport(new URL(options.url), {
    fetch: fetchFn,
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1, maxReconnectionDelay: 1, reconnectionDelayGrowFactor: 1 },
  });
  const client = new Client({ name: SERVICE_NAME, version: SERVICE_VERSION }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  try {
    await guard(client.connect(transport, { timeout: options.timeoutMs }));
    return await guard(work(client));
  } catch (error) {
    throw classify(error, controller.signal.aborted, options.timeoutMs);
  } finally {
    clearTimeout(timer);
    // Best effort, bounded: a stateful server gets its session ended, a stateless one no request.
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((resolve) => (giveUp = setTimeout(resolve, 1_000)))]);
    clearTimeout(giveUp);
    await client.close().catch(() => undefined);
  }
}

/** The error as one of safe-call's kinds, with a message that says what went wrong. */
function classify(error: unknown, timedOut: boolean, timeoutMs: number): Failure {
  if (timedOut) return Failure.of("timeout", `the MCP server gave no complete answer within ${timeoutMs} ms`);
  const guarded = guardedFetchFailure(error);
  if (guarded?.code === "name_lookup") return Failure.of("name_lookup", `request failed: ${guarded.message}`);
  if (guarded !== undefined) return Failure.of(guarded.code, guarded.message);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400) {
    return Failure.of("http_status", `the MCP server answered HTTP ${error.code}: ${shorten(message)}`);
  }
  if (error instanceof TypeError && /fetch|network|connect/i.test(message)) return Failure.of("network", `request failed: ${shorten(message)}`);
  return Failure.of("protocol_error", `the server did not answer as an MCP server: ${shorten(message)}`);
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
