import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { ToolDefinition } from "../../functions/tools/definition";
import { importOpenApi, isImportFailure, type ToolImportCode } from "../../functions/tools/openapi-import";
import type { Failure } from "../../functions/common/failures";

const TMDB_PATH = "kv-seed/world/restbench-tmdb/openapi.json";
const TASKS_PATH = "kv-seed/world/restbench-tmdb/tasks.json";
const tmdbText = readFileSync(TMDB_PATH, "utf8");

async function importError(promise: Promise<unknown>): Promise<Failure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isImportFailure(error)) throw new Error(`expected an import failure, got ${String(error)}`);
  return error;
}

async function expectImportError(document: string | object, code: ToolImportCode, message: RegExp, serverUrl?: string) {
  const error = await importError(importOpenApi(document, serverUrl === undefined ? {} : { serverUrl }));
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
  return error;
}

function byOperation(tools: ToolDefinition[], operation: string): ToolDefinition {
  const tool = tools.find((t) => t.operation === operation);
  if (tool === undefined) throw new Error(`no tool for ${operation}`);
  return tool;
}

function param(tool: ToolDefinition, name: string) {
  const found = tool.parameters.find((p) => p.name === name);
  if (found === undefined) throw new Error(`${tool.name} has no parameter ${name}`);
  return found;
}

describe("importOpenApi: RestBench TMDB document", () => {
  it("imports all 54 operations as valid, independent, describable tools", async () => {
    const { tools, warnings } = await importOpenApi(tmdbText);
    expect(tools).toHaveLength(54);
    expect(warnings).toEqual([]);
    expect(new Set(tools.map((t) => t.name)).size).toBe(54);
    for (const tool of tools) {
      expect(ToolDefinition.parse(tool)).toEqual(tool);
      expect(tool.name).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(tool.description.length).toBeGreaterThan(0);
      expect(tool.serverUrl).toBe("https://api.themoviedb.org/3");
      expect(tool.operation).toBe(`${tool.method} ${tool.path}`);
      expect(tool.responseSchema).toBeDefined();
      expect(tool.responseExample).toBeDefined();
      expect(tool.auth).toEqual({ scheme: "apiKey", in: "query", name: "api_key" });
      // Plain JSON: no $ref left, no cycles.
      expect(JSON.stringify(tool)).not.toContain("$ref");
    }
  });

  it("details GET /person/{person_id}/movie_credits: path param, dereferenced 3.0 schema, example", async () => {
    const { tools } = await importOpenApi(tmdbText);
    const tool = byOperation(tools, "GET /person/{person_id}/movie_credits");
    expect(tool.name).toBe("getPersonPersonIdMovieCredits");
    expect(tool.method).toBe("GET");
    expect(tool.path).toBe("/person/{person_id}/movie_credits");
    expect(tool.summary).toBe("Get Movie Credits");
    expect(tool.description).toMatch(/^Get the movie credits for a person/);
    expect(tool.parameters).toEqual([{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }]);

    const schema = tool.responseSchema as { properties: Record<string, { items: { properties: Record<string, unknown> } }> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["cast", "crew", "id"]));
    // `poster_path` was `$ref: image-path` with OpenAPI 3.0 `nullable: true`: now inline, 3.1 style.
    expect(schema.properties.cast?.items.properties.poster_path).toEqual({ title: "image-path", type: ["string", "null"] });

    const example = tool.responseExample as { id: number; cast: { title: string }[] };
    expect(example.id).toBe(287);
    expect(example.cast.length).toBeGreaterThan(0);
    expect(example.cast[0]?.title).toBe("Legends of the Fall");
  });

  it("merges path-level and operation-level parameters and derives camelCase names from operationId", async () => {
    const { tools } = await importOpenApi(tmdbText);
    const reviews = byOperation(tools, "GET /movie/{movie_id}/reviews");
    expect(reviews.name).toBe("getMovieMovieIdReviews");
    expect(reviews.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ["movie_id", "path", true],
      ["page", "query", false],
    ]);
    expect(param(reviews, "page").schema).toEqual({ type: "integer", default: 1 });
    const search = byOperation(tools, "GET /search/movie");
    expect(param(search, "query")).toMatchObject({ in: "query", required: true, schema: { type: "string" } });
    expect(param(search, "query").description).toMatch(/text query/);
  });

  it("covers every RestBench gold operation", async () => {
    const { tools } = await importOpenApi(tmdbText);
    const operations = new Set(tools.map((t) => t.operation));
    const tasks = JSON.parse(readFileSync(TASKS_PATH, "utf8")) as { solution: string[] }[];
    const gold = new Set(tasks.flatMap((t) => t.solution));
    expect(gold.size).toBeGreaterThan(10);
    for (const operation of gold) expect(operations, operation).toContain(operation);
  });

  it("gives the same tools for YAML text, JSON text and a parsed object, without touching the object", async () => {
    const object = JSON.parse(tmdbText) as Record<string, unknown>;
    const pristine = structuredClone(object);
    const fromJson = await importOpenApi(tmdbText);
    const fromYaml = await importOpenApi(toYaml(object));
    const fromObject = await importOpenApi(object);
    expect(fromYaml).toEqual(fromJson);
    expect(fromObject).toEqual(fromJson);
    expect(object).toEqual(pristine);
  });

  it("uses serverUrl when given, without a trailing slash", async () => {
    const { tools } = await importOpenApi(tmdbText, { serverUrl: "https://tmdb.sim.example/3/" });
    expect(new Set(tools.map((t) => t.serverUrl))).toEqual(new Set(["https://tmdb.sim.example/3"]));
  });
});

