import { z } from "zod";
import type { FailureData, FailureKind } from "../common/failures";

/**
 * RFC 9457 problem details. Every error the API returns has this shape, with a stable `type`
 * URI per kind of problem, so clients branch on `type`, never on message text.
 */

export const PROBLEM_BASE = "https://atc-edge.dev/problems/";

/** Every failure kind with its one HTTP status and short title: the only place a kind meets a status. */
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
} as const satisfies Record<FailureKind, { status: number; title: string }>;

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

/**
 * A failure as its RFC 9457 document (the body of a response, or the data of a streamed `problem`
 * event): the one function that makes a problem, from a `Failure` or its data. Its finer `code`
 * and `names` stay inside the service; clients branch on `type`.
 */
export function problemDocument(failure: FailureData, instance?: string): Problem {
  const kind = PROBLEM_KINDS[failure.kind];
  return {
    type: PROBLEM_BASE + failure.kind,
    title: kind.title,
    status: kind.status,
    ...(failure.detail === undefined ? {} : { detail: failure.detail }),
    ...(instance === undefined ? {} : { instance }),
    ...(failure.errors === undefined ? {} : { errors: failure.errors }),
  };
}

/** A failure as an RFC 9457 response; `retryAfter` is sent as `Retry-After` (429, 409 in progress). */
export function problemResponse(failure: FailureData, instance?: string, headers?: HeadersInit): Response {
  const responseHeaders = new Headers(headers);
  responseHeaders.set("content-type", "application/problem+json");
  if (failure.retryAfter !== undefined) responseHeaders.set("retry-after", String(Math.max(1, Math.ceil(failure.retryAfter))));
  return new Response(JSON.stringify(problemDocument(failure, instance)), { status: PROBLEM_KINDS[failure.kind].status, headers: responseHeaders });
}
