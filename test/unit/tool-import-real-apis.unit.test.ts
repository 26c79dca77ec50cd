import { describe, expect, it } from "vitest";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { exportTools } from "../../functions/toolnet/tool-export";
import { schemaProblem } from "../helpers/json-schema-validity";

/**
 * What real APIs of the APIs.guru directory met in the importer, each reduced to a small fixture:
 * a bad reference rejected the whole document, OAuth 2 APIs came without auth, numeric keywords
 * written as strings reached exported schemas, and a list's repeated name was skipped.
 */

const pet = { type: "object", properties: { name: { type: "string" } } };

function document(extra: Record<string, unknown>): Record<string, unknown> {
  return { openapi: "3.0.3", info: { title: "t", version: "1" }, servers: [{ url: "https://api.example.com" }], ...extra };
}

describe("a bad reference costs only what uses it", () => {
  it("ignores a vendor extension whose reference points at a file beside the document", async () => {
    // The music API's only external $ref: components["x-…-policy"], which no operation needs.
    const doc = document({
      paths: {
        "/tracks": {
          get: {
            operationId: "listTracks",
            responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
          },
        },
      },
      components: { schemas: { Pet: pet }, "x-rate-policy": { $ref: "./policy.yaml" } },
    });
    const { tools, warnings } = await importOpenApi(doc);
    expect(tools.map((t) => t.name)).toEqual(["listTracks"]);
    expect(tools[0]?.responseSchema).toEqual(pet);
    expect(warnings).toEqual([]);
  });

  it("leaves open the schema an external reference names, imports every operation, and names the pointer and its use", async () => {
    // Kubernetes-style: one schema refers to a file that is not there; 2 other operations are fine.
    const doc = document({
      paths: {
        "/a": {
          get: {
            operationId: "getA",
            responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } } } },
          },
        },
        "/b": {
          get: {
            operationId: "getB",
            responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
          },
        },
        "/c": {
          post: { operationId: "postC", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Gone" } } } }, responses: {} },
        },
      },
      components: {
        schemas: { Pet: pet, A: { type: "object", properties: { meta: { $ref: "other.json#/Meta" }, name: { type: "string" } } } },
      },
    });
    const { tools, warnings } = await importOpenApi(doc);
    expect(tools.map((t) => t.name)).toEqual(["getA", "getB", "postC"]);
    const a = tools[0]?.responseSchema as { properties: Record<string, unknown> };
    expect(a.properties.name).toEqual({ type: "string" });
    expect(a.properties.meta).toEqual({ description: "Unresolvable reference other.json#/Meta; left open." });
    expect(tools[1]?.responseSchema).toEqual(pet);
    expect(warnings).toContain(
      'Reference "other.json#/Meta" cannot be resolved (references to other files or URLs are not followed); left open where it is used: #/components/schemas/A/properties/meta.',
    );
    expect(warnings).toContain(
      'Reference "#/components/schemas/Gone" cannot be resolved (nothing in the document has that pointer); left open where it is used: #/paths/~1c/post/requestBody/content/application~1json/schema.',
    );
  });

  it("reads a schema property named $ref as a property, not as a reference (was: Can't resolve reference: [object Object])", async () => {
    const doc = document({
      paths: {
        "/s": {
          get: {
            operationId: "getS",
            responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/S" } } } } },
          },
        },
      },
      components: { schemas: { S: { type: "object", properties: { $ref: { type: "string" }, id: { type: "integer" } } } } },
    });
    const { tools, warnings } = await importOpenApi(doc);
    expect(tools.map((t) => t.name)).toEqual(["getS"]);
    expect((tools[0]?.responseSchema as { properties: Record<string, unknown> } | undefined)?.properties.id).toEqual({ type: "integer" });
    expect(warnings.join("\n")).toMatch(/#\/components\/schemas\/S\/properties: "\$ref" is not a reference string/);
  });
});

