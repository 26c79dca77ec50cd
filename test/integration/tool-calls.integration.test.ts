import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

const SECRET = "sk-live-planted-credential-9f8e7d6c5b4a";
const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const seenByUpstream: { url: string; headers: Record<string, string> }[] = [];

let service: TestService;
let tenant: { id: string; key: string };

beforeAll(async () => {
  service = await startService({
    outbound: async (request) => {
      const url = new URL(request.url);
      seenByUpstream.push({ url: request.url, headers: Object.fromEntries(request.headers.entries()) });
      if (url.hostname === "redirect.example.com") {
        return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
      }
      if (url.pathname === "/huge") return new Response("y".repeat(3 * 1024 * 1024), { headers: { "content-type": "text/plain" } });
      if (url.pathname === "/fails") return Response.json({ message: `bad request, your header was ${request.headers.get("authorization")}` }, { status: 400 });
      return Response.json({ path: url.pathname, query: url.search });
    },
    bindings: { TOOL_MAX_RESPONSE_BYTES: String(1024 * 1024) },
  });
  tenant = await createTenant(service, "caller");
  const tools = [
    {
      name: "echo",
      method: "GET",
      url: "https://api.example.com/echo/{item}",
      parameters: [
        { name: "item", type: "string", in: "path", required: true },
        { name: "count", type: "integer", in: "query" },
      ],
    },
    { name: "huge", method: "GET", url: "https://api.example.com/huge" },
    { name: "fails", method: "GET", url: "https://api.example.com/fails" },
    { name: "bounce", method: "GET", url: "https://redirect.example.com/start" },
    { name: "metadata", method: "GET", url: "http://169.254.169.254/latest/meta-data/" },
    { name: "loopback", method: "GET", url: "http://0x7f000001:8080/admin" },
  ];
  const imported = await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools, source: "calls" } });
  expect(imported.status).toBe(200);
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb`, source: "tmdb" },
  });
  const stored = await service.json("PUT", "/v1/credentials", {
    key: tenant.key,
    body: { scope: { server: "https://api.example.com" }, scheme: "bearer", value: SECRET },
  });
  expect(stored.status).toBe(201);
});
afterAll(async () => service.dispose());

const call = (name: string, args: Record<string, unknown> = {}) =>
  service.json<{ ok: boolean; status?: number; body: unknown; truncated: boolean; error?: { kind: string; message: string }; request: { url: string } }>(
    "POST",
    `/v1/tools/${name}/call`,
    { key: tenant.key, body: { arguments: args } },
  );

describe("calling a tool", () => {
  it("builds the request from path and query arguments and injects the credential only upstream", async () => {
    const res = await call("echo", { item: "a b/c", count: 3 });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.body).toEqual({ path: "/echo/a%20b%2Fc", query: "?count=3" });
    const upstream = seenByUpstream.at(-1);
    expect(upstream?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it("never returns the credential: not in listings, not in upstream error bodies echoed back", async () => {
    const listed = await service.json("GET", "/v1/credentials", { key: tenant.key });
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    expect(JSON.stringify(listed.body)).toContain("••••");
    const failing = await call("fails");
    expect(failing.body.ok).toBe(false);
    expect(failing.body.status).toBe(400);
    expect(JSON.stringify(failing.body)).not.toContain(SECRET);
  });

  it("validates arguments before any network, naming the bad argument", async () => {
    const before = seenByUpstream.length;
    const missing = await service.json<{ type: string; detail: string }>("POST", "/v1/tools/echo/call", { key: tenant.key, body: { arguments: { count: 1 } } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain("item");
    const wrongType = await service.json<{ detail: string }>("POST", "/v1/tools/echo/call", {
      key: tenant.key,
      body: { arguments: { item: "x", count: "many" } },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toContain("count");
    const unknown = await service.json<{ detail: string }>("POST", "/v1/tools/echo/call", {
      key: tenant.key,
      body: { arguments: { item: "x", colour: "red" } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toContain("colour");
    expect(seenByUpstream.length).toBe(before);
  });

  it("refuses private destinations, directly and through a redirect", async () => {
    for (const name of ["metadata", "loopback", "bounce"]) {
      const res = await service.json<{ type: string }>("POST", `/v1/tools/${name}/call`, { key: tenant.key, body: { arguments: {} } });
      expect(res.status, name).toBe(422);
      expect(res.body.type).toBe("https://atc-edge.dev/problems/tool-call-refused");
    }
    expect(seenByUpstream.some((r) => r.url.includes("169.254.169.254") || r.url.includes(":8080"))).toBe(false);
  });

  it("caps the response size and says so", async () => {
    const res = await call("huge");
    expect(res.status).toBe(200);
    expect(res.body.truncated).toBe(true);
    expect(JSON.stringify(res.body).length).toBeLessThan(1.2 * 1024 * 1024);
  });

  it("404s an unknown tool", async () => {
    const res = await service.json<{ type: string }>("POST", "/v1/tools/noSuchTool/call", { key: tenant.key, body: { arguments: {} } });
    expect(res.status).toBe(404);
  });
});

describe("the simulated world through the service", () => {
  it("gives 404 for an id it never handed out, and answers one it did", async () => {
    const tools = await service.json<{ tools: { name: string; operation: string }[] }>("GET", "/v1/tools", { key: tenant.key });
    const byOp = (op: string) => tools.body.tools.find((t) => t.operation === op)?.name ?? "";
    const unknown = await call(byOp("GET /person/{person_id}/movie_credits"), { person_id: 987654321 });
    expect(unknown.body.ok).toBe(false);
    expect(unknown.body.status).toBe(404);

    const search = await call(byOp("GET /search/person"), { query: "Christopher Nolan" });
    expect(search.body.ok).toBe(true);
    const people = (search.body.body as { results: { id: number }[] }).results;
    expect(people.length).toBeGreaterThan(0);
    const credits = await call(byOp("GET /person/{person_id}/movie_credits"), { person_id: people[0]?.id });
    expect(credits.body.ok).toBe(true);
    expect(credits.body.status).toBe(200);
  });
});
