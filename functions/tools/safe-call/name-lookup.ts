/**
 * Host names that no DNS lookup can answer, known without asking a resolver.
 *
 * Handing such a name to the platform's fetch costs more than a failed call: local workerd
 * (npm start, tests) fails the lookup as an internal error the Worker cannot tell from a TLS
 * failure (`internal error; reference = …`) and writes a stack to its log for each one. So the
 * safe-call path answers these itself, as a resolver library should: RFC 6761 §6.4 asks name
 * resolution APIs to answer `.invalid` names negatively at once, and a name longer than DNS
 * allows (RFC 1035 §2.3.4: 63 octets a label, 253 a name) cannot even be put in a query.
 * Names that merely happen not to exist go to the platform deployed (Cloudflare answers them
 * with 530 `error code: 1016`, see failure-cause.ts); locally a resolver, when one is given
 * (`askResolver`), answers them before the platform is asked, and says where the others point.
 */
import type { NameResolver } from "./types";
import { Failure } from "../../common/failures";

const MAX_LABEL_OCTETS = 63;
const MAX_NAME_OCTETS = 253;

/** Whether `hostname` (as `URL.hostname` spells it) is an address literal: nothing to look up. */
export function isAddressLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || /^[\d.]+$/.test(hostname);
}

/** The name as DNS sees it: no trailing root dot, lower case. */
function lookupName(hostname: string): string {
  return hostname.replace(/\.$/, "").toLowerCase();
}

/** Why `hostname` (as `URL.hostname` spells it) can never be looked up, or null when it may resolve. */
export function unresolvableName(hostname: string): string | null {
  if (isAddressLiteral(hostname)) return null;
  const name = lookupName(hostname);
  if (name === "invalid" || name.endsWith(".invalid")) return `"${hostname}" is under .invalid, which never resolves (RFC 6761)`;
  if (name.length > MAX_NAME_OCTETS) return `"${hostname.slice(0, 40)}…" is longer than the ${MAX_NAME_OCTETS} characters a DNS name may have`;
  const long = name.split(".").find((label) => label.length > MAX_LABEL_OCTETS);
  if (long !== undefined) return `"${hostname.slice(0, 80)}" has a label longer than the ${MAX_LABEL_OCTETS} characters DNS allows`;
  return null;
}

/** What the local resolver says of a host name: it does not resolve (`denied`), its addresses, or nothing it can tell. */
export type ResolverVerdict = { denied: string } | { addresses: readonly string[] } | undefined;

/**
 * What the resolver says of `hostname`: why it does not resolve, the addresses it resolves to, or
 * undefined when it resolves without saying where, or cannot tell (a resolver that fails or is
 * slow never makes a call fail: the platform's fetch decides then). Local development only
 * (local-name-resolver.ts): there workerd would fail the lookup as an unexplained internal error
 * with a stack in its log, and would connect to whatever address the name has.
 */
export async function askResolver(hostname: string, resolveName: NameResolver | undefined): Promise<ResolverVerdict> {
  if (resolveName === undefined || isAddressLiteral(hostname)) return undefined;
  const name = lookupName(hostname);
  let answer: Awaited<ReturnType<NameResolver>>;
  try {
    answer = await resolveName(name);
  } catch {
    return undefined;
  }
  if (answer === false) return { denied: `"${hostname}" does not resolve (the local resolver has no address for it)` };
  return Array.isArray(answer) ? { addresses: answer } : undefined;
}

/** An address as a URL's host: IPv6 in brackets. */
export function addressAsHost(address: string): string {
  return address.includes(":") ? `[${address}]` : address;
}

/**
 * A lookup that was answered without the network (the name can never resolve): the guarded
 * fetch's rejection, code `name_lookup`, which callers report as a network failure.
 */
export function nameLookupFailure(reason: string): Failure {
  return Failure.of("name_lookup", `DNS lookup failed: ${reason}`);
}
