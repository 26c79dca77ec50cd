/**
 * Shapes shared by the safe-call modules. Only data and types here; no behaviour.
 */
import type { FailureCause } from "./failure-cause";

/**
 * The network as safe-call sees it. Called detached (no `this`), so pass the global `fetch` as is,
 * but bind a service binding first: `env.TOOLS.fetch.bind(env.TOOLS)`.
 */
export type FetchFn = typeof fetch;

/**
 * Looks a host name up before the platform's fetch is asked to: true (or the addresses) when it
 * resolves, false when the resolver answers definitively that it does not (the call then fails
 * with cause `name_lookup` without touching the network), undefined when it cannot tell (the call
 * proceeds). Addresses, when given, pass the destination guard too: a public-looking name that
 * resolves to a private or loopback address is refused (`127.0.0.1.nip.io`).
 */
export type NameResolver = (hostname: string) => Promise<NameAnswer | undefined>;

/** A resolver's answer: resolves or not, or the addresses the name resolves to. */
export type NameAnswer = boolean | readonly string[];

/** A decrypted secret and where it goes; injected only at call time, never echoed back. */
export interface InjectedCredential {
  scheme: "apiKey" | "bearer";
  /** Ignored for bearer (always the Authorization header). */
  in: "header" | "query";
  /** Header or query parameter name; required for apiKey. */
  name?: string;
  value: string;
}

export interface SafeCallOptions {
  /** The network for every destination not listed in `allowedOrigins`. */
  fetch: FetchFn;
  credential?: InjectedCredential;
  /** Budget for the whole call: every redirect hop and the body read. Default 10 000. */
  timeoutMs?: number;
  /** Body bytes kept; the rest is not read. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  /**
   * Origins (scheme://host:port) that local dev/tests explicitly allow despite the destination
   * guard, each with the fetcher to use for it (e.g. a service binding to the simulated tool world).
   */
  allowedOrigins?: Record<string, { fetch: FetchFn }>;
  /** Asked about each hop's host name (not addresses, not allowed origins) before it is fetched; local development only. */
  resolveName?: NameResolver | undefined;
}

export type ToolCallErrorKind =
  /** The caller's arguments do not fit the tool's parameters. */
  | "invalid_arguments"
  /** The tool definition itself cannot be called as written (broken schema, bad template, …). */
  | "invalid_definition"
  | "blocked_destination"
  | "timeout"
  | "too_many_redirects"
  | "network"
  | "http_status"
  /** A protocol exchange (MCP) needed more response bytes than the cap; nothing partial is used. */
  | "too_large"
  /** The server answered, but not in the protocol the tool speaks (MCP): garbage, wrong shape. */
  | "protocol_error"
  /** An MCP server ran the tool and reported a failure (`isError`). */
  | "tool_error"
  /** No access token could be had for an OAuth 2 client-credentials credential; the tool was not called. */
  | "token_unavailable";

export interface ToolCallError {
  kind: ToolCallErrorKind;
  message: string;
  /** The argument at fault, for invalid_arguments. */
  argument?: string;
  /** For network failures (and Cloudflare's own error answers): what failed, as far as the platform says. */
  cause?: FailureCause;
}

export interface ToolCallResult {
  ok: boolean;
  /** HTTP status of the final response, when one arrived. */
  status?: number;
  /** Parsed JSON, text, or null when there was no body (see response.ts for the rules). */
  body: unknown;
  /** True when the body was longer than maxResponseBytes and was cut. */
  truncated: boolean;
  /** Body bytes read and kept (at most maxResponseBytes). */
  bytes: number;
  durationMs: number;
  contentType?: string;
  request: {
    method: string;
    /** The URL first requested, credential redacted. */
    url: string;
    /** The URL of the final hop when redirects were followed, credential redacted. */
    finalUrl?: string;
  };
  error?: ToolCallError;
}
