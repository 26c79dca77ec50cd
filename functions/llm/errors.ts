import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { type Failure, type FailureData, isFailure } from "../common/failures";
import { redactSecret } from "./redact";
import { retryAfterMs } from "./call-deadline";

/**
 * One error type for every way a model call can fail, so callers branch on `kind`
 * instead of on SDK classes, and nothing they log can carry the API key.
 */

export type ModelCallErrorKind =
  /** 401/403: key missing, wrong or without access. */
  | "auth"
  /** 429. */
  | "rate_limited"
  /** 404: unknown model or wrong base URL. */
  | "not_found"
  /** Other 4xx: the endpoint rejected the request. */
  | "bad_request"
  /** 5xx. */
  | "server_error"
  /** No answer within the timeout (or a 408). */
  | "timeout"
  /** The endpoint could not be reached. */
  | "connection"
  /** The caller's AbortSignal fired. */
  | "aborted"
  /** An answer came back but is not a usable Chat Completions / Embeddings response. */
  | "malformed_response"
  /** The destination guard refused the endpoint or one of its redirects: nothing was sent there. */
  | "blocked_destination"
  /** embed() called while no embedding model is configured. */
  | "embeddings_disabled"
  | "unexpected";

const RETRYABLE: ReadonlySet<ModelCallErrorKind> = new Set(["rate_limited", "server_error", "timeout", "connection"]);

const MAX_DETAIL_CHARS = 500;

export class ModelCallError extends Error {
  override readonly name = "ModelCallError";
  readonly kind: ModelCallErrorKind;
  /** HTTP status when the endpoint answered with one. */
  readonly status: number | undefined;
  /** Whether trying again later may succeed (the SDK has already retried these). */
  readonly retryable: boolean;
  readonly purpose: string;
  /** The endpoint's request id, when it sent one; useful in support requests. */
  readonly requestId: string | undefined;
  /** How long the endpoint asked to be left alone (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    kind: ModelCallErrorKind;
    message: string;
    purpose: string;
    status?: number | undefined;
    requestId?: string | undefined;
    retryAfterSeconds?: number | undefined;
  }) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.retryable = RETRYABLE.has(init.kind);
    this.purpose = init.purpose;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  toJSON(): { kind: ModelCallErrorKind; message: string; status: number | null; retryable: boolean; purpose: string } {
    return {
      kind: this.kind,
      message: this.message,
      status: this.status ?? null,
      retryable: this.retryable,
      purpose: this.purpose,
    };
  }
}

/** When the model endpoint gave no `Retry-After` of its own, a caller is asked to wait this long. */
const MODEL_RETRY_AFTER_SECONDS = 10;

/** A failed model call as the service's problem: 429 with `Retry-After` when rate-limited, else 502. */
export function modelCallProblem(error: ModelCallError, detail: string): FailureData {
  if (error.kind !== "rate_limited") return { kind: "upstream-error", detail };
  return { kind: "rate-limited", detail, retryAfter: error.retryAfterSeconds ?? MODEL_RETRY_AFTER_SECONDS };
}

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
): ModelCallError {
  const status = context.status === undefined ? "" : ` (HTTP ${context.status})`;
  const safeDetail = clip(redactSecret(detail, context.apiKey));
  return new ModelCallError({
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

/** Maps whatever the SDK (or response parsing) threw to a ModelCallError. */
export function toModelCallError(err: unknown, context: { purpose: string; apiKey: string }): ModelCallError {
  if (err instanceof ModelCallError) return err;
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
