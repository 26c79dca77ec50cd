import { describe, expect, it } from "vitest";
import { answerResolveRequest, resolveHostName } from "../../scripts/name-resolver.mjs";
import { NameCache } from "../../functions/tools/safe-call/name-cache";
import { NAME_TTL_MS, ProgramHostNames } from "../../functions/tools/safe-call/local-name-resolver";
import type { NameResolver } from "../../functions/tools/safe-call";

/** A clock the test moves. */
function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A resolver answering from `answers` (missing: cannot tell), counting questions per name. */
function countingResolver(answers: Record<string, boolean | undefined>) {
  const asked = new Map<string, number>();
  const resolve: NameResolver = async (name) => {
    asked.set(name, (asked.get(name) ?? 0) + 1);
    return answers[name];
  };
  return { asked, resolve };
}

describe("the name cache", () => {
  it("keeps positive and negative answers for the TTL, then asks again", async () => {
    const time = clock();
    const cache = new NameCache({ ttlMs: 60_000, maxEntries: 10, now: time.now });
    const resolver = countingResolver({ "good.com": true, "typo.com": false });
    for (let i = 0; i < 3; i++) {
      expect(await cache.lookup("good.com", resolver.resolve)).toBe(true);
      expect(await cache.lookup("typo.com", resolver.resolve)).toBe(false);
    }
    expect([...resolver.asked]).toEqual([
      ["good.com", 1],
      ["typo.com", 1],
    ]);
    time.advance(59_999);
    await cache.lookup("typo.com", resolver.resolve);
    expect(resolver.asked.get("typo.com")).toBe(1);
    time.advance(1);
    expect(await cache.lookup("typo.com", resolver.resolve)).toBe(false);
    expect(resolver.asked.get("typo.com")).toBe(2);
  });

  it("never remembers 'cannot tell' or a failed lookup", async () => {
    const cache = new NameCache({ ttlMs: 60_000, maxEntries: 10 });
    const resolver = countingResolver({});
    expect(await cache.lookup("slow.com", resolver.resolve)).toBeUndefined();
    expect(await cache.lookup("slow.com", resolver.resolve)).toBeUndefined();
    expect(resolver.asked.get("slow.com")).toBe(2);
    expect(await cache.lookup("broken.com", () => Promise.reject(new Error("gone")))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("holds at most maxEntries names, pushing out the oldest answer", async () => {
    const cache = new NameCache({ ttlMs: 60_000, maxEntries: 3 });
    const resolver = countingResolver({ "a.com": true, "b.com": false, "c.com": true, "d.com": true });
    for (const name of ["a.com", "b.com", "c.com", "d.com"]) await cache.lookup(name, resolver.resolve);
    expect(cache.size).toBe(3);
    for (const name of ["b.com", "c.com", "d.com"]) await cache.lookup(name, resolver.resolve);
    expect([...resolver.asked.values()]).toEqual([1, 1, 1, 1]);
    await cache.lookup("a.com", resolver.resolve);
    expect(resolver.asked.get("a.com")).toBe(2);
    expect(cache.size).toBe(3);
  });

  it("does not share a lookup in flight between callers (each may be another request), then answers from memory", async () => {
    const cache = new NameCache({ ttlMs: 60_000, maxEntries: 10 });
    const resolver = countingResolver({ "typo.com": false });
    expect(await Promise.all(Array.from({ length: 3 }, () => cache.lookup("typo.com", resolver.resolve)))).toEqual([false, false, false]);
    expect(resolver.asked.get("typo.com")).toBe(3);
    expect(await cache.lookup("typo.com", resolver.resolve)).toBe(false);
    expect(resolver.asked.get("typo.com")).toBe(3);
  });
});

/** A stand-in for the PROGRAM_HOST binding that answers `/resolve` with `answer` and records requests. */
function programHost(answer: (name: string) => Response) {
  const requests: { url: string; secret: string | null }[] = [];
  const fetcher = {
    async fetch(input: RequestInfo | URL, init?: RequestInit) {
      const request = new Request(input, init);
      requests.push({ url: request.url, secret: request.headers.get("x-atc-program-host-secret") });
      return answer(new URL(request.url).searchParams.get("host") ?? "");
    },
    connect() {
      throw new Error("not used");
    },
  } as unknown as Fetcher;
  return { fetcher, requests };
}

describe("the program host as the service's resolver", () => {
  it("asks /resolve with the secret and remembers the answers", async () => {
    const host = programHost((name) => Response.json({ resolves: name === "api.example.com" }));
    const resolve = new ProgramHostNames().resolver(host.fetcher, "s3cret-0123456789abcdef");
    expect(await resolve("api.example.com")).toBe(true);
    expect(await resolve("typo.example.com")).toBe(false);
    expect(await resolve("typo.example.com")).toBe(false);
    expect(host.requests).toEqual([
      { url: "http://program-host/resolve?host=api.example.com", secret: "s3cret-0123456789abcdef" },
      { url: "http://program-host/resolve?host=typo.example.com", secret: "s3cret-0123456789abcdef" },
    ]);
  });

  it("hands on the addresses a name resolves to, for the destination guard", async () => {
    const host = programHost(() => Response.json({ resolves: true, addresses: ["127.0.0.1", "::1"] }));
    const resolve = new ProgramHostNames().resolver(host.fetcher, "s3cret-0123456789abcdef");
    expect(await resolve("127.0.0.1.nip.io")).toEqual(["127.0.0.1", "::1"]);
  });

  it("cannot tell when the host's resolver cannot, or the host fails", async () => {
    const host = programHost((name) => (name === "odd.com" ? new Response("boom", { status: 500 }) : Response.json({ resolves: null })));
    const resolve = new ProgramHostNames().resolver(host.fetcher, "s3cret-0123456789abcdef");
    expect(await resolve("slow.com")).toBeUndefined();
    expect(await resolve("odd.com")).toBeUndefined();
    expect(await resolve("odd.com")).toBeUndefined();
    expect(host.requests).toHaveLength(3);
  });

  it("stops asking a host without a resolver (501) for a while", async () => {
    const time = clock();
    const host = programHost(() => new Response("no name resolver here", { status: 501 }));
    const resolve = new ProgramHostNames(time.now).resolver(host.fetcher, "s3cret-0123456789abcdef");
    expect(await resolve("a.com")).toBeUndefined();
    expect(await resolve("b.com")).toBeUndefined();
    expect(host.requests).toHaveLength(1);
    time.advance(NAME_TTL_MS);
    expect(await resolve("b.com")).toBeUndefined();
    expect(host.requests).toHaveLength(2);
  });
});

describe("the program host's Node resolver", () => {
  const failing = (code: string) => () => Promise.reject(Object.assign(new Error(`getaddrinfo ${code}`), { code }));

  it.each(["ENOTFOUND", "ENODATA", "EAI_NONAME"])("says a name does not resolve on %s", async (code) => {
    expect(await resolveHostName("typo.com", { lookup: failing(code) })).toEqual({ resolves: false });
  });

  it.each(["EAI_AGAIN", "EAI_FAIL", "ETIMEOUT", "ECONNREFUSED"])("cannot tell on %s", async (code) => {
    expect(await resolveHostName("typo.com", { lookup: failing(code) })).toEqual({ resolves: null });
  });

  it("cannot tell when the lookup takes longer than its bound", async () => {
    const started = Date.now();
    expect(await resolveHostName("slow.com", { timeoutMs: 50, lookup: () => new Promise(() => undefined) })).toEqual({ resolves: null });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("answers the addresses of a name that resolves (localhost, with this machine's resolver)", async () => {
    const answer = await resolveHostName("localhost");
    expect(answer.resolves).toBe(true);
    expect(answer.addresses).toEqual(expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]));
  });

  it("answers the binding's requests as JSON, refusing a missing name", async () => {
    const answered = await answerResolveRequest(new Request("http://resolver/?host=typo.com"), { lookup: failing("ENOTFOUND") });
    expect(await answered.json()).toEqual({ resolves: false });
    expect((await answerResolveRequest(new Request("http://resolver/"))).status).toBe(400);
  });
});