describe("OAuth 2 and OpenID Connect", () => {
  it("keeps the operation's scopes and the client-credentials token URL on the tool", async () => {
    const doc = document({
      paths: {
        "/me": { get: { operationId: "me", security: [{ graph: ["User.Read"] }], responses: {} } },
        "/id": { get: { operationId: "identity", security: [{ oidc: ["openid", "profile"] }], responses: {} } },
      },
      components: {
        securitySchemes: {
          graph: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://login.example.com/token", scopes: { "User.Read": "" } } } },
          oidc: { type: "openIdConnect", openIdConnectUrl: "https://login.example.com/.well-known/openid-configuration" },
        },
      },
    });
    const { tools, warnings } = await importOpenApi(doc);
    expect(tools[0]?.auth).toEqual({ scheme: "oauth2", in: "header", scopes: ["User.Read"], tokenUrl: "https://login.example.com/token" });
    expect(tools[1]?.auth).toEqual({ scheme: "oauth2", in: "header", scopes: ["openid", "profile"] });
    expect(warnings).toEqual([]);
  });

  it("reads Swagger 2.0 oauth2 `application` flows as client credentials", async () => {
    const doc = {
      swagger: "2.0",
      info: { title: "t", version: "1" },
      host: "api.example.com",
      schemes: ["https"],
      securityDefinitions: { app: { type: "oauth2", flow: "application", tokenUrl: "https://auth.example.com/token", scopes: { read: "" } } },
      security: [{ app: ["read"] }],
      paths: { "/x": { get: { operationId: "getX", responses: { "200": { description: "ok" } } } } },
    };
    const { tools } = await importOpenApi(doc);
    expect(tools[0]?.auth).toEqual({ scheme: "oauth2", in: "header", scopes: ["read"], tokenUrl: "https://auth.example.com/token" });
  });
});

