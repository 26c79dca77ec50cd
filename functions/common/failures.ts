/**
 * How domain code says that something could not be done. Modules outside `http/` throw `Failure`
 * or return an `Outcome`; only `http/` turns a failure's kind into a status and a problem document.
 */

/** What kind of failure this is; http/problem.ts gives each a status and a title. */
export type FailureKind =
  | "invalid-request"
  | "invalid-document"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "conflict"
  | "request-in-progress"
  | "tool-call-refused"
  | "feedback-refused"
  | "idempotency-key-reused"
  | "rate-limited"
  | "quota-exceeded"
  | "not-configured"
  | "upstream-error"
  | "internal";

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
}

/** Thrown by domain code; the HTTP error boundary renders it as a problem of the same kind. */
export class Failure extends Error {
  readonly kind: FailureKind;
  readonly detail: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(kind: FailureKind, detail?: string, errors?: FieldError[], retryAfter?: number) {
    super(detail ?? kind);
    this.name = "Failure";
    this.kind = kind;
    this.detail = detail;
    this.errors = errors;
    this.retryAfter = retryAfter;
  }

  static from(data: FailureData): Failure {
    return new Failure(data.kind, data.detail, data.errors, data.retryAfter);
  }

  toData(): FailureData {
    return {
      kind: this.kind,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
      ...(this.errors === undefined ? {} : { errors: this.errors }),
      ...(this.retryAfter === undefined ? {} : { retryAfter: this.retryAfter }),
    };
  }
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
