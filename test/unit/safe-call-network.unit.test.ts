import { describe, expect, it, vi } from "vitest";
import { ToolDefinition } from "../../functions/tools/definition";
import { callTool } from "../../functions/tools/safe-call";

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  redirect: string | undefined;
}

/** A fake network that records each hop and answers with `respond`. */
function recorder(respond: (seen: Seen) => Response | Promise<Response>) {
  const calls: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const seen: Seen = {
      url: request.url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: request.body === null ? "" : await request.text(),
      redirect: init?.redirect,
    };
    calls.push(seen);
    return respond(seen);
  };
  return { fetch, calls };
}

const redirectTo = (location: string, status = 302): Response => new Response(null, { status, headers: { Location: location } });

function tool(overrides: Record<string, unknown> = {}): ToolDefinition {
  return ToolDefinition.parse({
    name: "t",
    method: "GET",
    serverUrl: "https://api.example.com",
    path: "/start",
    operation: "GET /start",
    ...overrides,
  });
}

const postTool = tool({
  method: "POST",
  parameters: [{ name: "title", in: "body", required: true, schema: { type: "string" } }],
});

/** A body that yields `chunks` pieces of `size` bytes and counts how many were pulled. */
function chunkedBody(size: number, chunks: number, byte = 0x61) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= chunks) {
        controller.close();
        return;
      }
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(byte));
    },
  });
  return { stream, pulled: () => pulled };
}

