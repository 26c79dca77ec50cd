/**
 * Host names that no DNS lookup can answer, known without asking a resolver.
 *
 * Handing such a name to the platform's fetch costs more than a failed call: local workerd
 * (npm start, tests) fails the lookup as an internal error the Worker cannot tell from a TLS
 * failure (`internal error; reference = …`) and writes a stack to its log for each one. So the
 * safe-call path answers these itself, as a resolver library should: RFC 6761 §6.4 asks name
 * resolution APIs to answer `.invalid` names negatively at once, and a name longer than DNS
 * allows (RFC 1035 §2.3.4: 63 octets a label, 253 a name) cannot even be put in a query.
 * Names that merely happen not to exist still go to the platform: deployed, Cloudflare answers
 * them with 530 `error code: 1016` (see failure-cause.ts).
 */

const MAX_LABEL_OCTETS = 63;
const MAX_NAME_OCTETS = 253;

/** Why `hostname` (as `URL.hostname` spells it) can never be looked up, or null when it may resolve. */
export function unresolvableName(hostname: string): string | null {
  if (hostname.startsWith("[") || /^[\d.]+$/.test(hostname)) return null; // an address, nothing to look up
  const name = hostname.replace(/\.$/, "").toLowerCase();
  if (name === "invalid" || name.endsWith(".invalid")) return `"${hostname}" is under .invalid, which never resolves (RFC 6761)`;
  if (name.length > MAX_NAME_OCTETS) return `"${hostname.slice(0, 40)}…" is longer than the ${MAX_NAME_OCTETS} characters a DNS name may have`;
  const long = name.split(".").find((label) => label.length > MAX_LABEL_OCTETS);
  if (long !== undefined) return `"${hostname.slice(0, 80)}" has a label longer than the ${MAX_LABEL_OCTETS} characters DNS allows`;
  return null;
}

/**
 * A lookup that was answered without the network (the name can never resolve). A TypeError, as
 * the platform's own fetch failures are, so callers that handle network failures handle it too.
 */
export class NameLookupError extends TypeError {
  constructor(reason: string) {
    super(`DNS lookup failed: ${reason}`);
    this.name = "NameLookupError";
  }
}
