import { describe, expect, it } from "vitest";
import { checkDestination } from "../../functions/tools/safe-call";

// Each row: a URL form that must be refused, and a fragment of the reason it must be refused for
// (so a row cannot pass by being refused for the wrong reason, e.g. "unparseable").
const REFUSED: Array<[string, string]> = [
  // IPv4 loopback in every encoding the WHATWG parser accepts
  ["http://127.0.0.1/", "loopback"],
  ["http://127.9.9.9:8080/x", "loopback"],
  ["http://2130706433/", "loopback"], // one decimal number
  ["http://0x7f000001/", "loopback"], // one hex number
  ["http://0x7f.1/", "loopback"], // hex + short form
  ["http://0177.0.0.1/", "loopback"], // octal first octet
  ["http://127.1/", "loopback"], // short form
  ["http://127.0.0.1./", "loopback"], // trailing dot
  ["http://127。0。0。1/", "loopback"], // ideographic full stops
  ["http:/\\127.0.0.1/", "loopback"], // backslash authority
  // unspecified
  ["http://0.0.0.0/", "unspecified"],
  ["http://0/", "unspecified"],
  ["http://[::]/", "unspecified"],
  // private, CGNAT, link-local, metadata, multicast, broadcast, reserved
  ["http://10.1.2.3/", "private"],
  ["http://172.16.0.1/", "private"],
  ["http://172.31.255.255/", "private"],
  ["http://192.168.1.1/", "private"],
  ["http://100.64.0.1/", "carrierGradeNat"],
  ["http://100.100.100.200/", "carrierGradeNat"], // Alibaba metadata
  ["http://169.254.169.254/latest/meta-data/", "linkLocal"], // cloud metadata
  ["http://0xa9fea9fe/", "linkLocal"], // metadata as one hex number
  ["http://224.0.0.1/", "multicast"],
  ["http://255.255.255.255/", "broadcast"],
  ["http://240.0.0.1/", "reserved"],
  ["http://192.0.2.10/", "reserved"], // TEST-NET-1
  // IPv6
  ["http://[::1]/", "loopback"],
  ["http://[0:0:0:0:0:0:0:1]:8787/", "loopback"],
  ["http://[fe80::1]/", "linkLocal"],
  ["http://[fc00::1]/", "uniqueLocal"],
  ["http://[fd00:ec2::254]/", "uniqueLocal"], // AWS IPv6 metadata
  ["http://[ff02::1]/", "multicast"],
  ["http://[::ffff:127.0.0.1]/", "loopback address embedded"], // IPv4-mapped, dotted
  ["http://[::ffff:7f00:1]/", "loopback address embedded"], // IPv4-mapped, hex
  ["http://[::ffff:a9fe:a9fe]/", "linkLocal address embedded"], // mapped metadata
  ["http://[::127.0.0.1]/", "loopback address embedded"], // IPv4-compatible
  ["http://[::2]/", "unspecified address embedded"], // rest of ::/96
  ["http://[::ffff:0:10.0.0.1]/", "private address embedded"], // IPv4-translated
  ["http://[64:ff9b::10.0.0.1]/", "private address embedded"], // NAT64
  ["http://[64:ff9b::7f00:1]/", "loopback address embedded"], // NAT64
  ["http://[64:ff9b:1::1]/", "rfc6052"], // local-use NAT64
  ["http://[2002:a00:1::]/", "private address embedded"], // 6to4 of 10.0.0.1
  ["http://[2002:7f00:1::1]/", "loopback address embedded"], // 6to4 of 127.0.0.1
  ["http://[2001:db8::1]/", "reserved"], // documentation
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "teredo"],
  // names
  ["http://localhost/", "internal host name"],
  ["http://LOCALHOST:8787/", "internal host name"],
  ["http://localhost./", "internal host name"],
  ["http://localhost../", "internal host name"],
  ["http://%6c%6fcalhost/", "internal host name"], // percent-encoded
  ["http://api.localhost/", "internal host name"],
  ["http://printer.local/", "internal host name"],
  ["http://metadata.google.internal/computeMetadata/v1/", "internal host name"],
  ["http://metadata.google.internal./", "internal host name"],
  ["http://router.home.arpa/", "internal host name"],
  ["http://metadata/", "no dot"],
  ["http://metadata./", "no dot"],
  ["http://intranet-box/", "no dot"],
  // schemes and userinfo
  ["file:///etc/passwd", "scheme"],
  ["ftp://example.com/x", "scheme"],
  ["gopher://example.com:70/_x", "scheme"],
  ["data:text/plain,hello", "scheme"],
  ["javascript:alert(1)", "scheme"],
  ["ws://example.com/socket", "scheme"],
  ["wss://example.com/socket", "scheme"],
  ["blob:https://example.com/uuid", "scheme"], // its origin looks like https
  ["http://user:pass@example.com/", "user:password"],
  ["http://api.example.com@10.0.0.1/", "user:password"], // userinfo disguising the host
  ["https://token@api.example.com/", "user:password"],
  ["not a url", "not a valid"],
  ["/relative/path", "not a valid"],
];

const ALLOWED = [
  "https://api.themoviedb.org/3/movie/550",
  "http://example.com/",
  "https://example.com:8443/x?y=1",
  "http://8.8.8.8/",
  "http://93.184.216.34/",
  "http://172.32.0.1/", // just outside 172.16/12
  "http://100.128.0.1/", // just outside 100.64/10
  "http://[2606:4700:4700::1111]/",
  "http://[::ffff:8.8.8.8]/", // mapped public v4
  "http://[64:ff9b::8.8.8.8]/", // NAT64 of a public v4
  "https://example.com./", // trailing dot on a public name
  "http://@example.com/", // empty userinfo is parsed away
];

describe("checkDestination", () => {
  it("has a table of at least 25 refused forms", () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(25);
  });

  it.each(REFUSED)("refuses %s (%s)", (url, reason) => {
    expect(checkDestination(url)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  it.each(ALLOWED)("allows public %s", (url) => {
    const result = checkDestination(url);
    expect(result).toMatchObject({ ok: true });
  });

  it.each([
    ["http://2130706433/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://0xa9fea9fe/", "169.254.169.254"],
    ["http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
  ])("relies on the URL parser to normalise %s to %s", (input, host) => {
    // The guard classifies what the parser produced; if the parser stopped normalising, this fails
    // and the table above needs another look.
    expect(new URL(input).hostname).toBe(host);
  });

  it("names the scheme and the embedded address in the reason", () => {
    expect(checkDestination("gopher://x.example/")).toMatchObject({ reason: expect.stringContaining("gopher:") });
    expect(checkDestination("http://[::ffff:10.0.0.1]/")).toMatchObject({ reason: expect.stringContaining("10.0.0.1") });
  });

  it("returns the parsed URL when allowed", () => {
    const result = checkDestination("HTTPS://Example.COM:443/a");
    expect(result.ok && result.url.href).toBe("https://example.com/a");
  });
});
