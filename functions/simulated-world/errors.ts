// Error bodies follow TMDB's shape ({success, status_code, status_message}) because RestBench
// agents were built against it and it is what a probing agent learns from. status_code is TMDB's
// application code where TMDB has one (34: not found, 5: invalid parameters).

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

/** A JSON response with the given status and extra headers. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** 404 in TMDB's words: the path or the identifier names nothing the world knows. */
export function notFound(): Response {
  return jsonResponse({ success: false, status_code: 34, status_message: "The resource you requested could not be found." }, 404);
}

/** 405 listing the methods the path does support. */
export function methodNotAllowed(method: string, allow: readonly string[]): Response {
  return jsonResponse(
    {
      success: false,
      status_code: 405, // TMDB has no code for this; mirror the HTTP status
      status_message: `Method ${method} is not allowed here; allowed: ${allow.join(", ")}.`,
    },
    405,
    { allow: allow.join(", ") },
  );
}

/** 400 naming the offending parameter, so a probing caller can correct itself. */
export function invalidParameter(problems: readonly string[]): Response {
  return jsonResponse(
    {
      success: false,
      status_code: 5,
      status_message: `Invalid parameters: ${problems.join(" ")}`,
      errors: problems,
    },
    400,
  );
}

/** 501 for an operation the source documents give no response for. */
export function noRecordedResponse(operation: string): Response {
  return jsonResponse(
    {
      success: false,
      status_code: 501,
      status_message: `The simulated world has no documented or recorded response for ${operation}.`,
    },
    501,
  );
}
