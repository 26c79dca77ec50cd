import { describe, expect, it } from "vitest";
import { ToolDefinition } from "../../functions/tools/definition";
import { callTool } from "../../functions/tools/safe-call";
import type { InjectedCredential, ToolCallResult } from "../../functions/tools/safe-call";

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** A fake network that records what it was asked and answers with `respond`. */
function recorder(respond: (seen: Seen) => Response = () => Response.json({ ok: true })) {
  const calls: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const seen: Seen = {
      url: request.url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: request.body === null ? "" : await request.text(),
    };
    calls.push(seen);
    return respond(seen);
  };
  return { fetch, calls };
}

function tool(overrides: Record<string, unknown>): ToolDefinition {
  return ToolDefinition.parse({
    name: "t",
    method: "GET",
    serverUrl: "https://api.themoviedb.org/3",
    path: "/",
    operation: "GET /",
    ...overrides,
  });
}

const credits = tool({
  path: "/movie/{movie_id}/credits",
  parameters: [
    { name: "movie_id", in: "path", required: true, schema: { type: "string" } },
    { name: "language", in: "query", schema: { type: "string" } },
    { name: "with_genres", in: "query", schema: { type: "array", items: { type: "integer" } } },
    { name: "filter", in: "query", schema: { type: "object" } },
    { name: "X-Trace", in: "header", schema: { type: "string" } },
    { name: "Host", in: "header", schema: { type: "string" } },
  ],
});

