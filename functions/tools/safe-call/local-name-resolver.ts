import { PROGRAM_HOST_RESOLVE_PATH, PROGRAM_HOST_SECRET_HEADER, type ResolveAnswer } from "../../common/program-host";
import { NameCache } from "./name-cache";
import type { NameAnswer, NameResolver } from "./types";

/**
 * Name lookups for tool calls in local development, asked of the program host (its Node side
 * answers with the operating system's resolver; scripts/name-resolver.mjs). Local workerd fails a
 * name that does not exist as an unexplained internal error and logs a stack for it, so the
 * safe-call path asks first and answers `name_lookup` itself (name-lookup.ts). Only where the
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

/** The program host as a resolver, with the answers it gave (one per isolate; tests make their own). */
export class ProgramHostNames {
  readonly #cache: NameCache;
  readonly #now: () => number;
  /** Until when the program host is known to have no resolver (deployed, or a scripted network): not asked till then. */
  #unavailableUntil = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#cache = new NameCache({ ttlMs: NAME_TTL_MS, maxEntries: MAX_NAMES, now });
  }

  resolver(host: Fetcher, secret: string): NameResolver {
    return (name) => (this.#now() < this.#unavailableUntil ? Promise.resolve(undefined) : this.#cache.lookup(name, (asked) => this.#ask(host, secret, asked)));
  }

  async #ask(host: Fetcher, secret: string, name: string): Promise<NameAnswer | undefined> {
    const url = `http://program-host${PROGRAM_HOST_RESOLVE_PATH}?host=${encodeURIComponent(name)}`;
    const response = await host.fetch(url, { headers: { [PROGRAM_HOST_SECRET_HEADER]: secret }, signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      // No resolver there (or an older host without the route): ask again only after a while.
      if (response.status === 404 || response.status === 501) this.#unavailableUntil = this.#now() + NAME_TTL_MS;
      return undefined;
    }
    const answer = (await response.json()) as Partial<ResolveAnswer>;
    // The addresses go back too: the destination guard checks what the name resolves to.
    if (answer.resolves === true && Array.isArray(answer.addresses)) return answer.addresses.filter((a): a is string => typeof a === "string");
    return typeof answer.resolves === "boolean" ? answer.resolves : undefined;
  }
}

const shared = new ProgramHostNames();

/** The resolver of this service, or undefined when it has none (deployed without a program host). */
export function localNameResolver(env: Env): NameResolver | undefined {
  const host = env.PROGRAM_HOST;
  const secret = env.PROGRAM_HOST_SECRET;
  return host === undefined || secret === undefined ? undefined : shared.resolver(host, secret);
}
