import { Failure } from "../common/failures";

/**
 * One model call's total deadline. The SDK's own timeout ends only the wait for headers: a body
 * that stalls after them, or a `Retry-After` it obeys as sent, would hold a run (and its slot)
 * without limit. The deadline covers the whole call: connecting, headers, body, retries and the
 * waits between them.
 */

export class CallDeadline {
  readonly at: number;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;

  constructor(ms: number) {
    this.at = Date.now() + ms;
    // The abort's reason is a `timeout` Failure, which the client reports as a model call's timeout.
    const reason = `no complete answer within ${ms} ms (MODEL_TIMEOUT_MS: headers, body and retries included)`;
    this.#timer = setTimeout(() => this.#controller.abort(Failure.of("timeout", reason)), ms);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The call's result, or the deadline's error when it comes first. */
  race<T>(call: Promise<T>): Promise<T> {
    const signal = this.#controller.signal;
    const expired = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    return Promise.race([call, expired]);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/** How long an answer asks to be waited for (`retry-after-ms`, else `Retry-After` in seconds or as a date). */
export function retryAfterMs(headers: Headers): number | undefined {
  const millis = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(millis) && millis >= 0) return millis;
  const header = headers.get("retry-after");
  if (header === null) return undefined;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
