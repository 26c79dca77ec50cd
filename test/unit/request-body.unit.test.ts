import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../functions/http/app-env";
import { toProblem } from "../../functions/http/app";
import { problemResponse } from "../../functions/http/problem";
import { limitRequestBody } from "../../functions/http/middleware/request-body";

const MAX = 1_000;

/** A request whose body streams in chunks with no Content-Length, as a chunked upload arrives. */
function chunked(path: string, chunks: readonly string[], contentType = "application/json"): Request {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Request(`http://atc.test${path}`, { method: "POST", headers: { "content-type": contentType }, body, duplex: "half" } as RequestInit);
}

/** An app with the middleware and one route that reports what the handler saw. */
function app(): { app: Hono<AppEnv>; seen: { sameRequest: boolean; text: string }[] } {
  const seen: { sameRequest: boolean; text: string }[] = [];
  const hono = new Hono<AppEnv>();
  const originals = new WeakSet<Request>();
  hono.use("*", async (c, next) => {
    originals.add(c.req.raw);
    await next();
  });
  hono.use("*", limitRequestBody(MAX));
  hono.post("*", async (c) => {
    const text = await c.req.text();
    seen.push({ sameRequest: originals.has(c.req.raw), text });
    return c.json({ parsed: c.req.header("content-type")?.includes("json") === true ? await c.req.json() : null });
  });
  hono.onError((error, c) => problemResponse(toProblem(error), c.req.path));
  return { app: hono, seen };
}

describe("limitRequestBody", () => {
  it("reads a chunked JSON API body once, into the body cache, without copying the request", async () => {
    const { app: hono, seen } = app();
    const response = await hono.fetch(chunked("/v1/route", ['{"task":"wea', 'ther","k":', "8}"]));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ parsed: { task: "weather", k: 8 } });
    // Hono's bodyLimit answers a chunked body by building a new Request around the bytes it read.
    expect(seen).toEqual([{ sameRequest: true, text: '{"task":"weather","k":8}' }]);
  });

  it("decodes a character whose bytes arrive in two chunks", async () => {
    const { app: hono, seen } = app();
    const bytes = new TextEncoder().encode('{"task":"météo à Zürich"}');
    const split = bytes.indexOf(0xc3) + 1; // inside the first two-byte character
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, split));
        controller.enqueue(bytes.subarray(split));
        controller.close();
      },
    });
    const response = await hono.fetch(
      new Request("http://atc.test/v1/route", { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit),
    );
    expect(await response.json()).toEqual({ parsed: { task: "météo à Zürich" } });
    expect(seen[0]?.text).toBe('{"task":"météo à Zürich"}');
  });

  it("answers 413 while a chunked body streams past the limit, and 413 from Content-Length", async () => {
    const { app: hono, seen } = app();
    const streamed = await hono.fetch(chunked("/v1/tools", ["[", "1,".repeat(400), "1,".repeat(400), "1]"]));
    expect(streamed.status).toBe(413);
    expect((await streamed.json()) as { type: string }).toMatchObject({ type: expect.stringMatching(/payload-too-large/) });
    const sized = await hono.fetch(
      new Request("http://atc.test/v1/tools", { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(MAX + 1) }),
    );
    expect(sized.status).toBe(413);
    expect(seen).toEqual([]);
  });

  it("refuses JSON nested too deep on the JSON API, chunked or sized, before any handler", async () => {
    const { app: hono, seen } = app();
    const deep = "[".repeat(65) + "]".repeat(65);
    for (const request of [
      chunked("/admin/tenants", [deep.slice(0, 30), deep.slice(30)]),
      new Request("http://atc.test/v1/graph", { method: "POST", headers: { "content-type": "application/json" }, body: deep }),
    ]) {
      const response = await hono.fetch(request);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { type: string }).type).toMatch(/json-too-deep/);
    }
    expect(seen).toEqual([]);
  });

  it("leaves other bodies as they came: a chunked body outside the JSON API is still readable whole", async () => {
    const { app: hono, seen } = app();
    const deep = "[".repeat(65) + "]".repeat(65);
    const response = await hono.fetch(chunked("/mcp", [deep.slice(0, 10), deep.slice(10)], "text/plain"));
    expect(response.status).toBe(200);
    expect(seen[0]?.text).toBe(deep);
  });
});