describe("exported schemas are valid JSON Schema 2020-12", () => {
  it("reads numeric keywords written as strings as numbers, drops what has no number, with warnings", async () => {
    const doc = document({
      paths: {
        "/items": {
          get: {
            operationId: "listItems",
            parameters: [
              { name: "limit", in: "query", schema: { type: "integer", maximum: "50", minimum: "1", default: "20" } },
              { name: "category", in: "query", schema: { type: "integer", default: "1003464" } },
              { name: "code", in: "query", schema: { type: "string", maxLength: "ten", pattern: "[\\w-" } },
              { name: "upload", in: "query", schema: { type: "file" } },
            ],
            responses: {},
          },
        },
      },
    });
    const { tools, warnings } = await importOpenApi(doc);
    const schemas = Object.fromEntries((tools[0]?.parameters ?? []).map((p) => [p.name, p.schema]));
    expect(schemas.limit).toEqual({ type: "integer", maximum: 50, minimum: 1, default: 20 });
    expect(schemas.category).toEqual({ type: "integer", default: 1003464 });
    expect(schemas.code).toEqual({ type: "string" });
    expect(schemas.upload).toEqual({});
    expect(warnings).toContain('GET /items: parameter limit: schema keyword "maximum" is the string "50"; read as the number 50.');
    expect(warnings).toContain('GET /items: parameter category: schema keyword "default" is the string "1003464"; read as the number 1003464.');
    expect(warnings).toContain('GET /items: parameter code: schema keyword "maxLength" is "ten", not a whole number ≥ 0; dropped.');
    expect(warnings.some((w) => w.includes('"pattern"') && w.includes("dropped"))).toBe(true);
    for (const tool of exportTools(tools, "openai").tools) {
      expect(schemaProblem("function" in tool ? tool.function.parameters : undefined)).toBeUndefined();
    }
  });

  it("lists a name once in `required` when two parameters share it (medium.com: a query string in the path and a query parameter)", async () => {
    const { tools } = await importOpenApi(
      document({
        paths: {
          "/search/articles?query={query}": {
            get: {
              operationId: "searchArticles",
              parameters: [{ name: "query", in: "query", required: true, description: "Search query", schema: { type: "string", example: "startup" } }],
              responses: { "200": { description: "ok" } },
            },
          },
        },
      }),
    );
    expect(tools[0]?.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(["query:query", "path:query"]);
    const [tool] = exportTools(tools, "openai").tools;
    const parameters = tool !== undefined && "function" in tool ? tool.function.parameters : undefined;
    expect(schemaProblem(parameters)).toBeUndefined();
    expect(parameters).toMatchObject({ required: ["query"], properties: { query: { type: "string", description: "Search query" } } });
  });

  it("repairs the same keywords in a bare list", () => {
    const { tools, warnings } = importToolList([
      { name: "search", method: "GET", url: "https://api.example.com/search", parameters: [{ name: "n", type: "integer", schema: { maximum: "10" } }] },
    ]);
    expect(tools[0]?.parameters[0]?.schema).toEqual({ type: "integer", maximum: 10 });
    expect(warnings.join("\n")).toMatch(/"maximum" is the string "10"; read as the number 10/);
  });
});

describe("server URLs", () => {
  it("reads a scheme-relative server URL (`//host`, as converted Swagger 2.0 documents give) as https, with a warning (was: rejected whole, no_server_url)", async () => {
    const { tools, warnings } = await importOpenApi({
      openapi: "3.0.0",
      info: { title: "t", version: "1" },
      servers: [{ url: "//api.ote-godaddy.com" }],
      paths: { "/v1/countries": { get: { operationId: "listCountries", responses: { "200": { description: "ok" } } } } },
    });
    expect(tools.map((t) => [t.name, t.serverUrl])).toEqual([["listCountries", "https://api.ote-godaddy.com"]]);
    expect(warnings).toContain('The server URL "//api.ote-godaddy.com" has no scheme; https is assumed (pass serverUrl if the API is served otherwise).');
  });
});

describe("duplicate names in a list", () => {
  it("renames the second tool of a name like the other importers, with a warning", () => {
    const { tools, warnings } = importToolList([
      { name: "search", method: "GET", url: "https://api.example.com/search" },
      { name: "search", method: "GET", url: "https://api.example.com/v2/search" },
      { name: "search_2", method: "GET", url: "https://api.example.com/v3/search" },
    ]);
    expect(tools.map((t) => [t.name, t.path])).toEqual([
      ["search", "/search"],
      ["search_3", "/v2/search"],
      ["search_2", "/v3/search"],
    ]);
    expect(warnings).toContain('item 1 (search): the name "search" is also used by item 0; named "search_3".');
  });
});

describe("a schema cut short at the node limit stays valid", () => {
  it("keeps whole the type lists of the nodes where the cut falls (Microsoft Graph: `type: []`)", async () => {
    // Far more than a tool's 5,000 copied nodes: each property is an object and its nullable type a list.
    const fields = (group: number) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field${group}_${i}`, { type: "string", nullable: true }]));
    const groups = Object.fromEntries(Array.from({ length: 60 }, (_, group) => [`group${group}`, { type: "object", properties: fields(group) }]));
    // 0 or 1 single-node property first, so the cut falls on a property's object in one and on its type list in the other.
    for (const lead of [0, 1]) {
      const leading = Object.fromEntries(Array.from({ length: lead }, (_, i) => [`lead${i}`, { type: "string" }]));
      const schema = { type: "object", properties: { thing: { type: "object", properties: { ...leading, ...groups } } } };
      const doc = document({
        paths: {
          "/things": {
            post: {
              operationId: "createThing",
              requestBody: { content: { "application/json": { schema } } },
              responses: { "200": { description: "ok" } },
            },
          },
        },
      });
      const { tools, warnings } = await importOpenApi(doc);
      expect(warnings.some((w) => w.includes("cut short"))).toBe(true);
      for (const tool of exportTools(tools, "openai").tools) {
        expect(schemaProblem("function" in tool ? tool.function.parameters : undefined)).toBeUndefined();
      }
      expect(JSON.stringify(tools)).not.toContain('"type":[]');
    }
  });

  it("drops a type list a document writes empty (any type), with a warning", async () => {
    const schema = { type: "object", properties: { note: { type: [], description: "free text" } } };
    const doc = document({
      paths: {
        "/notes": {
          post: { operationId: "addNote", requestBody: { content: { "application/json": { schema } } }, responses: { "200": { description: "ok" } } },
        },
      },
    });
    const { tools, warnings } = await importOpenApi(doc);
    expect(warnings.some((w) => w.includes("type") && w.includes("not a JSON Schema type"))).toBe(true);
    for (const tool of exportTools(tools, "openai").tools) expect(schemaProblem("function" in tool ? tool.function.parameters : undefined)).toBeUndefined();
  });
});
