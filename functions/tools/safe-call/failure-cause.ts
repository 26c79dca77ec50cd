/**
 * What went wrong when a tool could not be reached, as far as the platform tells a Worker.
 *
 * Deployed, a subrequest that cannot reach its origin usually comes back as a Cloudflare error
 * response (530 with `error code: 1016` for a name that does not resolve, 521–526 for refused
 * connections, timeouts and TLS) rather than as an exception. Locally, workerd throws
 * `internal error; reference = …` and keeps the reason (`DNS lookup failed`, …) for its own log;
 * then all that can be said is that no connection was made. Undici-style errors (Node, tests)
 * carry the reason in `cause`.
 */

export type FailureCause = "name_lookup" | "connect" | "tls" | "timeout" | "connection_lost" | "unknown";

const EXPLANATIONS: Record<FailureCause, string> = {
  name_lookup: "the tool's host name could not be looked up (DNS)",
  connect: "no connection could be made to the tool's host",
  tls: "the TLS handshake with the tool's host failed (certificate or protocol)",
  timeout: "the tool's host did not answer in time",
  connection_lost: "the connection to the tool's host was lost",
  unknown: "the connection could not be made; the Workers runtime does not say why (name lookup, connection or TLS)",
};

/** The sentence for a cause. */
export function explainCause(cause: FailureCause): string {
  return EXPLANATIONS[cause];
}

/** Classifies a thrown fetch error by its message (and its `cause`'s, for undici). */
export function causeOfThrown(error: unknown): FailureCause {
  const texts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth += 1) {
    if (e instanceof Error) {
      texts.push(`${e.name} ${e.message} ${(e as { code?: unknown }).code ?? ""}`);
      e = e.cause;
    } else {
      texts.push(String(e));
      break;
    }
  }
  const text = texts.join(" ");
  if (/DNS lookup|ENOTFOUND|EAI_AGAIN|getaddrinfo|Name or service not known|name resolution/i.test(text)) return "name_lookup";
  if (/TLS|SSL|certificate|CERT_|handshake/i.test(text)) return "tls";
  if (/ECONNREFUSED|ECONNRESET.*connect|connection refused|EHOSTUNREACH|ENETUNREACH|connect ETIMEDOUT/i.test(text)) return "connect";
  if (/ETIMEDOUT|timed? ?out/i.test(text)) return "timeout";
  if (/Network connection lost|ECONNRESET|socket hang up|other side closed|EPIPE/i.test(text)) return "connection_lost";
  return "unknown";
}

/** Cloudflare's own answers for an origin it could not reach (5xx statuses and 1xxx error codes). */
export function causeOfEdgeResponse(status: number, body: string): FailureCause | undefined {
  const code = /error code: (\d{4})/.exec(body)?.[1];
  if (code === "1016" || code === "1001") return "name_lookup";
  if (status === 521 || status === 523) return "connect";
  if (status === 522 || status === 524) return "timeout";
  if (status === 525 || status === 526) return "tls";
  if (status === 530 && code === undefined) return "connect";
  return undefined;
}
