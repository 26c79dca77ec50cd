import ipaddr from "ipaddr.js";

/**
 * The destination guard (SSRF). Every URL safe-call is about to fetch, the first one and every
 * redirect hop, passes through here.
 *
 * "Any encoding" of an address is handled by letting the WHATWG URL parser normalise the host
 * first (it turns `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1` into `127.0.0.1` and compresses
 * IPv6), then classifying the canonical address with ipaddr.js. We never parse hosts ourselves.
 *
 * Names: a public-looking name may resolve to a private address (`127.0.0.1.nip.io`, DNS
 * rebinding). Where the service sees a name's resolution (local development: the program host's
 * resolver, name-lookup.ts and local-name-resolver.ts), redirects.ts passes every address it
 * resolves to through this same check. Deployed, Workers have no DNS API; there the platform's
 * fetch reaches the public internet only: private networks are reached through Workers VPC
 * bindings and Cloudflare Tunnel, "not accessible from the public Internet" otherwise
 * (https://developers.cloudflare.com/workers-vpc/), and a Worker has no loopback of its own
 * machine to reach. docs/api.md ("Calling a tool") says the same to users.
 */

export type DestinationCheck = { ok: true; url: URL } | { ok: false; reason: string };

export interface DestinationOptions {
  /**
   * Also allow this machine's loopback (`localhost`, 127.0.0.0/8, `::1`). Only for a model server
   * in local development (Ollama, LM Studio, llama.cpp, vLLM), turned on by MODEL_ALLOW_LOOPBACK;
   * tool calls never get it, and nothing sets it when deployed. Private networks stay refused.
   */
  allowLoopback?: boolean;
}

/** Decides whether a URL may be fetched on a tenant's behalf. */
export function checkDestination(url: string, options: DestinationOptions = {}): DestinationCheck {
  const parsed = parseWebUrl(url);
  if (!parsed.ok) return parsed;
  if (options.allowLoopback === true && isLoopback(parsed.url.hostname)) return parsed;
  const host = classifyHost(parsed.url.hostname);
  return host === null ? parsed : { ok: false, reason: `${host} (${parsed.url.host})` };
}

/** `localhost` (and names under it), 127.0.0.0/8 and `::1`, as `URL.hostname` spells them. */
function isLoopback(hostname: string): boolean {
  const name = hostname.replace(/\.+$/, "").toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  const literal = name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
  if (ipaddr.IPv4.isValidFourPartDecimal(literal)) return ipaddr.IPv4.parse(literal).range() === "loopback";
  return ipaddr.IPv6.isValid(literal) && ipaddr.IPv6.parse(literal).range() === "loopback";
}

/**
 * Parses and applies the checks that hold even for explicitly allowed origins: only http(s), no
 * userinfo. Split out so the allow-list cannot be used to smuggle `file:` or `user:pass@`.
 */
export function parseWebUrl(url: string): DestinationCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "not a valid absolute URL" };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return { ok: false, reason: `scheme "${parsed.protocol}" is not allowed; only http: and https:` };
  }
  // Userinfo is refused outright: it is a classic way to disguise the real host
  // (`https://api.example.com@10.0.0.1/`) and credentials belong in the injected credential.
  if (parsed.username !== "" || parsed.password !== "") {
    return { ok: false, reason: "URLs with user:password@ are not allowed" };
  }
  return { ok: true, url: parsed };
}

/** Suffixes (and exact names) that only ever mean something inside a private network. */
const INTERNAL_NAMES = ["localhost", "local", "internal", "localdomain", "home.arpa", "intranet", "lan"];

/** Returns why a URL hostname (as `URL.hostname` spells it) is refused, or null when allowed. */
function classifyHost(hostname: string): string | null {
  if (hostname.startsWith("[") && hostname.endsWith("]")) {
    return classifyIp(hostname.slice(1, -1));
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) return classifyIp(hostname);

  // `localhost.` and `localhost` are the same name to DNS; strip the root dot(s) before matching.
  const name = hostname.replace(/\.+$/, "").toLowerCase();
  if (name === "") return "empty host name";
  for (const internal of INTERNAL_NAMES) {
    if (name === internal || name.endsWith(`.${internal}`)) return `internal host name "${hostname}"`;
  }
  // Single-label names (`metadata`, `intranet-box`) resolve through local search domains only.
  if (!name.includes(".")) return `host name "${hostname}" has no dot, so it can only be a local name`;
  return null;
}

/** Returns why an IP literal is refused, or null when it is a public unicast address. */
function classifyIp(literal: string): string | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(literal)) {
    const range = ipaddr.IPv4.parse(literal).range();
    return range === "unicast" ? null : `${range} address`;
  }
  if (!ipaddr.IPv6.isValid(literal)) return `unparseable address "${literal}"`;
  const v6 = ipaddr.IPv6.parse(literal);
  const range = v6.range();
  if (range === "loopback" || range === "unspecified") return `${range} IPv6 address`;
  const embedded = embeddedIpv4(v6);
  if (embedded === null) return `${range} IPv6 address`;
  if (embedded !== undefined) {
    const inner = embedded.range();
    return inner === "unicast" ? null : `${inner} address embedded in IPv6 (${embedded.toString()})`;
  }
  return range === "unicast" ? null : `${range} IPv6 address`;
}

/**
 * IPv6 forms that carry an IPv4 address, which is what really gets reached, so it is classified
 * instead. Returns undefined for plain IPv6, null for embedding ranges that are refused outright.
 */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null | undefined {
  const p = address.parts;
  const low32 = (): ipaddr.IPv4 => v4FromWords(p[6] ?? 0, p[7] ?? 0);
  switch (address.range()) {
    case "ipv4Mapped": // ::ffff:a.b.c.d
      return address.toIPv4Address();
    case "rfc6145": // ::ffff:0:a.b.c.d (SIIT translated)
      return low32();
    case "rfc6052": // 64:ff9b::/96 well-known NAT64 embeds; 64:ff9b:1::/48 is local-use only
      return p[2] === 0 ? low32() : null;
    case "6to4": // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
      return v4FromWords(p[1] ?? 0, p[2] ?? 0);
    case "teredo": // tunnels to an obfuscated v4; never a tool API, refuse the whole range
      return null;
    default:
      break;
  }
  // Deprecated IPv4-compatible ::a.b.c.d (the URL parser prints `[::127.0.0.1]` as `[::7f00:1]`).
  // Anything else in ::/96 then lands in 0.0.0.0/8 and is refused with it.
  if (p.slice(0, 6).every((w) => w === 0)) return low32();
  return undefined;
}

function v4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
