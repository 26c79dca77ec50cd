import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * `POST /v1/tools/import` by `url`: the service fetches the document through the destination
 * guard, with a byte cap, and answers the same idempotent report as for a posted document; a
 * document posted without the `{format, …}` wrapper gets a problem saying how to wrap it.
 */

const petstore = {
  openapi: "3.0.3",
  info: { title: "pets", version: "1" },
  servers: [{ url: "https://pets.example.com/v1" }],
  paths: { "/pets": { get: { operationId: "listPets", responses: { "200": { description: "ok" } } } } },
};
const list = [{ name: "search", method: "GET", url: "https://search.example.com/q" }];
const fetched: string[] = [];

let service: TestService;
let tenant: { id: string; key: string };

beforeAll(async () => {
  service = await startService({
    bindings: { IMPORT_URL_MAX_BYTES: "2000" },
    // The public internet, as far as these tests go.
    outbound: async (request) => {
      fetched.push(request.url);
      const url = new URL(request.url);
      if (url.pathname === "/petstore.json") return Response.json(petstore);
      if (url.pathname === "/tools.json") return Response.json(list);
      if (url.pathname === "/specs/relative.json") return Response.json({ ...petstore, servers: [{ url: "/v1" }] });
      if (url.pathname === "/huge.json") return Response.json({ ...petstore, info: { ...petstore.info, description: "x".repeat(5_000) } });
      if (url.pathname === "/to-metadata") return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/" } });
      return new Response("not here", { status: 404 });
    },
    programHost: false,
  });
  tenant = await createTenant(service, "url-imports");
});
afterAll(async () => service.dispose());

const post = (body: unknown) =>
  service.json<{ created?: string[]; unchanged?: string[]; detail?: string; status?: number }>("POST", "/v1/tools/import", { key: tenant.key, body });

describe("import by URL", () => {
  it("imports an OpenAPI document and a list by URL, and again as no change", async () => {
    const first = await post({ format: "openapi", url: "https://specs.example.com/petstore.json" });
    expect(first.status).toBe(200);
    expect(first.body.created).toEqual(["listPets"]);
    const again = await post({ format: "openapi", url: "https://specs.example.com/petstore.json" });
    expect(again.body).toMatchObject({ created: [], unchanged: ["listPets"] });
    const tools = await service.json<{ tools: { name: string; source: string }[] }>("GET", "/v1/tools", { key: tenant.key });
    expect(tools.body.tools).toContainEqual(expect.objectContaining({ name: "listPets", source: "https://specs.example.com/petstore.json" }));
    const fromList = await post({ format: "list", url: "https://specs.example.com/tools.json" });
    expect(fromList.body.created).toEqual(["search"]);
  });

  it("refuses a private address, a redirect into one, and a document over the size limit", async () => {
    const before = fetched.length;
    const privateAddress = await post({ format: "openapi", url: "http://10.0.0.7/openapi.json" });
    expect(privateAddress.status).toBe(400);
    expect(privateAddress.body.detail).toMatch(/The document URL is refused: .*private/);
    expect(fetched.length).toBe(before);
    const redirected = await post({ format: "openapi", url: "https://specs.example.com/to-metadata" });
    expect(redirected.status).toBe(400);
    expect(redirected.body.detail).toMatch(/refused: .*linkLocal/);
    const huge = await post({ format: "openapi", url: "https://specs.example.com/huge.json" });
    expect(huge.status).toBe(400);
    expect(huge.body.detail).toMatch(/larger than 2000 bytes/);
    const missing = await post({ format: "openapi", url: "https://specs.example.com/nothing.json" });
    expect(missing.status).toBe(502);
    expect(missing.body.detail).toMatch(/HTTP 404/);
  });

  it("resolves a relative server URL against the document's URL, now and in the background; a posted document with one gets a problem saying how", async () => {
    const other = await createTenant(service, "url-relative");
    const send = (body: unknown) =>
      service.json<{ created?: string[]; warnings?: string[]; detail?: string; jobId?: string }>("POST", "/v1/tools/import", { key: other.key, body });
    const serverOf = async (name: string) =>
      (await service.json<{ definition: { serverUrl: string } }>("GET", `/v1/tools/${name}`, { key: other.key })).body.definition.serverUrl;
    const now = await send({ format: "openapi", url: "https://specs.example.com/specs/relative.json" });
    expect(now.status).toBe(200);
    expect(now.body.created).toEqual(["listPets"]);
    expect(now.body.warnings).toContainEqual(expect.stringContaining("resolved against the document's URL to https://specs.example.com/v1"));
    expect(await serverOf("listPets")).toBe("https://specs.example.com/v1");

    const later = await send({ format: "openapi", url: "https://specs.example.com/specs/relative.json", background: true, source: "relative-bg" });
    expect(later.status).toBe(202);
    let status = "queued";
    for (let i = 0; i < 300 && status !== "succeeded" && status !== "failed"; i += 1) {
      status = (await service.json<{ status: string }>("GET", `/v1/jobs/${later.body.jobId}`, { key: other.key })).body.status;
      if (status !== "succeeded" && status !== "failed") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe("succeeded");
    expect(await serverOf("listPets")).toBe("https://specs.example.com/v1");

    const posted = await send({ format: "openapi", document: { ...petstore, servers: [{ url: "/v1" }] } });
    expect(posted.status).toBe(422);
    expect(posted.body.detail).toMatch(/"\/v1" is not an absolute http\(s\) URL: it is relative to where the document is served.*Import it by URL/);
  });

  it("wants the document either inline or by URL", async () => {
    const both = await post({ format: "openapi", url: "https://specs.example.com/petstore.json", document: petstore });
    expect(both.status).toBe(400);
    expect(both.body.detail).toMatch(/either inline as `document` or by `url`, not both/);
    const neither = await post({ format: "list" });
    expect(neither.status).toBe(400);
    expect(neither.body.detail).toMatch(/not neither/);
  });
});

describe("a document posted bare", () => {
  it("says how to wrap an OpenAPI document", async () => {
    const bare = await post(petstore);
    expect(bare.status).toBe(400);
    expect(bare.body.detail).toBe(
      'This looks like an OpenAPI document posted on its own: send {"format":"openapi","document": <the document>}, or {"format":"openapi","url":"https://…/openapi.json"} to have it fetched.',
    );
  });

  it("says how to wrap a tool list", async () => {
    const bare = await post(list);
    expect(bare.status).toBe(400);
    expect(bare.body.detail).toMatch(/^This looks like a bare tool list posted on its own: send \{"format":"list","tools": <the list>\}/);
  });
});