const petstore31 = {
  openapi: "3.1.0",
  info: { title: "Pets", version: "1" },
  servers: [{ url: "https://{region}.pets.example/{version}", variables: { region: { default: "eu" }, version: { default: "v2" } } }],
  security: [{ bearer: [] }],
  paths: {
    "/pets/{petId}": {
      parameters: [{ $ref: "#/components/parameters/PetId" }, { name: "X-Trace", in: "header", schema: { type: "string" } }],
      get: {
        operationId: "get-pet",
        tags: ["pets"],
        summary: "One pet",
        parameters: [
          { name: "X-Trace", in: "header", required: true, schema: { type: "string" }, description: "operation-level wins" },
          { name: "fields", in: "query", schema: { type: ["string", "null"] }, example: "name,tag" },
          { name: "session", in: "cookie", schema: { type: "string" } },
          { name: "Accept", in: "header", schema: { type: "string" } },
        ],
        responses: {
          default: { description: "error", content: { "application/json": { schema: { type: "object", properties: { error: { type: "string" } } } } } },
          "201": { description: "not this one", content: { "application/json": { schema: { type: "string" } } } },
          "200": {
            description: "the pet",
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/Pet" },
                examples: { rex: { summary: "a dog", value: { id: 1, name: "Rex", tag: null } } },
              },
            },
          },
        },
      },
      put: {
        operationId: "getPet",
        security: [],
        requestBody: { $ref: "#/components/requestBodies/PetBody" },
        responses: { "204": { description: "saved" } },
      },
    },
    "/pets": {
      post: {
        security: [{ oauth: ["write"] }],
        requestBody: { required: true, content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Pet" } } } } },
        responses: { "201": { description: "created", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
      },
      get: {
        responses: {
          "202": { description: "accepted", content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } },
          "201": { description: "lowest 2xx wins", content: { "application/json": { schema: { type: "array" }, example: [] } } },
        },
      },
    },
    "/tree": {
      get: {
        operationId: "get_tree",
        responses: { "200": { description: "", content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } } },
      },
    },
  },
  components: {
    parameters: { PetId: { name: "petId", in: "path", required: true, description: "The pet's id", schema: { type: "integer", minimum: 1 } } },
    requestBodies: {
      PetBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              allOf: [
                { $ref: "#/components/schemas/Pet" },
                { type: "object", required: ["owner"], properties: { owner: { type: "string", description: "Who owns it" } } },
              ],
            },
          },
        },
      },
    },
    schemas: {
      Pet: {
        type: "object",
        required: ["name"],
        properties: { id: { type: "integer", readOnly: true }, name: { type: "string" }, tag: { type: ["string", "null"] } },
      },
      Node: { type: "object", properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } } },
    },
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      oauth: { type: "oauth2", flows: { implicit: { authorizationUrl: "https://auth.example/authorize", scopes: { write: "" } } } },
    },
  },
};

