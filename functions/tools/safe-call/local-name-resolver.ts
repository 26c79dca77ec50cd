import { PROGRAM_HOST_RESOLVE_PATH, PROGRAM_HOST_SECRET_HEADER, type ResolveAnswer } from "../../common/program-host";
import { NameCache } from "./name-cache";
import type { NameResolver } from "./types";

/**
 * Name lookups for tool calls in local development, asked of the program host (its Node side
 * answers with the operating system's resolver; scripts/program-host-process.mjs). Local workerd
 * fails a name that does not exist as an unexplained internal error and logs a stack for it, so
 * the safe-call path asks first and answers `name_lookup` itself (name-lookup.ts). Only where the
 * program host is configured (npm start, tests); deployed, Cloudflare answers such names with
 * 530/1016 and nothing is asked. A host that cannot answer (no resolver, slow, gone) lets the call
 * proceed as before.
 */

/** How long an answer is kept: a fixed typo keeps failing for at most this long. */
export const NAME_TTL_MS = 60_000;
/** Names remembered per isolate. */
export const MAX_NAMES = 1_000;
/** Longest wait for the program host's answer (its own lookup gives up after 2 s). */
export const RESOLVE_TIMEOUT_MS = 2_500;

const cache = new NameCache({ ttlMs: NAME_TTL_MS, maxEntries: MAX_NAMES });
/** Until when the program host is known to have no resolver (deployed, or an older host): not asked again till then. */
let unavailableUntil = 0;

/** The resolver of this service, or undefined when it has none (deployed). */
export function localNameResolver(env: Env): NameResolver | undefined {
  const host = env.PROGRAM_HOST;
  const secret = env.PROGRAM_HOST_SECRET;
  if (host === undefined || secret === undefined) return undefined;
  return (name) => (Date.now() < unavailableUntil ? Promise.resolve(undefined) : cache.lookup(name, (asked) => askProgramHost(host, secret, asked)));
}

async function askProgramHost(host: Fetcher, secret: string, name: string): Promise<boolean | undefined> {
  const url = `http://program-host${PROGRAM_HOST_RESOLVE_PATH}?host=${encodeURIComponent(name)}`;
  const response = await host.fetch(url, { headers: { [PROGRAM_HOST_SECRET_HEADER]: secret }, signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS) });
  if (response.status === 404 || response.status === 501) {
    await response.body?.cancel();
    unavailableUntil = Date.now() + NAME_TTL_MS;
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const answer = (await response.json()) as Partial<ResolveAnswer>;
  return typeof answer.resolves === "boolean" ? answer.resolves : undefined;
}