describe("destination guard in callTool", () => {
  it("refuses a private serverUrl without calling the network", async () => {
    const net = recorder(() => Response.json({}));
    const result = await callTool(tool({ serverUrl: "http://10.0.0.5:8080" }), {}, net);
    expect(result).toMatchObject({ ok: false, error: { kind: "blocked_destination" } });
    expect(net.calls).toHaveLength(0);
  });

  it("refuses a redirect to the metadata address after one hop", async () => {
    const net = recorder(() => redirectTo("http://169.254.169.254/latest/meta-data/iam/security-credentials/"));
    const result = await callTool(tool(), {}, net);
    expect(result).toMatchObject({
      ok: false,
      error: { kind: "blocked_destination", message: expect.stringContaining("linkLocal") },
      request: { url: "https://api.example.com/start", finalUrl: "http://169.254.169.254/latest/meta-data/iam/security-credentials/" },
    });
    expect(net.calls.map((c) => c.url)).toEqual(["https://api.example.com/start"]);
    expect(net.calls[0]?.redirect).toBe("manual");
  });

  it.each(["http://[::ffff:7f00:1]/", "http://2130706433/admin", "file:///etc/passwd", "http://localhost./", "http://user:pw@example.org/"])(
    "refuses a redirect to %s",
    async (location) => {
      const net = recorder(() => redirectTo(location, 307));
      const result = await callTool(tool(), {}, net);
      expect(result.error?.kind).toBe("blocked_destination");
      expect(net.calls).toHaveLength(1);
    },
  );

  it("resolves a relative Location against the current URL", async () => {
    const net = recorder((seen) => (seen.url.endsWith("/start") ? redirectTo("../next?x=1") : Response.json({ done: true })));
    const result = await callTool(tool({ serverUrl: "https://api.example.com/v1/a" }), {}, net);
    expect(net.calls.map((c) => c.url)).toEqual(["https://api.example.com/v1/a/start", "https://api.example.com/v1/next?x=1"]);
    expect(result).toMatchObject({ ok: true, body: { done: true }, request: { finalUrl: "https://api.example.com/v1/next?x=1" } });
  });

  it("follows exactly maxRedirects and refuses one more", async () => {
    const chain = (limit: number) =>
      recorder((seen) => {
        const n = Number(new URL(seen.url).searchParams.get("n") ?? "0");
        return n < limit ? redirectTo(`/hop?n=${n + 1}`) : Response.json({ n });
      });
    const within = chain(3);
    expect(await callTool(tool(), {}, { fetch: within.fetch, maxRedirects: 3 })).toMatchObject({ ok: true, body: { n: 3 } });
    const over = chain(4);
    const result = await callTool(tool(), {}, { fetch: over.fetch, maxRedirects: 3 });
    expect(result).toMatchObject({ ok: false, error: { kind: "too_many_redirects" } });
    expect(over.calls).toHaveLength(4);
  });

  it("stops an endless redirect loop at the default limit of 5", async () => {
    const net = recorder(() => redirectTo("/start"));
    const result = await callTool(tool(), {}, net);
    expect(result.error?.kind).toBe("too_many_redirects");
    expect(net.calls).toHaveLength(6);
  });

  it("turns 303 into GET without a body, keeps method and body on 307/308", async () => {
    for (const [status, method, body] of [
      [303, "GET", ""],
      [307, "POST", '{"title":"t"}'],
      [308, "POST", '{"title":"t"}'],
      [302, "GET", ""],
    ] as const) {
      const net = recorder((seen) => (seen.url.endsWith("/start") ? redirectTo("/moved", status) : Response.json({})));
      await callTool(postTool, { title: "t" }, net);
      expect(net.calls[1]).toMatchObject({ url: "https://api.example.com/moved", method, body });
      if (method === "GET") expect(net.calls[1]?.headers["content-type"]).toBeUndefined();
    }
  });

  describe("allowedOrigins", () => {
    const worldTool = tool({ serverUrl: "http://localhost:8787/world" });

    it("lets an allowed origin through, via its own fetcher", async () => {
      const network = recorder(() => Response.json({ from: "internet" }));
      const world = recorder(() => Response.json({ from: "world" }));
      const result = await callTool(worldTool, {}, { fetch: network.fetch, allowedOrigins: { "http://localhost:8787": { fetch: world.fetch } } });
      expect(result).toMatchObject({ ok: true, body: { from: "world" } });
      expect(world.calls.map((c) => c.url)).toEqual(["http://localhost:8787/world/start"]);
      expect(network.calls).toHaveLength(0);
    });

    it("matches the exact origin only (another port is still blocked)", async () => {
      const world = recorder(() => Response.json({}));
      const result = await callTool(
        tool({ serverUrl: "http://localhost:8788" }),
        {},
        { fetch: world.fetch, allowedOrigins: { "http://localhost:8787": { fetch: world.fetch } } },
      );
      expect(result.error?.kind).toBe("blocked_destination");
      expect(world.calls).toHaveLength(0);
    });

    it("still refuses a redirect from the allowed origin to loopback", async () => {
      const network = recorder(() => Response.json({ leaked: true }));
      const world = recorder(() => redirectTo("http://127.0.0.1:9000/admin"));
      const result = await callTool(worldTool, {}, { fetch: network.fetch, allowedOrigins: { "http://localhost:8787/": { fetch: world.fetch } } });
      expect(result).toMatchObject({ ok: false, error: { kind: "blocked_destination" } });
      expect(network.calls).toHaveLength(0);
      expect(world.calls).toHaveLength(1);
    });

    it("follows a redirect within the allowed origin", async () => {
      const world = recorder((seen) => (seen.url.endsWith("/start") ? redirectTo("/world/other") : Response.json({ ok: 1 })));
      const result = await callTool(worldTool, {}, { fetch: world.fetch, allowedOrigins: { "http://localhost:8787": { fetch: world.fetch } } });
      expect(result).toMatchObject({ ok: true, body: { ok: 1 } });
      expect(world.calls).toHaveLength(2);
    });
  });
});

describe("timeout", () => {
  it("aborts a fetch that never answers", async () => {
    let aborted = false;
    const fetch: typeof globalThis.fetch = (_input, init) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => {
          aborted = true;
          reject(new DOMException("aborted", "AbortError"));
        });
      });
    const started = Date.now();
    const result = await callTool(tool(), {}, { fetch, timeoutMs: 50 });
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout", message: expect.stringContaining("50 ms") } });
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("times out even if the fetcher ignores the signal", async () => {
    const fetch: typeof globalThis.fetch = () => new Promise<Response>(() => undefined);
    const result = await callTool(tool(), {}, { fetch, timeoutMs: 30 });
    expect(result.error?.kind).toBe("timeout");
  });

  it("covers the body read: a stalled body times out", async () => {
    const fetch: typeof globalThis.fetch = async () =>
      new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array([0x7b])) }), { status: 200 });
    const result = await callTool(tool(), {}, { fetch, timeoutMs: 50 });
    expect(result).toMatchObject({ ok: false, status: 200, error: { kind: "timeout" } });
  });

  it("covers all redirect hops together", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return redirectTo("/again");
    });
    const result = await callTool(tool(), {}, { fetch, timeoutMs: 70, maxRedirects: 100 });
    expect(result.error?.kind).toBe("timeout");
    expect(fetch.mock.calls.length).toBeLessThan(6);
  });
});

