/**
 * A request as an HTTP client sends a JSON body: with its Content-Length. Miniflare's
 * dispatchFetch otherwise forwards a string body chunked, and the service then reads it through
 * its bounded streaming reader (request-body.ts), a cost clients that send the length (the OpenAI
 * SDK, fetch, curl) never see; the floor Worker reads either kind natively.
 */
export function withContentLength(init: RequestInit): RequestInit {
  if (typeof init.body !== "string") return init;
  return { ...init, headers: { ...(init.headers as Record<string, string> | undefined), "content-length": String(Buffer.byteLength(init.body)) } };
}
