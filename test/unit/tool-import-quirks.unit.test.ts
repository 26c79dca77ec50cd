import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";

/** Messy specs as they come from real generators and hand-written catalogues. */

function param(tools: ToolDefinition[], tool: string, name: string) {
  return tools.find((t) => t.name === tool)?.parameters.find((p) => p.name === name);
}

describe("required given as a string", () => {
  it("OpenAPI: 'true' and 'false' are read as the boolean, each with a warning naming the tool and parameter", async () => {
    const { tools, warnings } = await importOpenApi({
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/items": {
          get: {
            operationId: "listItems",
            parameters: [
              { name: "category", in: "query", required: "true", schema: { type: "string" } },
              { name: "page", in: "query", required: "false", schema: { type: "integer" } },
            ],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    expect(param(tools, "listItems", "category")?.required).toBe(true);
    expect(param(tools, "listItems", "page")?.required).toBe(false);
    expect(warnings).toContain('GET /items: parameter category: required is the string "true", not a boolean; read as true.');
    expect(warnings).toContain('GET /items: parameter page: required is the string "false", not a boolean; read as false.');
  });

  it("bare list: the same strings are read, with warnings, and the list imports", () => {
    const { tools, warnings } = importToolList([
      {
        name: "getThing",
        method: "GET",
        url: "https://api.example.com/things",
        parameters: [
          { name: "q", in: "query", required: "true" },
          { name: "limit", in: "query", required: "FALSE" },
        ],
      },
    ]);
    expect(param(tools, "getThing", "q")?.required).toBe(true);
    expect(param(tools, "getThing", "limit")?.required).toBe(false);
    expect(warnings.filter((w) => w.includes("required is the string"))).toHaveLength(2);
    expect(warnings.every((w) => w.startsWith("item 0 (getThing)"))).toBe(true);
  });
});

describe("Swagger 2 with missing operationIds", () => {
  it("converts, names operations from method and path, and keeps body and form fields as body parameters", async () => {
    const { tools, warnings } = await importOpenApi({
      swagger: "2.0",
      info: { title: "Pets", version: "1" },
      host: "pets.example.com",
      basePath: "/v1",
      schemes: ["https"],
      paths: {
        "/pets/{petId}": {
          get: {
            parameters: [{ name: "petId", in: "path", required: true, type: "integer" }],
            responses: { "200": { description: "ok", schema: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } } } },
          },
        },
        "/pets": {
          post: {
            consumes: ["application/json"],
            parameters: [
              {
                name: "pet",
                in: "body",
                required: true,
                schema: { type: "object", required: ["name"], properties: { name: { type: "string" }, tag: { type: "string" } } },
              },
            ],
            responses: { "201": { description: "created" } },
          },
        },
      },
    });
    expect(warnings).toContain("Swagger 2.0 document: converted to OpenAPI 3.1 before import.");
    expect(tools.map((t) => t.name).sort()).toEqual(["getPetsByPetId", "postPets"]);
    const get = tools.find((t) => t.name === "getPetsByPetId");
    expect(get?.serverUrl).toBe("https://pets.example.com/v1");
    expect(get?.responseSchema).toMatchObject({ properties: { id: { type: "integer" } } });
    expect(tools.find((t) => t.name === "postPets")?.parameters).toEqual([
      expect.objectContaining({ name: "name", in: "body", required: true }),
      expect.objectContaining({ name: "tag", in: "body", required: false }),
    ]);
  });
});

describe("request bodies in bare lists", () => {
  it("turns an OpenAPI-style requestBody into body parameters (property-level required flags too)", () => {
    const { tools, warnings } = importToolList([
      {
        name: "createNote",
        method: "POST",
        url: "https://notes.example.com/notes",
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["title"],
                properties: { title: { type: "string" }, body: { type: "string" }, pinned: { type: "boolean", required: "true" } },
              },
            },
          },
        },
      },
    ]);
    const create = tools[0];
    expect(create?.bodyContentType).toBe("application/json");
    expect(create?.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ["title", "body", true],
      ["body", "body", false],
      ["pinned", "body", true],
    ]);
    expect(warnings).toContain(
      'item 0 (createNote): request body: schema keyword "required" of property pinned is "true", not a list of names; read as a required property.',
    );
    expect(warnings.some((w) => w.includes("requestBody") && w.includes("not part of the tool list format"))).toBe(false);
  });

  it("keeps a body whose property is named like a query parameter as one body parameter, and says so", () => {
    const { tools, warnings } = importToolList([
      {
        name: "updateItem",
        method: "PUT",
        url: "https://api.example.com/items",
        parameters: [{ name: "id", in: "query", required: true }],
        requestBody: { content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" }, label: { type: "string" } } } } } },
      },
    ]);
    expect(tools[0]?.parameters.map((p) => [p.name, p.in])).toEqual([
      ["id", "query"],
      ["body", "body"],
    ]);
    expect(warnings).toContain('item 0 (updateItem): body property "id" has the same name as another parameter; the body is one parameter instead.');
  });

  it("OpenAPI: the same clash gets the same treatment", async () => {
    const { tools, warnings } = await importOpenApi({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/items": {
          put: {
            operationId: "updateItem",
            parameters: [{ name: "id", in: "query", required: true, schema: { type: "string" } }],
            requestBody: { content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" }, label: { type: "string" } } } } } },
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    expect(tools[0]?.parameters.map((p) => [p.name, p.in])).toEqual([
      ["id", "query"],
      ["body", "body"],
    ]);
    expect(warnings).toContain('PUT /items: body property "id" has the same name as another parameter; the body is one parameter instead.');
  });

  it("reports a requestBody it cannot read instead of dropping it silently; null means no body", () => {
    const { tools, warnings } = importToolList([
      { name: "a", method: "POST", url: "https://api.example.com/a", requestBody: { schema: { type: "object" } } },
      { name: "b", method: "POST", url: "https://api.example.com/b", requestBody: null },
    ]);
    expect(tools.map((t) => t.parameters.length)).toEqual([0, 0]);
    expect(warnings).toEqual([
      'item 0 (a): requestBody has no `content` map of media types (OpenAPI style); ignored. List body fields as parameters with in: "body".',
    ]);
  });
});

describe("one bad tool never rejects a whole list", () => {
  it("imports the good items and names each skipped one with what is wrong", () => {
    const { tools, warnings } = importToolList([
      { name: "good", method: "GET", url: "https://api.example.com/good" },
      { name: "noUrl", method: "GET" },
      { name: "alsoGood", method: "GET", url: "https://api.example.com/also" },
    ]);
    expect(tools.map((t) => t.name)).toEqual(["good", "alsoGood"]);
    expect(warnings).toEqual([expect.stringMatching(/^skipped item 1 \(noUrl\): url: required/)]);
  });

  it("OpenAPI: an operation that cannot be imported is skipped with a warning, the rest import", async () => {
    const { tools, warnings } = await importOpenApi({
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/ok": { get: { operationId: "ok", responses: { "200": { description: "ok" } } } },
        "/trace": { trace: { operationId: "traceIt", responses: { "200": { description: "ok" } } } },
      },
    });
    expect(tools.map((t) => t.name)).toEqual(["ok"]);
    expect(warnings).toContain("TRACE /trace: TRACE operations are not supported; skipped.");
  });
});