describe("response handling", () => {
  it("truncates at maxResponseBytes, says so, and stops reading", async () => {
    const body = chunkedBody(1000, 1000); // 1 MB on offer
    const fetch: typeof globalThis.fetch = async () => new Response(body.stream, { headers: { "Content-Type": "application/json" } });
    const result = await callTool(tool(), {}, { fetch, maxResponseBytes: 2500 });
    expect(result).toMatchObject({ ok: true, truncated: true, bytes: 2500 });
    expect(typeof result.body).toBe("string");
    const text = String(result.body);
    expect(text.startsWith("a".repeat(2500))).toBe(true);
    expect(text).toContain("[truncated: the response was larger than 2500 bytes");
    expect(body.pulled()).toBeLessThan(10);
  });

  it("does not truncate a body of exactly the cap", async () => {
    const fetch: typeof globalThis.fetch = async () => new Response("x".repeat(100));
    const result = await callTool(tool(), {}, { fetch, maxResponseBytes: 100 });
    expect(result).toMatchObject({ truncated: false, bytes: 100, body: "x".repeat(100) });
  });

  it("does not split a multi-byte character at the cut", async () => {
    const fetch: typeof globalThis.fetch = async () => new Response("ab€€€", { headers: { "Content-Type": "text/plain; charset=utf-8" } });
    const result = await callTool(tool(), {}, { fetch, maxResponseBytes: 4 }); // "ab" + 2 of 3 bytes of "€"
    expect(result.body).toMatch(/^ab\n\[truncated/);
  });

  it.each([
    ["application/json", '{"a":[1,2]}', { a: [1, 2] }],
    ["application/problem+json; charset=utf-8", '{"title":"x"}', { title: "x" }],
    ["text/plain", '[{"a":1}]', [{ a: 1 }]],
    [null, '{"a":1}', { a: 1 }],
    ["application/json", "{not json", "{not json"],
    ["text/plain", "42", "42"],
    ["text/html", "<p>{}</p>", "<p>{}</p>"],
    ["text/html", '{"a":1}', '{"a":1}'],
    ["image/png", "\u0089PNG....", "[binary response omitted: image/png, 9 bytes]"],
  ])("content type %s with %j gives %j", async (contentType, text, expected) => {
    const headers: Record<string, string> = contentType === null ? {} : { "Content-Type": contentType };
    const fetch: typeof globalThis.fetch = async () => new Response(new TextEncoder().encode(text), { headers });
    const result = await callTool(tool(), {}, { fetch });
    expect(result.body).toEqual(expected);
    expect(result.contentType).toBe(contentType ?? undefined);
  });

  it("returns null for an empty body", async () => {
    const fetch: typeof globalThis.fetch = async () => new Response(null, { status: 204 });
    expect(await callTool(tool(), {}, { fetch })).toMatchObject({ ok: true, status: 204, body: null, bytes: 0 });
  });

  it("keeps a non-2xx response's status and body", async () => {
    const fetch: typeof globalThis.fetch = async () =>
      Response.json({ status_message: "The resource you requested could not be found." }, { status: 404, statusText: "Not Found" });
    const result = await callTool(tool(), {}, { fetch });
    expect(result).toMatchObject({
      ok: false,
      status: 404,
      body: { status_message: "The resource you requested could not be found." },
      error: { kind: "http_status", message: expect.stringContaining("404") },
    });
  });

  it("reports a 3xx without Location as http_status", async () => {
    const fetch: typeof globalThis.fetch = async () => new Response(null, { status: 304 });
    expect(await callTool(tool(), {}, { fetch })).toMatchObject({ ok: false, status: 304, error: { kind: "http_status" } });
  });

  it("reports a rejected fetch as a network error instead of throwing", async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") });
    };
    const result = await callTool(tool(), {}, { fetch });
    expect(result).toMatchObject({
      ok: false,
      error: { kind: "network", cause: "connect", message: "request failed: no connection could be made to the tool's host (fetch failed: ECONNREFUSED)" },
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("reports a fetch that throws synchronously as a network error", async () => {
    const fetch: typeof globalThis.fetch = () => {
      throw new Error("boom");
    };
    expect((await callTool(tool(), {}, { fetch })).error?.kind).toBe("network");
  });
});