describe("importOpenApi: OpenAPI 3.1 features", () => {
  it("resolves server variables, $ref parameters, 3.1 type arrays, overrides and examples", async () => {
    const { tools } = await importOpenApi(petstore31);
    const get = byOperation(tools, "GET /pets/{petId}");
    expect(get.name).toBe("getPet");
    expect(get.serverUrl).toBe("https://eu.pets.example/v2");
    expect(get.tags).toEqual(["pets"]);
    expect(get.description).toBe("One pet");
    expect(param(get, "petId")).toEqual({ name: "petId", in: "path", required: true, description: "The pet's id", schema: { type: "integer", minimum: 1 } });
    expect(param(get, "X-Trace")).toMatchObject({ required: true, description: "operation-level wins" });
    expect(get.parameters.filter((p) => p.name === "X-Trace")).toHaveLength(1);
    expect(param(get, "fields").schema).toEqual({ type: ["string", "null"], examples: ["name,tag"] });
    // Cookie parameters cannot be sent; Accept is set by the HTTP layer (OpenAPI says ignore it).
    expect(get.parameters.map((p) => p.name)).not.toContain("session");
    expect(get.parameters.map((p) => p.name)).not.toContain("Accept");
    expect(get.responseSchema).toEqual(petstore31.components.schemas.Pet);
    expect(get.responseExample).toEqual({ id: 1, name: "Rex", tag: null });
    expect(get.auth).toEqual({ scheme: "bearer", in: "header" });
  });

  it("carries the API's info title on every tool, as plain text, and not its description", async () => {
    const { tools } = await importOpenApi({ ...petstore31, info: { ...petstore31.info, title: "## Pet <b>Store</b>", description: "Pets for sale." } });
    expect(tools.length).toBeGreaterThan(1);
    for (const tool of tools) expect(tool.apiTitle).toBe("Pet Store");
    // A changed description (release notes) leaves every tool as it was: no new versions, no new probing.
    const { tools: renoted } = await importOpenApi({ ...petstore31, info: { ...petstore31.info, title: "Pet Store", description: "Now with cats." } });
    expect(renoted).toEqual(tools);
    const { tools: untitled } = await importOpenApi({ ...petstore31, info: { version: "1" } });
    expect(untitled[0]?.apiTitle).toBeUndefined();
  });

  it("flattens an object request body (allOf, $ref requestBodies) into body parameters", async () => {
    const { tools, warnings } = await importOpenApi(petstore31);
    const put = byOperation(tools, "PUT /pets/{petId}");
    // operationId "getPet" collides with the name derived from "get-pet".
    expect(put.name).toBe("getPet_2");
    expect(warnings.some((w) => w.includes('"getPet" is already taken'))).toBe(true);
    expect(put.bodyContentType).toBe("application/json");
    const body = put.parameters.filter((p) => p.in === "body");
    expect(body.map((p) => [p.name, p.required])).toEqual([
      ["name", true],
      ["tag", false],
      ["owner", true],
    ]);
    expect(param(put, "owner").description).toBe("Who owns it");
    // readOnly `id` is never sent; explicit empty `security` means no auth.
    expect(body.map((p) => p.name)).not.toContain("id");
    expect(put.auth).toBeUndefined();
    expect(put.responseSchema).toBeUndefined();
  });

  it("keeps a non-object body as one `body` parameter and names operations without operationId", async () => {
    const { tools, warnings } = await importOpenApi(petstore31);
    const post = byOperation(tools, "POST /pets");
    expect(post.name).toBe("postPets");
    expect(post.parameters).toEqual([{ name: "body", in: "body", required: true, schema: { type: "array", items: petstore31.components.schemas.Pet } }]);
    // OAuth 2: called with a Bearer token; the scopes the operation needs stay on the tool.
    expect(post.auth).toEqual({ scheme: "oauth2", in: "header", scopes: ["write"] });
    expect(warnings.some((w) => w.includes('"oauth"') && w.includes("not supported"))).toBe(false);
    const list = byOperation(tools, "GET /pets");
    expect(list.name).toBe("getPets");
    expect(list.responseSchema).toEqual({ type: "array" });
    expect(list.responseExample).toEqual([]);
  });

  it("cuts recursive schemas so every tool is plain JSON", async () => {
    const { tools, warnings } = await importOpenApi(petstore31);
    const tree = byOperation(tools, "GET /tree");
    expect(tree.name).toBe("getTree");
    const text = JSON.stringify(tree);
    expect(text).toContain("Recursive reference to #/components/schemas/Node");
    const schema = tree.responseSchema as { properties: { children: { items: Record<string, unknown> } } };
    expect(schema.properties.children.items).toEqual({
      type: "object",
      description: "Recursive reference to #/components/schemas/Node; not expanded further.",
    });
    expect(warnings.some((w) => w.startsWith("GET /tree: recursive schema #/components/schemas/Node"))).toBe(true);
    for (const tool of tools) expect(() => JSON.stringify(tool)).not.toThrow();
  });

  it("keeps tools small in documents whose schemas all reach one another: no discriminator mapping, references at most 4 deep", async () => {
    // As in Microsoft Graph: every schema inherits a base whose discriminator maps all subtypes,
    // and schemas refer on and on (L0 → L1 → … → L5); full expansion made tools of megabytes.
    const level = (n: number) => ({
      type: "object",
      properties: { name: { type: "string" }, ...(n < 5 ? { next: { $ref: `#/components/schemas/L${n + 1}` } } : {}) },
    });
    const doc = {
      openapi: "3.0.3",
      info: { title: "chain", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/l": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/L0" } } } } } } },
      },
      components: {
        schemas: {
          ...Object.fromEntries(
            [0, 1, 2, 3, 4, 5].map((n) => [`L${n}`, { ...level(n), discriminator: { propertyName: "kind", mapping: { a: "#/components/schemas/L5" } } }]),
          ),
        },
      },
    };
    const { tools, warnings } = await importOpenApi(doc);
    const schema = tools[0]?.responseSchema as Record<string, unknown>;
    expect(schema.discriminator).toEqual({ propertyName: "kind" });
    const at = (depth: number) => [...Array(depth).keys()].reduce((s) => (s.properties as { next: Record<string, unknown> }).next, schema);
    expect(at(3)).toMatchObject({ properties: { name: { type: "string" } } });
    expect(at(4)).toEqual({ type: "object", description: "Reference to #/components/schemas/L4, nested 4 references deep; not expanded further." });
    expect(warnings).toContain("GET /l: schemas nested more than 4 references deep are not expanded.");
  });

  it("adds undeclared path parameters and treats path parameters as required", async () => {
    const doc = {
      openapi: "3.0.3",
      info: { title: "x", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/a/{id}/b/{other}": {
          get: { operationId: "a", parameters: [{ name: "id", in: "path", schema: { type: "string", nullable: true } }], responses: {} },
        },
      },
    };
    const { tools, warnings } = await importOpenApi(doc);
    expect(tools[0]?.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: ["string", "null"] } },
      { name: "other", in: "path", required: true, schema: { type: "string" } },
    ]);
    expect(warnings).toContain('GET /a/{id}/b/{other}: path parameter "other" is not declared; added as a required string.');
  });
});

