import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { Failure, isFailure } from "../common/failures";
import { redactSecret } from "./redact";
import { retryAfterMs } from "./call-deadline";
import { modelCallFailure, modelCallOf, type ModelCallErrorKind } from "./model-call-failure";

export { modelCallFailure, modelCallOf, modelCallProblem, type ModelCallFacts } from "./model-call-failure";

/**
 * Every way a model call can fail, as one `Failure` whose facts (`modelCallOf`) name the `kind`,
 * so callers branch on it instead of on SDK classes, and nothing they log can carry the API key.
 */

export type { ModelCallErrorKind } from "./model-call-failure";

const MAX_DETAIL_CHARS = 500;

function kindForStatus(status: number): ModelCallErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limited";
  if (status === 404) return "not_found";
  if (status === 408) return "timeout";
  if (status >= 500) return "server_error";
  return "bad_request";
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_DETAIL_CHARS ? `${oneLine.slice(0, MAX_DETAIL_CHARS)}…` : oneLine;
}

/** Builds the error for a failure; `detail` is redacted and clipped here, once for all paths. */
export function modelCallError(
  kind: ModelCallErrorKind,
  detail: string,
  context: { purpose: string; apiKey: string; status?: number | undefined; requestId?: string | undefined; retryAfterSeconds?: number | undefined },
): Failure {
  const status = context.status === undefined ? "" : ` (HTTP ${context.status})`;
  const safeDetail = clip(redactSecret(detail, context.apiKey));
  return modelCallFailure({
    kind,
    message: `model call "${context.purpose}" failed: ${kind}${status}: ${safeDetail}`,
    purpose: context.purpose,
    status: context.status,
    requestId: context.requestId ?? undefined,
    retryAfterSeconds: context.retryAfterSeconds,
  });
}

/** The destination guard refused a hop (or the redirect chain): nothing was sent there. */
export function refusedByGuard(err: unknown): err is Failure {
  return isFailure(err, "blocked_destination", "too_many_redirects");
}

/** Maps whatever the SDK (or response parsing) threw to a model call's failure. */
export function toModelCallError(err: unknown, context: { purpose: string; apiKey: string }): Failure {
  if (err instanceof Failure && modelCallOf(err) !== undefined) return err;
  // The call's own deadline (call-deadline.ts).
  if (isFailure(err, "timeout")) return modelCallError("timeout", err.message, context);
  // Subclasses first: all three extend APIConnectionError, which extends APIError.
  if (err instanceof APIConnectionTimeoutError) return modelCallError("timeout", "no answer before the timeout", context);
  if (err instanceof APIUserAbortError) return modelCallError("aborted", "the call was aborted", context);
  if (err instanceof APIConnectionError) {
    if (refusedByGuard(err.cause)) return modelCallError("blocked_destination", (err.cause as Error).message, context);
    return modelCallError("connection", err.message, context);
  }
  if (refusedByGuard(err)) return modelCallError("blocked_destination", (err as Error).message, context);
  if (err instanceof APIError && typeof err.status === "number") {
    // The SDK prefixes its message with the status, which ours already shows.
    const waitMs = err.headers === undefined ? undefined : retryAfterMs(err.headers);
    return modelCallError(kindForStatus(err.status), err.message.replace(/^\d{3}\s+/, ""), {
      ...context,
      status: err.status,
      requestId: err.requestID ?? undefined,
      ...(waitMs === undefined ? {} : { retryAfterSeconds: Math.ceil(waitMs / 1000) }),
    });
  }
  // The SDK parses JSON bodies itself and lets the parser's error through.
  if (err instanceof SyntaxError) return modelCallError("malformed_response", `answer is not valid JSON: ${err.message}`, context);
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return modelCallError("unexpected", message, context);
}
