import type OpenAI from "openai";
import type { Failure } from "../common/failures";
import { guardedFetch } from "../tools/safe-call/guarded-fetch";
import type { DestinationCheck } from "../tools/safe-call/destination";
import type { NameResolver } from "../tools/safe-call/types";
import { CallDeadline, retryAfterMs } from "./call-deadline";
import { refusedByGuard } from "./errors";
import { WORKERS_AI_SDK_BASE_URL } from "./workers-ai";

/**
 * How one SDK call reaches the model endpoint: through the safe-call path's guarded fetch (every
 * hop checked, the key kept on its first origin, the answer's size bounded), within the call's
 * deadline, a destination refusal final.
 */

/** Model answers can be long (embeddings of many inputs), but not unbounded. */
const MAX_MODEL_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The safe-call path's guarded fetch for one SDK request: its signal (the SDK's timeout and the
 * caller's abort) bounds the exchange; every hop passes `check`; the key stays on the first origin.
 */
export function guardedModelFetch(
  network: typeof fetch,
  check: (url: string) => DestinationCheck,
  onRefused: (refusal: Failure) => void,
  viaBinding: boolean,
  resolveName: NameResolver | undefined,
  deadlineAt: number,
): typeof fetch {
  // The Workers AI binding is reached through a placeholder origin that no DNS answers: it is the
  // binding's own route, never a name to look up.
  const allowedOrigins = viaBinding ? { [new URL(WORKERS_AI_SDK_BASE_URL).origin]: { fetch: network } } : undefined;
  return async (input, init) => {
    const body = init?.body ?? undefined;
    const text = body === undefined || body === null || typeof body === "string" ? body : await new Response(body).text();
    try {
      const response = await guardedFetch({
        fetch: network,
        signal: init?.signal ?? new AbortController().signal,
        maxResponseBytes: MAX_MODEL_RESPONSE_BYTES,
        check,
        allowedOrigins,
        resolveName,
        credentialHeader: "Authorization",
      })(input, { ...init, ...(text === undefined || text === null ? {} : { body: text }) });
      return waitsWithinDeadline(response, deadlineAt);
    } catch (error) {
      if (refusedByGuard(error)) onRefused(error);
      throw error;
    }
  };
}

/**
 * An answer asking to be retried later than the call's deadline is final at once: the SDK would
 * otherwise sleep as long as `Retry-After` says (100 s and more), holding the run and its slot.
 * `x-should-retry: false` is the SDK's own switch; the wait stays on the error (`retryAfterSeconds`).
 */
function waitsWithinDeadline(response: Response, deadlineAt: number): Response {
  const waitMs = retryAfterMs(response.headers);
  if (waitMs === undefined || Date.now() + waitMs <= deadlineAt) return response;
  const headers = new Headers(response.headers);
  headers.set("x-should-retry", "false");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * One SDK call whose destination refusal is final. The SDK retries anything its fetch throws as
 * a connection error, so a refused redirect would be sent again (the endpoint would receive the
 * prompt once per attempt); the refusal aborts the call instead, which the SDK never retries.
 */
export async function refusalIsFinal<T>(
  sdk: OpenAI,
  timeoutMs: number,
  fetchThroughGuard: (onRefused: (refusal: Failure) => void, deadlineAt: number) => typeof fetch,
  callerSignal: AbortSignal | undefined,
  call: (client: OpenAI, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const refused = new AbortController();
  const deadline = new CallDeadline(timeoutMs);
  const client = sdk.withOptions({ fetch: fetchThroughGuard((refusal) => refused.abort(refusal), deadline.at) });
  const signal = AbortSignal.any([refused.signal, deadline.signal, ...(callerSignal === undefined ? [] : [callerSignal])]);
  try {
    // Raced too: a body that stalls after its headers ends here even where the transport's body
    // read does not listen to the signal.
    return await deadline.race(call(client, signal));
  } catch (error) {
    if (refused.signal.aborted) throw refused.signal.reason as unknown;
    if (deadline.signal.aborted && callerSignal?.aborted !== true) throw deadline.signal.reason as unknown;
    throw error;
  } finally {
    deadline.clear();
  }
}
