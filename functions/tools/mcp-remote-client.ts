import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { guardWith } from "./safe-call/deadline";
import { GuardedFetchError, guardedFetch, type GuardedFetchOptions } from "./safe-call/guarded-fetch";
import { NameLookupError } from "./safe-call/name-lookup";
import type { FailureCause } from "./safe-call/failure-cause";
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

/** Why an exchange with a remote MCP server failed, in safe-call's error kinds. */
export class RemoteServerError extends Error {
  readonly kind: "blocked_destination" | "too_many_redirects" | "too_large" | "invalid_definition" | "timeout" | "network" | "http_status" | "protocol_error";
  /** For a network failure whose reason is known (a host name that never resolves). */
  readonly failureCause: FailureCause | undefined;
  constructor(kind: RemoteServerError["kind"], message: string, failureCause?: FailureCause) {
    super(message);
    this.name = "RemoteServerError";
    this.kind = kind;
    this.failureCause = failureCause;
  }
}

/**
 * Connect (initialize), run `work` with the client, close (ending the server's session if it
 * made one). Failures become a RemoteServerError; nothing is retried.
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
function classify(error: unknown, timedOut: boolean, timeoutMs: number): RemoteServerError {
  if (timedOut) return new RemoteServerError("timeout", `the MCP server gave no complete answer within ${timeoutMs} ms`);
  const guarded = findGuarded(error);
  if (guarded instanceof NameLookupError) return new RemoteServerError("network", `request failed: ${guarded.message}`, "name_lookup");
  if (guarded !== undefined) return new RemoteServerError(guarded.kind, guarded.message);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400) {
    return new RemoteServerError("http_status", `the MCP server answered HTTP ${error.code}: ${shorten(message)}`);
  }
  if (error instanceof TypeError && /fetch|network|connect/i.test(message)) return new RemoteServerError("network", `request failed: ${shorten(message)}`);
  return new RemoteServerError("protocol_error", `the server did not answer as an MCP server: ${shorten(message)}`);
}

/** The guarded fetch's own error, however deep the SDK wrapped it. */
function findGuarded(error: unknown): GuardedFetchError | NameLookupError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof GuardedFetchError || current instanceof NameLookupError) return current;
    current = current.cause;
  }
  return undefined;
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
