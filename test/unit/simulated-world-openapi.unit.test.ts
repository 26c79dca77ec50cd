import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { mountOpenApi, SimulatedWorld } from "../../functions/simulated-world/index";

// A tiny document whose operations have schemas but no examples, so the world must generate.
const petSchemas = {
  Pet: {
    type: "object",
    required: ["id", "name", "kind", "tags", "owner"],
    properties: {
      id: { type: "integer", minimum: 1000, maximum: 9999 },
      name: { type: "string", minLength: 2, maxLength: 40 },
      kind: { type: "string", enum: ["cat", "dog"] },
      born: { type: "string", format: "date" },
      tags: { type: "array", minItems: 1, items: { type: "string" } },
      owner: { $ref: "#/components/schemas/Owner" },
    },
  },
  Owner: {
    type: "object",
    required: ["owner_id", "email"],
    properties: { owner_id: { type: "string", maxLength: 8 }, email: { type: "string", format: "email" } },
  },
  PetList: {
    type: "object",
    required: ["results"],
    properties: { results: { type: "array", minItems: 2, items: { $ref: "#/components/schemas/Pet" } } },
  },
};

function json(schemaRef: string): Record<string, unknown> {
  return { description: "ok", content: { "application/json": { schema: { $ref: schemaRef } } } };
}

const petDocument = {
  openapi: "3.1.0",
  info: { title: "Pets", version: "1" },
  servers: [{ url: "https://pets.example/v2" }],
  paths: {
    "/pets": {
      get: {
        operationId: "listPets",
        parameters: [
          { name: "species", in: "query", required: true, schema: { type: "string", enum: ["cat", "dog"] } },
          { name: "limit", in: "query", schema: { type: "integer" } },
        ],
        responses: { "200": json("#/components/schemas/PetList") },
      },
      post: { operationId: "addPet", responses: { "201": json("#/components/schemas/Pet") } },
    },
    "/pets/{petId}": {
      parameters: [{ $ref: "#/components/parameters/PetId" }],
      get: { operationId: "getPet", responses: { "200": json("#/components/schemas/Pet") } },
      delete: { operationId: "deletePet", responses: { "204": { description: "gone" } } },
    },
    "/pets/{petId}/photos/{index}.json": {
      get: {
        operationId: "getPhoto",
        parameters: [
          { name: "petId", in: "path", required: true, schema: { type: "integer" } },
          { name: "index", in: "path", required: true, schema: { type: "integer" } },
        ],
        responses: { "200": { description: "ok", content: { "application/json": { example: { url: "p.jpg" } } } } },
      },
    },
    "/stats": { get: { operationId: "stats", responses: { "200": { description: "no body documented" } } } },
  },
  components: {
    schemas: petSchemas,
    parameters: { PetId: { name: "petId", in: "path", required: true, schema: { type: "integer" } } },
  },
};

function petWorld(): SimulatedWorld {
  return new SimulatedWorld([mountOpenApi("/pets-api", petDocument)]);
}