describe("building the request", () => {
  it("joins serverUrl with its base path and the path template", async () => {
    const net = recorder();
    await callTool(credits, { movie_id: "550" }, net);
    expect(net.calls[0]?.url).toBe("https://api.themoviedb.org/3/movie/550/credits");
    expect(net.calls[0]?.method).toBe("GET");
  });

  it("tolerates a trailing slash on serverUrl", async () => {
    const net = recorder();
    await callTool(tool({ serverUrl: "https://api.example.com/v1/", path: "/items" }), {}, net);
    expect(net.calls[0]?.url).toBe("https://api.example.com/v1/items");
  });

  it("repeats array query parameters, sends objects as JSON, skips null", async () => {
    const net = recorder();
    await callTool(credits, { movie_id: "1", with_genres: [28, 12], filter: { a: 1 }, language: null }, net);
    const url = new URL(net.calls[0]?.url ?? "");
    expect(url.searchParams.getAll("with_genres")).toEqual(["28", "12"]);
    expect(url.searchParams.get("filter")).toBe('{"a":1}');
    expect(url.searchParams.has("language")).toBe(false);
  });

  it("sets header parameters", async () => {
    const net = recorder();
    await callTool(credits, { movie_id: "1", "X-Trace": "abc" }, net);
    expect(net.calls[0]?.headers["x-trace"]).toBe("abc");
  });

  it("refuses header values with line breaks and runtime-owned headers", async () => {
    const net = recorder();
    const crlf = await callTool(credits, { movie_id: "1", "X-Trace": "a\r\nX-Evil: 1" }, net);
    expect(crlf.error).toMatchObject({ kind: "invalid_arguments", argument: "X-Trace" });
    const host = await callTool(credits, { movie_id: "1", Host: "internal.example" }, net);
    expect(host.error).toMatchObject({ kind: "invalid_arguments", argument: "Host" });
    expect(net.calls).toHaveLength(0);
  });

  describe("path parameters cannot change the path's shape", () => {
    it.each([
      ["../../admin", "/3/movie/..%2F..%2Fadmin/credits"],
      ["a/b", "/3/movie/a%2Fb/credits"],
      ["x?admin=1", "/3/movie/x%3Fadmin%3D1/credits"],
      ["x#frag", "/3/movie/x%23frag/credits"],
      ["%2e%2e", "/3/movie/%252e%252e/credits"],
      ["..\\..", "/3/movie/..%5C../credits"],
      ["a b", "/3/movie/a%20b/credits"],
    ])("encodes %j as one segment", async (value, pathname) => {
      const net = recorder();
      const result = await callTool(credits, { movie_id: value }, net);
      expect(result.error).toBeUndefined();
      const url = new URL(net.calls[0]?.url ?? "");
      expect(url.pathname).toBe(pathname);
      expect(url.search).toBe("");
      expect(url.hash).toBe("");
    });

    it.each([".", "..", ""])("refuses %j, which would be a dot or empty segment", async (value) => {
      const net = recorder();
      const result = await callTool(credits, { movie_id: value }, net);
      expect(result.error).toMatchObject({ kind: "invalid_arguments", argument: "movie_id" });
      expect(net.calls).toHaveLength(0);
    });

    it("refuses a template placeholder that has no path parameter", async () => {
      const result = await callTool(tool({ path: "/a/{b}" }), {}, recorder());
      expect(result.error).toMatchObject({ kind: "invalid_definition" });
    });
  });

  describe("bodies", () => {
    const params = [
      { name: "title", in: "body", required: true, schema: { type: "string" } },
      { name: "tags", in: "body", schema: { type: "array", items: { type: "string" } } },
      { name: "meta", in: "body", schema: { type: "object" } },
    ];

    it("collects body parameters into one JSON object", async () => {
      const net = recorder();
      await callTool(tool({ method: "POST", path: "/items", parameters: params }), { title: "t", tags: ["a", "b"], meta: { k: 1 } }, net);
      expect(net.calls[0]?.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(net.calls[0]?.body ?? "")).toEqual({ title: "t", tags: ["a", "b"], meta: { k: 1 } });
    });

    it("form-encodes when bodyContentType says so", async () => {
      const net = recorder();
      const def = tool({ method: "POST", path: "/items", parameters: params, bodyContentType: "application/x-www-form-urlencoded" });
      await callTool(def, { title: "a&b=c", tags: ["x", "y"], meta: { k: 1 } }, net);
      expect(net.calls[0]?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
      const form = new URLSearchParams(net.calls[0]?.body);
      expect(form.get("title")).toBe("a&b=c");
      expect(form.getAll("tags")).toEqual(["x", "y"]);
      expect(form.get("meta")).toBe('{"k":1}');
    });

    it("sends multipart when bodyContentType says so", async () => {
      const net = recorder();
      const def = tool({ method: "POST", path: "/items", parameters: params, bodyContentType: "multipart/form-data" });
      await callTool(def, { title: "hello" }, net);
      expect(net.calls[0]?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
      expect(net.calls[0]?.body).toContain('name="title"');
    });

    it("refuses an unsupported body media type as a definition problem", async () => {
      const net = recorder();
      const def = tool({ method: "POST", path: "/items", parameters: params, bodyContentType: "application/xml" });
      const result = await callTool(def, { title: "t" }, net);
      expect(result.error).toMatchObject({ kind: "invalid_definition" });
      expect(net.calls).toHaveLength(0);
    });
  });
});

describe("credential injection and redaction", () => {
  const SECRET = "sk-live-Zq8/+sec ret&=?";
  const echo = (seen: Seen): Response =>
    // A hostile or chatty upstream that reflects everything it received.
    Response.json({ youSent: seen, note: `key was ${new URL(seen.url).searchParams.get("api_key") ?? ""}` }, { status: 401 });

  const protectedTool = tool({
    path: "/movie/{movie_id}",
    parameters: [
      { name: "movie_id", in: "path", required: true, schema: { type: "string" } },
      { name: "api_key", in: "query", schema: { type: "string" } },
      { name: "X-Api-Key", in: "header", schema: { type: "string" } },
    ],
  });

  function assertNoSecret(result: ToolCallResult): void {
    const serialized = JSON.stringify(result);
    expect(serialized).not.toContain(SECRET);
    expect(serialized).not.toContain(encodeURIComponent(SECRET));
    expect(serialized).not.toContain(new URLSearchParams({ k: SECRET }).toString().slice(2));
    expect(serialized).not.toContain("sk-live");
  }

  it("bearer goes into Authorization and nowhere in the result", async () => {
    const net = recorder(echo);
    const credential: InjectedCredential = { scheme: "bearer", in: "header", value: SECRET };
    const result = await callTool(protectedTool, { movie_id: "1" }, { ...net, credential });
    expect(net.calls[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(result.status).toBe(401);
    expect(JSON.stringify(result.body)).toContain("[REDACTED]");
    assertNoSecret(result);
  });

  it("apiKey in a header goes into that header", async () => {
    const net = recorder(echo);
    const result = await callTool(
      protectedTool,
      { movie_id: "1" },
      { ...net, credential: { scheme: "apiKey", in: "header", name: "X-Api-Key", value: SECRET } },
    );
    expect(net.calls[0]?.headers["x-api-key"]).toBe(SECRET);
    assertNoSecret(result);
  });

  it("apiKey in the query goes into the URL but request.url is redacted", async () => {
    const net = recorder(echo);
    const result = await callTool(protectedTool, { movie_id: "1" }, { ...net, credential: { scheme: "apiKey", in: "query", name: "api_key", value: SECRET } });
    expect(new URL(net.calls[0]?.url ?? "").searchParams.get("api_key")).toBe(SECRET);
    expect(result.request.url).toBe("https://api.themoviedb.org/3/movie/1?api_key=[REDACTED]");
    assertNoSecret(result);
  });

  it("redacts the secret from network error messages", async () => {
    const fetch: typeof globalThis.fetch = async (input) => {
      throw new TypeError(`connect failed for ${String(input)}`);
    };
    const result = await callTool(protectedTool, { movie_id: "1" }, { fetch, credential: { scheme: "apiKey", in: "query", name: "api_key", value: SECRET } });
    expect(result.error?.kind).toBe("network");
    expect(result.error?.message).toContain("connect failed");
    assertNoSecret(result);
  });

  it("redacts a secret cut in half by truncation", async () => {
    const fetch: typeof globalThis.fetch = async () => new Response(`${"x".repeat(20)}${SECRET}`, { headers: { "Content-Type": "text/plain" } });
    const result = await callTool(
      protectedTool,
      { movie_id: "1" },
      { fetch, maxResponseBytes: 30, credential: { scheme: "bearer", in: "header", value: SECRET } },
    );
    expect(result.truncated).toBe(true);
    expect(result.body).toMatch(/^x{20}\[REDACTED\]\n\[truncated/);
    expect(JSON.stringify(result)).not.toContain(SECRET.slice(0, 6));
  });

  it("refuses an argument that would replace the credential", async () => {
    const net = recorder();
    const result = await callTool(
      protectedTool,
      { movie_id: "1", api_key: "mine" },
      { ...net, credential: { scheme: "apiKey", in: "query", name: "api_key", value: SECRET } },
    );
    expect(result.error).toMatchObject({ kind: "invalid_arguments", argument: "api_key" });
    const header = await callTool(
      protectedTool,
      { movie_id: "1", "X-Api-Key": "mine" },
      { ...net, credential: { scheme: "apiKey", in: "header", name: "x-api-key", value: SECRET } },
    );
    expect(header.error).toMatchObject({ kind: "invalid_arguments", argument: "X-Api-Key" });
    expect(net.calls).toHaveLength(0);
  });

  it("reports an apiKey credential without a name as a definition problem", async () => {
    const net = recorder();
    const result = await callTool(protectedTool, { movie_id: "1" }, { ...net, credential: { scheme: "apiKey", in: "header", value: SECRET } });
    expect(result.error).toMatchObject({ kind: "invalid_definition" });
    assertNoSecret(result);
  });

  it("keeps the credential on a same-origin redirect and drops it on a cross-origin one", async () => {
    const net = recorder((seen) => {
      if (seen.url.endsWith("/movie/1")) return new Response(null, { status: 302, headers: { Location: "/3/movie/2" } });
      if (seen.url.endsWith("/movie/2")) return new Response(null, { status: 302, headers: { Location: "https://cdn.example.net/x" } });
      return Response.json({});
    });
    await callTool(protectedTool, { movie_id: "1" }, { ...net, credential: { scheme: "bearer", in: "header", value: SECRET } });
    expect(net.calls.map((c) => [c.url, c.headers.authorization])).toEqual([
      ["https://api.themoviedb.org/3/movie/1", `Bearer ${SECRET}`],
      ["https://api.themoviedb.org/3/movie/2", `Bearer ${SECRET}`],
      ["https://cdn.example.net/x", undefined],
    ]);
  });
});
