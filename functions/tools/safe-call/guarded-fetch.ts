import { guardWith } from "./deadline";
import { nameLookupFailure } from "./name-lookup";
import { Failure, isFailure } from "../../common/failures";
import type { DestinationCheck } from "./destination";
import { redactorFor } from "./redact";
import { allowedOriginMap, deliver } from "./redirects";
import { applyCredential, type PreparedRequest } from "./request";
import type { FetchFn, InjectedCredential, NameResolver, ToolCallErrorKind } from "./types";

/**
 * The safe-call path as a `fetch`, for protocol clients that build their own requests (the MCP
 * SDK's client): every hop passes the destination guard, the tenant's credential is injected
 * (and kept off other origins), one deadline covers the whole exchange, and the bytes of all
 * responses together are capped.
 */

export interface GuardedFetchOptions {
  /** The network for every destination not listed in `allowedOrigins`. */
  fetch: FetchFn;
  allowedOrigins?: Record<string, { fetch: FetchFn }> | undefined;
  credential?: InjectedCredential | undefined;
  /** Headers added to every request (an import's connection headers); the credential wins. */
  headers?: Record<string, string> | undefined;
  maxRedirects?: number;
  /** Aborts the whole exchange (its deadline). */
  signal: AbortSignal;
  /** Response bytes allowed over the whole exchange. */
  maxResponseBytes: number;
  /** The destination check of each hop (default: the tool-call guard); the model client passes its loopback allowance. */
  check?: ((url: string) => DestinationCheck) | undefined;
  /** A header the caller set itself that must not leave the first origin (the model key). */
  credentialHeader?: string | undefined;
  /** Asked about each hop's host name before the network is (local development; see name-lookup.ts). */
  resolveName?: NameResolver | undefined;
}

/** Why a guarded request did not happen or was cut (a Failure of one of these codes); the message never holds the credential. */
export type GuardedFetchCode = Extract<ToolCallErrorKind, "blocked_destination" | "too_many_redirects" | "too_large" | "invalid_definition"> | "name_lookup";

const GUARDED_FETCH_CODES: readonly GuardedFetchCode[] = ["blocked_destination", "too_many_redirects", "too_large", "invalid_definition", "name_lookup"];

/** Whether `error` is the guarded fetch's own failure. */
export function isGuardedFetchFailure(error: unknown): error is Failure & { code: GuardedFetchCode } {
  return isFailure(error, ...GUARDED_FETCH_CODES);
}

/** The guarded fetch's own failure, however deep a client library wrapped it (as `cause`). */
export function guardedFetchFailure(error: unknown): (Failure & { code: GuardedFetchCode }) | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (isGuardedFetchFailure(current)) return current;
    current = current.cause;
  }
  return undefined;
}

const DEFAULT_MAX_REDIRECTS = 5;

/** A fetch that only goes where a tool call may go, with the credential and caps applied. */
export function guardedFetch(options: GuardedFetchOptions): FetchFn {
  const allowed = allowedOriginMap(options.allowedOrigins);
  const guard = guardWith(options.signal);
  const redact = redactorFor(options.credential?.value);
  let received = 0;

  const countBytes = (body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await guard(reader.read());
          if (done) {
            controller.close();
            return;
          }
          received += value.byteLength;
          if (received > options.maxResponseBytes) {
            reader.cancel().catch(() => undefined);
            controller.error(Failure.of("too_large", `the responses exceed ${options.maxResponseBytes} bytes`));
            return;
          }
          controller.enqueue(value);
        } catch (error) {
          reader.cancel().catch(() => undefined);
          controller.error(error);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
  };

  return async (input, init) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const body = init?.body ?? undefined;
    if (body !== undefined && typeof body !== "string") throw new TypeError("guardedFetch sends text bodies only");
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      throw Failure.of("blocked_destination", "not a valid absolute URL");
    }
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    let credentialHeader = options.credentialHeader;
    if (options.credential !== undefined) {
      const applied = applyCredential(url, headers, options.credential);
      if (!applied.ok) throw Failure.of("invalid_definition", applied.message);
      credentialHeader = applied.credentialHeader;
    }
    const prepared: PreparedRequest = {
      method: init?.method ?? "GET",
      url,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(credentialHeader === undefined ? {} : { credentialHeader }),
    };
    const delivery = await deliver(prepared, {
      fetch: options.fetch,
      allowed,
      maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
      signal: options.signal,
      guard,
      resolveName: options.resolveName,
      ...(options.check === undefined ? {} : { check: options.check }),
    });
    if (!delivery.ok && delivery.kind === "network") throw nameLookupFailure(redact.text(delivery.message));
    if (!delivery.ok) throw Failure.of(delivery.kind, redact.text(delivery.message));
    const { response } = delivery;
    const bodyless = response.body === null || [101, 204, 205, 304].includes(response.status);
    return new Response(bodyless || response.body === null ? null : countBytes(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
