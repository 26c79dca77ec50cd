// The program host's name lookups in local development (functions/sandbox/program-host/entry.ts
// asks this through its NAME_RESOLVER binding, a Node function Miniflare runs in this process;
// scripts/program-host-process.mjs): the operating system's resolver, as `getaddrinfo` sees it,
// bounded in time. Only a definite "no such name" says a name does not resolve; a timeout or a
// resolver in trouble (EAI_AGAIN, EAI_FAIL, …) says nothing, so a call proceeds as before.
import { promises as dns } from "node:dns";

/** Node's codes for a resolver that answered, definitively, that the name has no address. */
export const NO_SUCH_NAME_CODES = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA"]);

/** Longest a lookup may take before the answer is "cannot tell". */
export const LOOKUP_TIMEOUT_MS = 2_000;

/**
 * `{ resolves: true, addresses }`, `{ resolves: false }`, or `{ resolves: null }` (cannot tell).
 * `lookup` is injectable for tests; by default `dns.promises.lookup`.
 */
export async function resolveHostName(name, { timeoutMs = LOOKUP_TIMEOUT_MS, lookup = (host) => dns.lookup(host, { all: true }) } = {}) {
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ resolves: null }), timeoutMs);
  });
  const looked = Promise.resolve()
    .then(() => lookup(name))
    .then(
      (found) => ({ resolves: true, addresses: found.map((entry) => entry.address) }),
      (error) => ({ resolves: NO_SUCH_NAME_CODES.has(error?.code) ? false : null }),
    );
  try {
    return await Promise.race([looked, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The NAME_RESOLVER binding: `GET …?host=NAME` → the JSON answer; anything else 400. */
export async function answerResolveRequest(request, options) {
  const name = new URL(request.url).searchParams.get("host") ?? "";
  if (name === "" || name.length > 253) return Response.json({ error: "a host name is required (at most 253 characters)" }, { status: 400 });
  return Response.json(await resolveHostName(name, options));
}
