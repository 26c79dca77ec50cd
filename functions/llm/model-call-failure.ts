import { Failure, type FailureData } from "../common/failures";

/**
 * A model call's failure as the rest of the service reads it (a stopped run, the error boundary),
 * in a module of its own with no SDK import. Its facts are kept beside the `Failure`, not on it:
 * every other failure has none, and a failure that crossed RPC has lost them with its class.
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

/** What a failed model call says besides its message. */
export interface ModelCallFacts {
  kind: ModelCallErrorKind;
  /** HTTP status when the endpoint answered with one. */
  status: number | undefined;
  /** Whether trying again later may succeed (the SDK has already retried these). */
  retryable: boolean;
  purpose: string;
  /** The endpoint's request id, when it sent one; useful in support requests. */
  requestId: string | undefined;
  /** How long the endpoint asked to be left alone (`Retry-After`), when it said. */
  retryAfterSeconds: number | undefined;
}

/** Each model-call failure's facts, kept beside it (a failure that crossed RPC has none, as it has no class). */
const FACTS = new WeakMap<Failure, ModelCallFacts>();

/** A failed model call: a Failure (`model_rate_limited`, else `model_call_failed`) whose facts `modelCallOf` reads. */
export function modelCallFailure(init: {
  kind: ModelCallErrorKind;
  message: string;
  purpose: string;
  status?: number | undefined;
  requestId?: string | undefined;
  retryAfterSeconds?: number | undefined;
}): Failure {
  const failure = Failure.of(init.kind === "rate_limited" ? "model_rate_limited" : "model_call_failed", init.message);
  FACTS.set(failure, {
    kind: init.kind,
    status: init.status,
    retryable: RETRYABLE.has(init.kind),
    purpose: init.purpose,
    requestId: init.requestId,
    retryAfterSeconds: init.retryAfterSeconds,
  });
  return failure;
}

/** The facts of a model call's failure, or undefined when `error` is not one. */
export function modelCallOf(error: unknown): ModelCallFacts | undefined {
  return error instanceof Failure ? FACTS.get(error) : undefined;
}

/** When the model endpoint gave no `Retry-After` of its own, a caller is asked to wait this long. */
const MODEL_RETRY_AFTER_SECONDS = 10;

/** A failed model call as the service's problem: 429 with `Retry-After` when rate-limited, else 502. */
export function modelCallProblem(model: ModelCallFacts, detail: string): FailureData {
  if (model.kind !== "rate_limited") return { kind: "upstream-error", detail };
  return { kind: "rate-limited", detail, retryAfter: model.retryAfterSeconds ?? MODEL_RETRY_AFTER_SECONDS };
}