async function call(world: SimulatedWorld, path: string, method = "GET"): Promise<{ status: number; body: unknown }> {
  const response = await world.handle(new Request(`http://world.test${path}`, { method }));
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

function validatorFor(name: keyof typeof petSchemas): Validator {
  return new Validator({ $ref: `#/components/schemas/${name}`, components: { schemas: petSchemas } }, "2020-12");
}

function petIds(body: unknown): number[] {
  return (body as { results: Array<{ id: number }> }).results.map((pet) => pet.id);
}

describe("simulated world: generated data for an OpenAPI document without examples", () => {
  it("generates bodies that conform to the response schema", async () => {
    const world = petWorld();
    const list = await call(world, "/pets-api/pets?species=cat");
    expect(list.status).toBe(200);
    const listCheck = validatorFor("PetList").validate(list.body);
    expect(listCheck.errors).toEqual([]);
    expect(listCheck.valid).toBe(true);

    const created = await call(world, "/pets-api/pets", "POST");
    expect(created.status).toBe(201);
    expect(validatorFor("Pet").validate(created.body).valid).toBe(true);
  });

  it("is deterministic per request and varies identifiers between requests", async () => {
    const a = await call(petWorld(), "/pets-api/pets?species=cat&limit=2");
    const b = await call(petWorld(), "/pets-api/pets?limit=2&species=cat"); // same request, other order
    const c = await call(petWorld(), "/pets-api/pets?species=dog");
    expect(b.body).toEqual(a.body);
    expect(petIds(c.body)).not.toEqual(petIds(a.body));
    const ids = petIds(a.body);
    expect(new Set(ids).size).toBe(ids.length); // distinct items get distinct ids
    for (const id of ids) expect(id).toBeGreaterThanOrEqual(1000);
  });

  it("hands out generated ids, then serves their details with the id echoed", async () => {
    const world = petWorld();
    expect((await call(world, "/pets-api/pets/1234")).status).toBe(404);
    const ids = petIds((await call(world, "/pets-api/pets?species=dog")).body);
    const id = ids[0];
    expect(world.handedOut("/pets-api").has(String(id))).toBe(true);
    const pet = await call(world, `/pets-api/pets/${String(id)}`);
    expect(pet.status).toBe(200);
    expect((pet.body as { id: number }).id).toBe(id);
    expect(validatorFor("Pet").validate(pet.body).valid).toBe(true);
    // Nested identifiers (owner_id) are handed out too.
    const ownerId = (pet.body as { owner: { owner_id: string } }).owner.owner_id;
    expect(world.handedOut("/pets-api").has(ownerId)).toBe(true);
  });

  it("checks parameters: required and enum query values, typed non-identifier path values", async () => {
    const world = petWorld();
    const missing = await call(world, "/pets-api/pets");
    expect(missing.status).toBe(400);
    expect((missing.body as { errors: string[] }).errors).toEqual(["species must be provided (required query parameter)."]);
    const wrong = await call(world, "/pets-api/pets?species=bird");
    expect(wrong.status).toBe(400);
    expect((wrong.body as { status_message: string }).status_message).toContain("species must be one of cat, dog");

    const id = petIds((await call(world, "/pets-api/pets?species=cat")).body)[0];
    expect((await call(world, `/pets-api/pets/${String(id)}/photos/3.json`)).status).toBe(200);
    const badIndex = await call(world, `/pets-api/pets/${String(id)}/photos/third.json`);
    expect(badIndex.status).toBe(400);
    expect((badIndex.body as { status_message: string }).status_message).toContain("path parameter index");
    expect((await call(world, "/pets-api/pets/77/photos/3.json")).status).toBe(404);
  });

  it("answers 204 without a body, 405 for undocumented methods, 200 for a success documented without content", async () => {
    const world = petWorld();
    const id = petIds((await call(world, "/pets-api/pets?species=cat")).body)[0];
    const deleted = await world.handle(new Request(`http://w/pets-api/pets/${String(id)}`, { method: "DELETE" }));
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    const put = await world.handle(new Request(`http://w/pets-api/pets/${String(id)}`, { method: "PUT" }));
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("DELETE, GET");
    // Documented as 200 with no content: an empty 200, not 501 (issue 12, item 9).
    expect((await call(world, "/pets-api/stats")).status).toBe(200);
  });

  it("rejects documents that are not OpenAPI 3.x and bad prefixes", () => {
    expect(() => mountOpenApi("/x", { swagger: "2.0", paths: {} })).toThrow(/OpenAPI 3/);
    expect(() => mountOpenApi("x/", petDocument)).toThrow(/prefix/);
    expect(() => mountOpenApi("/__world", petDocument)).toThrow(/reserved/);
    expect(() => new SimulatedWorld([mountOpenApi("/a", petDocument), mountOpenApi("/a", petDocument)])).toThrow(/share/);
  });
});
