import { checkDestination, parseWebUrl, type DestinationCheck } from "./destination";
import { addressAsHost, askResolver, unresolvableName } from "./name-lookup";
import type { PreparedRequest } from "./request";
import type { FetchFn, NameResolver } from "./types";

/**
 * Sends a prepared request and follows redirects by hand (`redirect: "manual"`), so the
 * destination guard sees every hop, not just the first URL.
 */

export type Transport = {
  /** The network for ordinary destinations. */
  fetch: FetchFn;
  /** Normalised origin → fetcher, for explicitly allowed origins. */
  allowed: Map<string, FetchFn>;
  maxRedirects: number;
  signal: AbortSignal;
  /** Wraps each await so the overall timeout interrupts it even if the fetcher ignores the signal. */
  guard: <T>(step: Promise<T>) => Promise<T>;
  /** The destination check of each hop (default: the guard for tenants' tools). */
  check?: (url: string) => DestinationCheck;
  /** Asked about each hop's host name before the network is (local development; see name-lookup.ts). */
  resolveName?: NameResolver | undefined;
};

export type Delivery =
  | { ok: true; response: Response; url: URL }
  | { ok: false; kind: "blocked_destination" | "too_many_redirects"; message: string; url: URL }
  /** The host name does not resolve (name-lookup.ts): answered here, without the network; `message` says why. */
  | { ok: false; kind: "network"; cause: "name_lookup"; message: string; url: URL };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Normalises an `allowedOrigins` option to exact `URL.origin` keys. Throws on a malformed key. */
export function allowedOriginMap(allowed: Record<string, { fetch: FetchFn }> | undefined): Map<string, FetchFn> {
  const map = new Map<string, FetchFn>();
  for (const [origin, entry] of Object.entries(allowed ?? {})) {
    const parsed = parseWebUrl(origin);
    if (!parsed.ok) throw new TypeError(`allowedOrigins key "${origin}": ${parsed.reason}`);
    map.set(parsed.url.origin, entry.fetch);
  }
  return map;
}

/** Sends `request`, following up to `maxRedirects` redirects, each hop checked by the guard. */
export async function deliver(request: PreparedRequest, transport: Transport): Promise<Delivery> {
  let url = request.url;
  let method = request.method;
  let body = request.body;
  const headers = new Headers(request.headers);
  for (let redirects = 0; ; redirects++) {
    const route = await routeFor(url, transport);
    if (!route.ok) return { ...route, url };

    const fetcher = route.fetch; // called detached: global fetch must not get another `this`
    const response = await transport.guard(
      fetcher(url.href, { method, headers, redirect: "manual", signal: transport.signal, ...(body !== undefined ? { body } : {}) }),
    );
    const location = response.headers.get("Location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) {
      return { ok: true, response, url };
    }
    response.body?.cancel().catch(() => undefined);
    if (redirects >= transport.maxRedirects) {
      return { ok: false, kind: "too_many_redirects", message: `more than ${transport.maxRedirects} redirects`, url };
    }

    let next: URL;
    try {
      next = new URL(location, url); // relative Locations resolve against the current hop
    } catch {
      return { ok: false, kind: "blocked_destination", message: `redirect Location is not a valid URL`, url };
    }
    // 303 always, and 301/302 after POST, turn into GET without a body (as browsers do);
    // 307/308 replay the same method and body.
    if ((response.status === 303 && method !== "HEAD") || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      headers.delete("Content-Type");
    }
    // The credential is for the tool's own origin; another origin must not receive it.
    if (request.credentialHeader !== undefined && next.origin !== request.url.origin) {
      headers.delete(request.credentialHeader);
    }
    url = next;
  }
}

type Route =
  | { ok: true; fetch: FetchFn }
  | { ok: false; kind: "blocked_destination"; message: string }
  | { ok: false; kind: "network"; cause: "name_lookup"; message: string };

/**
 * Picks the fetcher for a URL: its allow-listed fetcher, or the network if the guard passes and
 * the name resolves (a name that never resolves, or that the given resolver denies, is answered
 * here, not by the platform). The lookup runs under the call's deadline.
 */
async function routeFor(url: URL, transport: Transport): Promise<Route> {
  const web = parseWebUrl(url.href);
  if (!web.ok) return { ok: false, kind: "blocked_destination", message: `refused ${url.protocol}//${url.host}: ${web.reason}` };
  const allowed = transport.allowed.get(web.url.origin);
  if (allowed !== undefined) return { ok: true, fetch: allowed };
  const checkUrl = transport.check ?? checkDestination;
  const check = checkUrl(url.href);
  if (!check.ok) return { ok: false, kind: "blocked_destination", message: `refused destination: ${check.reason}` };
  const unresolvable = unresolvableName(url.hostname);
  if (unresolvable !== null) return { ok: false, kind: "network", cause: "name_lookup", message: unresolvable };
  const verdict = await transport.guard(askResolver(url.hostname, transport.resolveName));
  if (verdict !== undefined && "denied" in verdict) return { ok: false, kind: "network", cause: "name_lookup", message: verdict.denied };
  // Where the service sees the name's addresses, each passes the same guard as a literal would.
  for (const address of verdict?.addresses ?? []) {
    const byAddress = checkUrl(`${url.protocol}//${addressAsHost(address)}/`);
    if (!byAddress.ok) return { ok: false, kind: "blocked_destination", message: `refused destination: "${url.hostname}" resolves to ${byAddress.reason}` };
  }
  return { ok: true, fetch: transport.fetch };
}
