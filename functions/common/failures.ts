/**
 * The one error model. Domain code that cannot do something throws a `Failure` or returns an
 * `Outcome`; every failure has a `kind` (the problem type a client sees; http/problem.ts gives
 * each kind its one HTTP status and title) and may name a finer `code` declared in FAILURE_CODES
 * under exactly one kind. Only `http/` turns a failure into a problem document, with one function.
 */

/** What kind of failure this is: the problem type a client branches on (http/problem.ts: its status and title). */
export type FailureKind =
  | "malformed-json"
  | "invalid-request"
  | "json-too-deep"
  | "invalid-document"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "method-not-allowed"
  | "conflict"
  | "request-in-progress"
  | "payload-too-large"
  | "unsupported-media-type"
  | "tool-call-refused"
  | "feedback-refused"
  | "idempotency-key-reused"
  | "rate-limited"
  | "quota-exceeded"
  | "not-configured"
  | "upstream-error"
  | "internal";

/**
 * The finer reasons domain code names, each under the one kind (and so the one status) it has
 * wherever it surfaces. Callers branch on these (a background import stores them as the job's
 * error code), never on message text.
 */
export const FAILURE_CODES = {
  // A tool import the user has to fix (tools/: OpenAPI, list, a big document's batches).
  unparseable: "invalid-document",
  not_openapi: "invalid-document",
  no_operations: "invalid-document",
  broken_ref: "invalid-document",
  no_server_url: "invalid-document",
  duplicate_name: "invalid-document",
  invalid_option: "invalid-document",
  invalid_list: "invalid-document",
  // A big document cut into units as it streams (tools/big-import/, storage/tenant-imports.ts).
  yaml_alias_across_units: "invalid-document",
  unit_too_large: "invalid-document",
  // A request through the safe-call path (tools/safe-call/guarded-fetch.ts) or an exchange with a
  // remote MCP server (tools/mcp-remote-client.ts) that did not happen or was cut.
  blocked_destination: "invalid-request",
  invalid_definition: "invalid-request",
  too_many_redirects: "upstream-error",
  too_large: "upstream-error",
  name_lookup: "upstream-error",
  network: "upstream-error",
  timeout: "upstream-error",
  http_status: "upstream-error",
  protocol_error: "upstream-error",
  // A graph operation that refuses its input (toolnet/graph/errors.ts).
  unknown_tool: "invalid-request",
  reserved_name: "invalid-request",
  invalid_tool_name: "invalid-request",
  invalid_trajectory: "invalid-request",
  trajectory_conflict: "invalid-request",
  invalid_scores: "invalid-request",
  invalid_settings: "invalid-request",
  invalid_options: "invalid-request",
  invalid_snapshot: "invalid-request",
  // One update of a feedback batch refused, so none was applied (toolnet/graph/feedback-batch.ts).
  feedback_item_refused: "feedback-refused",
  // Play2Prompt settings or a checkpoint that do not fit (prompt-play/settings.ts).
  invalid_play_settings: "invalid-request",
  // A job's model-call or token budget is spent (prompt-play/budget.ts); the searches stop on it.
  budget_exhausted: "quota-exceeded",
  // A model call that failed after the client's retries (llm/errors.ts): the upstream's problem.
  model_call_failed: "upstream-error",
  model_rate_limited: "rate-limited",
} as const satisfies Record<string, FailureKind>;

export type FailureCode = keyof typeof FAILURE_CODES;

/** One field that failed validation. */
export interface FieldError {
  path: string;
  message: string;
}

/** A failure as plain data: safe to return across Durable Object RPC (class identity is lost there). */
export interface FailureData {
  kind: FailureKind;
  detail?: string;
  errors?: FieldError[];
  /** Seconds after which a retry may succeed. */
  retryAfter?: number;
  code?: FailureCode;
  /** What the failure is about, when it names things: tool names, trajectory ids. */
  names?: readonly string[];
}

/** What a failure may carry besides its kind and detail. */
export type FailureExtras = Omit<FailureData, "kind" | "detail"> & { cause?: unknown };

/**
 * Thrown by domain code; the HTTP error boundary renders it as a problem of the same kind. An
 * Error because it is thrown: it unwinds to whoever can answer it (a catch site, the boundary)
 * with a stack for the log.
 */
export class Failure extends Error {
  readonly kind: FailureKind;
  readonly detail: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly retryAfter: number | undefined;
  readonly code: FailureCode | undefined;
  readonly names: readonly string[] | undefined;

  constructor(kind: FailureKind, detail?: string, errors?: FieldError[], retryAfter?: number) {
    super(detail ?? kind);
    this.name = "Failure";
    this.kind = kind;
    this.detail = detail;
    this.errors = errors;
    this.retryAfter = retryAfter;
    this.code = undefined;
    this.names = undefined;
  }

  /** A failure of a declared code, under the code's kind. */
  static of(code: FailureCode, detail: string, extras: Omit<FailureExtras, "code"> = {}): Failure {
    return Failure.from({ kind: FAILURE_CODES[code], detail, ...extras, code }, extras.cause);
  }

  static from(data: FailureData, cause?: unknown): Failure {
    const made = new Failure(data.kind, data.detail, data.errors, data.retryAfter);
    // Set after construction so that a plain `new Failure(kind, …)` keeps its short signature.
    Object.assign(made, { code: data.code, names: data.names, ...(cause === undefined ? {} : { cause }) });
    return made;
  }

  toData(): FailureData {
    return {
      kind: this.kind,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
      ...(this.errors === undefined ? {} : { errors: this.errors }),
      ...(this.retryAfter === undefined ? {} : { retryAfter: this.retryAfter }),
      ...(this.code === undefined ? {} : { code: this.code }),
      ...(this.names === undefined ? {} : { names: this.names }),
    };
  }
}

/** Whether `error` is a Failure, of one of `codes` when they are given. */
export function isFailure(error: unknown, ...codes: FailureCode[]): error is Failure {
  return error instanceof Failure && (codes.length === 0 || (error.code !== undefined && codes.includes(error.code)));
}

/** Result of an operation that may fail for a reason the caller should show: a value, or a failure. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: FailureData };

export const success = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const failure = (kind: FailureKind, detail?: string): Outcome<never> => ({
  ok: false,
  problem: { kind, ...(detail === undefined ? {} : { detail }) },
});

/** The value, or throw the failure. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw Failure.from(outcome.problem);
}
