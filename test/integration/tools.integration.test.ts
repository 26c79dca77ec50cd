import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const outboundLog: Request[] = [];

let service: TestService;
let a: { id: string; key: string };
let b: { id: string; key: string };

beforeAll(async () => {
  service = await startService({
    // Stands in for the public internet in these tests: records what the service sent.
    outbound: async (request) => {
      outboundLog.push(request);
      const url = new URL(request.url);
      if (url.hostname === "redirect.example.com") {
        return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
      }
      return Response.json({ echo: { url: request.url, headers: Object.fromEntries(request.headers.entries()) } });
    },
  });
  a = await createTenant(service, "tenant-a");
  b = await createTenant(service, "tenant-b");
});
afterAll(async () => service.dispose());

const importTmdb = (key: string) =>
  service.json<{ created: string[]; updated: string[]; unchanged: string[] }>("POST", "/v1/tools/import", {
    key,
    body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb`, source: "tmdb" },
  });

describe("OpenAPI import", () => {
  it("imports the RestBench TMDB document as 54 tools, and again as no change", async () => {
    const first = await importTmdb(a.key);
    expect(first.status).toBe(200);
    expect(first.body.created).toHaveLength(54);
    const list = await service.json<{ tools: { name: string; operation: string; hash: string }[] }>("GET", "/v1/tools", { key: a.key });
    expect(list.body.tools).toHaveLength(54);
    const again = await importTmdb(a.key);
    expect(again.body).toMatchObject({ created: [], updated: [] });
    expect(again.body.unchanged).toHaveLength(54);
    const listAgain = await service.json<{ tools: { hash: string; updatedAt: string }[] }>("GET", "/v1/tools", { key: a.key });
    expect(listAgain.body).toEqual(list.body);
  });

  it("keeps parameters, descriptions and response examples", async () => {
    const list = await service.json<{ tools: { name: string; operation: string }[] }>("GET", "/v1/tools", { key: a.key });
    const credits = list.body.tools.find((t) => t.operation === "GET /person/{person_id}/movie_credits");
    expect(credits).toBeDefined();
    const tool = await service.json<{
      definition: { description: string; parameters: { name: string; in: string; required: boolean }[]; responseExample: unknown };
    }>("GET", `/v1/tools/${credits?.name}`, { key: a.key });
    expect(tool.body.definition.description.length).toBeGreaterThan(10);
    expect(tool.body.definition.parameters).toContainEqual(expect.objectContaining({ name: "person_id", in: "path", required: true }));
    expect(tool.body.definition.responseExample).toBeTruthy();
  });

  it("rejects a document that is not OpenAPI with a clear 422 and stores nothing", async () => {
    const before = await service.json<{ tools: unknown[] }>("GET", "/v1/tools", { key: b.key });
    const res = await service.json<{ type: string; detail: string }>("POST", "/v1/tools/import", {
      key: b.key,
      body: { format: "openapi", document: "this: is: not openapi" },
    });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe("https://atc-edge.dev/problems/invalid-document");
    expect(res.body.detail.length).toBeGreaterThan(5);
    const after = await service.json<{ tools: unknown[] }>("GET", "/v1/tools", { key: b.key });
    expect(after.body).toEqual(before.body);
  });

  it("answers malformed JSON and wrong field types with 400 problems", async () => {
    const malformed = await service.json<{ type: string }>("POST", "/v1/tools/import", { key: b.key, body: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.type).toBe("https://atc-edge.dev/problems/malformed-json");
    const wrongType = await service.json<{ type: string; errors: unknown[] }>("POST", "/v1/tools/import", {
      key: b.key,
      body: { format: "openapi", document: 42 },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.type).toBe("https://atc-edge.dev/problems/invalid-request");
    const unknownField = await service.json("POST", "/v1/tools/import", { key: b.key, body: { format: "list", tools: [], surprise: true } });
    expect(unknownField.status).toBe(400);
  });
});

describe("bare tool lists", () => {
  it("registers tools with no response documentation, and updates only what changed", async () => {
    const tools = [
      { name: "listThings", method: "GET", url: "https://api.example.com/v1/things", parameters: [{ name: "limit", type: "integer" }] },
      { name: "getThing", method: "GET", url: "https://api.example.com/v1/things/{thing_id}" },
    ];
    const first = await service.json<{ created: string[] }>("POST", "/v1/tools/import", { key: b.key, body: { format: "list", tools, source: "things" } });
    expect(first.status).toBe(200);
    expect(first.body.created.sort()).toEqual(["getThing", "listThings"]);
    const changed = [{ ...tools[0], description: "Lists things" }, tools[1]];
    const second = await service.json<{ updated: string[]; unchanged: string[] }>("POST", "/v1/tools/import", {
      key: b.key,
      body: { format: "list", tools: changed, source: "things" },
    });
    expect(second.body.updated).toEqual(["listThings"]);
    expect(second.body.unchanged).toEqual(["getThing"]);
    const got = await service.json<{ definition: { parameters: { name: string; in: string }[]; responseSchema?: unknown } }>("GET", "/v1/tools/getThing", {
      key: b.key,
    });
    expect(got.body.definition.parameters).toContainEqual(expect.objectContaining({ name: "thing_id", in: "path" }));
    expect(got.body.definition.responseSchema).toBeUndefined();
  });

  it("deletes a tool, and 404s an unknown one", async () => {
    expect((await service.fetch("/v1/tools/getThing", { method: "DELETE", headers: { authorization: `Bearer ${b.key}` } })).status).toBe(204);
    expect((await service.json("GET", "/v1/tools/getThing", { key: b.key })).status).toBe(404);
    expect((await service.json("DELETE", "/v1/tools/getThing", { key: b.key })).status).toBe(404);
  });
});

describe("tenant isolation", () => {
  it("never shows or changes one tenant's tools or credentials with another's key", async () => {
    const aTools = await service.json<{ tools: { name: string }[] }>("GET", "/v1/tools", { key: a.key });
    const name = aTools.body.tools[0]?.name ?? "";
    expect(name).not.toBe("");
    expect((await service.json("GET", `/v1/tools/${name}`, { key: b.key })).status).toBe(404);
    expect((await service.json("DELETE", `/v1/tools/${name}`, { key: b.key })).status).toBe(404);
    expect((await service.json("POST", `/v1/tools/${name}/call`, { key: b.key, body: { arguments: {} } })).status).toBe(404);
    const bList = await service.json<{ tools: { name: string }[] }>("GET", "/v1/tools", { key: b.key });
    expect(bList.body.tools.map((t) => t.name)).not.toContain(name);
    expect((await service.json("GET", `/v1/tools/${name}`, { key: a.key })).status).toBe(200);

    const cred = await service.json<{ id: string }>("PUT", "/v1/credentials", {
      key: a.key,
      body: { scope: { tool: name }, scheme: "bearer", value: "a-secret-token-of-tenant-a" },
    });
    expect(cred.status).toBe(201);
    expect((await service.json("DELETE", `/v1/credentials/${cred.body.id}`, { key: b.key })).status).toBe(404);
    const bCreds = await service.json<{ credentials: unknown[] }>("GET", "/v1/credentials", { key: b.key });
    expect(bCreds.body.credentials).toEqual([]);
    const aKeys = await service.json<{ keys: { id: string }[] }>("GET", "/v1/keys", { key: a.key });
    expect((await service.json("DELETE", `/v1/keys/${aKeys.body.keys[0]?.id}`, { key: b.key })).status).toBe(404);
    expect((await service.json("GET", "/v1/tenant", { key: a.key })).status).toBe(200);
  });

  it("keeps admin routes closed to tenant keys", async () => {
    expect((await service.json("GET", "/admin/tenants", { key: a.key })).status).toBe(401);
    expect((await service.json("POST", "/admin/tenants/tenant-b/keys", { key: a.key, body: {} })).status).toBe(401);
  });
});
