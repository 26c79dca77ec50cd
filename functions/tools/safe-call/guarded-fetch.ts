import { checkDestination, type DestinationCheck } from "./destination";
import { deliver } from "./redirects";
import type { FetchFn } from "./types";

/**
 * A `fetch` that sends nothing the destination guard refuses, on the first URL and on every
 * redirect hop, exactly as tool calls do (the same `deliver`). For clients that bring their own
 * HTTP stack, like the `openai` SDK: every model and embeddings request goes through it. The
 * Authorization header is dropped when a redirect leaves the first origin.
 */

export const GUARDED_MAX_REDIRECTS = 5;

/** Thrown (to the SDK, which wraps it) when a hop is refused; nothing was sent to that hop. */
export class DestinationRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefusedError";
  }
}

export interface GuardedFetchOptions {
  /** The check of each hop; the model client passes one with its loopback allowance. */
  check?: (url: string) => DestinationCheck;
  maxRedirects?: number;
}

export function guardedFetch(network: FetchFn, options: GuardedFetchOptions = {}): FetchFn {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body === null ? undefined : await request.text();
    const delivery = await deliver(
      { method: request.method, url: new URL(request.url), headers: request.headers, ...(body === undefined ? {} : { body }), credentialHeader: "Authorization" },
      {
        fetch: network,
        allowed: new Map(),
        maxRedirects: options.maxRedirects ?? GUARDED_MAX_REDIRECTS,
        signal: init?.signal ?? request.signal,
        guard: (step) => step,
        check: options.check ?? ((url) => checkDestination(url)),
      },
    );
    if (!delivery.ok) throw new DestinationRefusedError(`${delivery.message} (${delivery.url.origin})`);
    return delivery.response;
  };
}