describe("importOpenApi: Swagger 2.0", () => {
  it("is upgraded to OpenAPI 3.1 and imported, with a warning", async () => {
    const swagger = {
      swagger: "2.0",
      info: { title: "old", version: "1" },
      host: "legacy.example.com",
      basePath: "/api",
      schemes: ["https"],
      securityDefinitions: { key: { type: "apiKey", in: "header", name: "X-Key" } },
      security: [{ key: [] }],
      paths: {
        "/items/{id}": {
          get: {
            operationId: "getItem",
            parameters: [{ name: "id", in: "path", required: true, type: "integer" }],
            responses: { "200": { description: "ok", schema: { type: "object", properties: { id: { type: "integer" } } } } },
          },
        },
      },
    };
    const { tools, warnings } = await importOpenApi(swagger);
    expect(warnings[0]).toMatch(/Swagger 2\.0/);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: "getItem",
      serverUrl: "https://legacy.example.com/api",
      operation: "GET /items/{id}",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
      responseSchema: { type: "object", properties: { id: { type: "integer" } } },
      auth: { scheme: "apiKey", in: "header", name: "X-Key" },
    });
  });
});

describe("importOpenApi: clear errors", () => {
  const minimal = (extra: Record<string, unknown>) => ({ openapi: "3.0.0", info: { title: "t", version: "1" }, ...extra });
  const onePath = { "/x": { get: { operationId: "x", responses: { "200": { description: "ok" } } } } };

  it("rejects text that is neither JSON nor YAML", async () => {
    await expectImportError("{ broken: [1, 2", "unparseable", /neither valid JSON nor valid YAML/);
    await expectImportError("<html><body>Not found</body></html>", "unparseable", /not a JSON or YAML object \(it reads as a string\)/);
    await expectImportError("   ", "unparseable", /empty/);
  });

  it("rejects JSON that is not an OpenAPI 3.x document", async () => {
    await expectImportError('{"hello": "world"}', "not_openapi", /no `openapi` version field/);
    await expectImportError(minimal({ openapi: "4.0.0", paths: onePath }), "not_openapi", /version "4\.0\.0" is not supported/);
    await expectImportError({ swagger: "1.2", paths: onePath }, "not_openapi", /Swagger 1\.2 is not supported/);
  });

  it("rejects a document without operations", async () => {
    await expectImportError(minimal({ paths: {} }), "no_operations", /no operations/);
    await expectImportError(minimal({}), "no_operations", /no operations/);
    await expectImportError(minimal({ paths: { "/x": { summary: "nothing here" } } }), "no_operations", /no operations/);
  });

  it("needs serverUrl when the document's server is relative or missing", async () => {
    await expectImportError(minimal({ servers: [{ url: "/api/v3" }], paths: onePath }), "no_server_url", /"\/api\/v3" is not an absolute/);
    await expectImportError(minimal({ paths: onePath }), "no_server_url", /declares no server URL; pass serverUrl/);
    const { tools } = await importOpenApi(minimal({ servers: [{ url: "/api/v3" }], paths: onePath }), { serverUrl: "https://pets.example/api/v3" });
    expect(tools[0]?.serverUrl).toBe("https://pets.example/api/v3");
    await expectImportError(minimal({ paths: onePath }), "invalid_option", /must be an absolute http\(s\) URL/, "ftp://files.example");
  });

  it("resolves a relative server URL against the URL the document was fetched from, with a warning naming the base (was: rejected whole, no_server_url)", async () => {
    const rooted = minimal({ servers: [{ url: "/api/v3" }], paths: onePath });
    const fetched = await importOpenApi(rooted, { documentUrl: "https://specs.example.com/pets/openapi.json?ref=main" });
    expect(fetched.tools[0]?.serverUrl).toBe("https://specs.example.com/api/v3");
    expect(fetched.warnings).toContain(
      'The server URL "/api/v3" is relative; resolved against the document\'s URL to https://specs.example.com/api/v3 (pass serverUrl if the API is served elsewhere).',
    );
    // Relative to the document's folder, and to its scheme (Swagger 2.0 without host or schemes).
    const beside = await importOpenApi(minimal({ servers: [{ url: "v2/" }], paths: onePath }), { documentUrl: "http://specs.example.com/pets/openapi.json" });
    expect(beside.tools[0]?.serverUrl).toBe("http://specs.example.com/pets/v2");
    const swagger = { swagger: "2.0", info: { title: "t", version: "1" }, basePath: "/base", paths: onePath };
    expect((await importOpenApi(swagger, { documentUrl: "https://specs.example.com/swagger.json" })).tools[0]?.serverUrl).toBe(
      "https://specs.example.com/base",
    );
    // serverUrl still decides.
    const given = await importOpenApi(rooted, { documentUrl: "https://specs.example.com/openapi.json", serverUrl: "https://pets.example/v3" });
    expect(given.tools[0]?.serverUrl).toBe("https://pets.example/v3");
    // Posted, the document does not say where it is served: the problem says how to give it.
    await expectImportError(rooted, "no_server_url", /relative to where the document is served.*Import it by URL \(\{"format":"openapi","url":/);
  });

  it("names the reference it cannot resolve and where it is used, and imports the operation without it", async () => {
    const doc = minimal({
      servers: [{ url: "https://api.example.com" }],
      paths: { "/x": { get: { parameters: [{ $ref: "#/components/parameters/Missing" }], responses: {} } } },
    });
    const { tools, warnings } = await importOpenApi(doc);
    expect(tools.map((t) => t.operation)).toEqual(["GET /x"]);
    expect(tools[0]?.parameters).toEqual([]);
    expect(warnings).toContain(
      'Reference "#/components/parameters/Missing" cannot be resolved (nothing in the document has that pointer); left open where it is used: #/paths/~1x/get/parameters/0.',
    );
  });

  it("names the second operation of a repeated operationId apart, with a warning, and imports both", async () => {
    const doc = minimal({
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/a": { get: { operationId: "list", responses: {} } },
        "/b": { get: { operationId: "list", responses: {} } },
      },
    });
    const { tools, warnings } = await importOpenApi(doc);
    expect(tools.map((t) => [t.name, t.operation])).toEqual([
      ["list", "GET /a"],
      ["list_2", "GET /b"],
    ]);
    expect(warnings).toContain('GET /b: operationId "list" is also used by GET /a; named "list_2".');
  });
});
