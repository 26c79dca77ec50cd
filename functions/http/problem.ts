import { z } from "zod";
import type { Failure, FailureData, FailureKind } from "../common/failures";

/**
 * RFC 9457 problem details. Every error the API returns has this shape, with a stable `type`
 * URI per kind of problem, so clients branch on `type`, never on message text.
 */

export const PROBLEM_BASE = "https://atc-edge.dev/problems/";

/** The problem kinds the API can return, with their HTTP status and short title. */
export const PROBLEM_KINDS = {
  "malformed-json": { status: 400, title: "Malformed JSON" },
  "invalid-request": { status: 400, title: "Invalid request" },
  "json-too-deep": { status: 400, title: "JSON nested too deeply" },
  "invalid-document": { status: 422, title: "Invalid tool document" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
  "not-found": { status: 404, title: "Not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  "request-in-progress": { status: 409, title: "The same request is still being processed" },
  "payload-too-large": { status: 413, title: "Payload too large" },
  "unsupported-media-type": { status: 415, title: "Unsupported media type" },
  "tool-call-refused": { status: 422, title: "Tool call refused" },
  "feedback-refused": { status: 422, title: "Feedback refused" },
  "idempotency-key-reused": { status: 422, title: "Idempotency key reused with a different request" },
  "rate-limited": { status: 429, title: "Too many requests" },
  "quota-exceeded": { status: 429, title: "Quota exceeded" },
  "not-configured": { status: 503, title: "Not configured" },
  "upstream-error": { status: 502, title: "Upstream error" },
  internal: { status: 500, title: "Internal error" },
} as const satisfies Record<FailureKind | HttpOnlyKind, { status: number; title: string }>;

/** Kinds only the HTTP layer raises (about the request itself, before any domain code runs). */
type HttpOnlyKind = "malformed-json" | "json-too-deep" | "method-not-allowed" | "payload-too-large" | "unsupported-media-type";

export type ProblemKind = keyof typeof PROBLEM_KINDS;

export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  errors: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe("Field-level validation errors"),
});
export type Problem = z.infer<typeof Problem>;

/** A problem as plain data; `retryAfter` is sent as `Retry-After` (429, 409 in progress). */
export interface ProblemData extends Omit<FailureData, "kind"> {
  kind: ProblemKind;
}

/** Thrown in request handling (http/ only; domain code throws `Failure`); the error boundary renders it. */
export class ApiError extends Error {
  readonly kind: ProblemKind;
  readonly detail: string | undefined;
  readonly errors: { path: string; message: string }[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(kind: ProblemKind, detail?: string, errors?: { path: string; message: string }[], retryAfter?: number) {
    super(detail ?? PROBLEM_KINDS[kind].title);
    this.name = "ApiError";
    this.kind = kind;
    this.detail = detail;
    this.errors = errors;
    this.retryAfter = retryAfter;
  }

  static from(data: ProblemData): ApiError {
    return new ApiError(data.kind, data.detail, data.errors, data.retryAfter);
  }
}

/** A problem as its RFC 9457 document (the body of a response, or the data of a streamed `problem` event). */
export function problemDocument(data: ProblemData, instance?: string): Problem {
  const kind = PROBLEM_KINDS[data.kind];
  return {
    type: PROBLEM_BASE + data.kind,
    title: kind.title,
    status: kind.status,
    ...(data.detail === undefined ? {} : { detail: data.detail }),
    ...(instance === undefined ? {} : { instance }),
    ...(data.errors === undefined ? {} : { errors: data.errors }),
  };
}

/** Render a problem as an RFC 9457 response. */
export function problemResponse(data: ProblemData, instance?: string, headers?: HeadersInit): Response {
  const kind = PROBLEM_KINDS[data.kind];
  const body = problemDocument(data, instance);
  const responseHeaders = new Headers(headers);
  responseHeaders.set("content-type", "application/problem+json");
  if (data.retryAfter !== undefined) responseHeaders.set("retry-after", String(Math.max(1, Math.ceil(data.retryAfter))));
  return new Response(JSON.stringify(body), { status: kind.status, headers: responseHeaders });
}

/** A domain failure as a problem of the same kind. */
export function failureProblem(error: Failure): ProblemData {
  return error.toData();
}
