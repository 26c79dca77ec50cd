import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";
import { routingPrepared as prepared, tenantObject } from "../helpers/tenant-object";

/**
 * Routing's derived state is made once per catalog change by the tenant object's alarm, not by
 * the first request after it (loaded-routing.ts `prepare`); and a tenant of big definitions routes
 * without parsing and keeping every one of them (lazy-definitions.ts).
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

async function laterStep(key: string, task: string, previousTool: string, k = 20): Promise<{ name: string; why?: { dataFlow?: unknown } }[]> {
  const res = await service.json<{ candidates: { name: string; why?: { dataFlow?: unknown } }[] }>("POST", "/v1/route", {
    key,
    body: { task, previousTool, k },
  });
  expect(res.status).toBe(200);
  return res.body.candidates;
}

describe("routing prepared at import", () => {
  it("stores the index and the data-flow table after an import, so the first later step after an eviction reads them", async () => {
    const tenant = await createTenant(service, "prepared-co");
    const object = await tenantObject(service, tenant.id);
    const imported = await service.json("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` },
    });
    expect(imported.status).toBe(200);
    await prepared(object);
    expect(await object.store("routing").preparations()).toBe(1);

    await object.simulateEviction();
    const candidates = await laterStep(tenant.key, "Which awards has Sofia Coppola won?", "getSearchPerson");
    expect(candidates.find((c) => c.name === "getPersonPersonIdMovieCredits")?.why?.dataFlow).toEqual({
      from: "getSearchPerson",
      field: "results[].id",
      parameter: "person_id",
    });
    // Read back, not computed by this request; the index too.
    expect(await object.routingLoadReport()).toEqual({ index: "stored", graph: "stored", dataFlow: "stored" });

    // Another change: prepared again, once.
    const awards = { name: "getPersonAwards", method: "GET", url: `${WORLD_ORIGIN}/tmdb/person/{person_id}/awards`, description: "Awards a person won." };
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: [awards] } })).status).toBe(200);
    await prepared(object);
    await object.simulateEviction();
    const after = await laterStep(tenant.key, "Which awards has Sofia Coppola won?", "getSearchPerson");
    expect(after.find((c) => c.name === "getPersonAwards")?.why?.dataFlow).toEqual({ from: "getSearchPerson", field: "results[].id", parameter: "person_id" });
    // The index too, whole: the added tool is not re-added (with its API's other operations) by every cold load.
    expect(await object.routingLoadReport()).toEqual({ index: "stored", graph: "stored", dataFlow: "stored" });
  }, 120_000);

  it("routes a tenant of big definitions keeping only some of them parsed, before and after a change", async () => {
    const tenant = await createTenant(service, "big-defs-co");
    const object = await tenantObject(service, tenant.id);
    const TOOLS = 240;
    // ≈ 19 KB of JSON each, ≈ 4.6 MB in all: more than LazyDefinitions keeps (2 MB of JSON).
    const filler = "Lists the records of this collection with their identifiers and owners. ".repeat(250);
    const tools = Array.from({ length: TOOLS }, (_, i) => ({
      name: `listCollection${i}`,
      method: "GET",
      url: `https://api${i % 60}.example.com/collections/c${i}`,
      description: `Collection number ${i} of the archive. ${filler}`.slice(0, 19_000),
    }));
    for (let at = 0; at < TOOLS; at += 80) {
      const res = await service.json("POST", "/v1/tools/import", {
        key: tenant.key,
        body: { format: "list", source: `part-${at}`, tools: tools.slice(at, at + 80) },
      });
      expect(res.status).toBe(200);
    }
    await prepared(object);
    await object.simulateEviction();
    const first = await service.json<{ candidates: { name: string }[] }>("POST", "/v1/route", {
      key: tenant.key,
      body: { task: "collection number 17 of the archive", k: 5 },
    });
    expect(first.status).toBe(200);
    expect(first.body.candidates.map((c) => c.name)).toContain("listCollection17");
    const later = await laterStep(tenant.key, "collection number 17 of the archive", "listCollection3", 5);
    // A changed catalog after the eviction: the request computes the data-flow table itself (all definitions streamed, not kept).
    const more = {
      name: "listCollectionExtra",
      method: "GET",
      url: "https://api1.example.com/collections/extra",
      description: `Extra. ${filler}`.slice(0, 19_000),
    };
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "extra", tools: [more] } })).status).toBe(200);
    expect((await laterStep(tenant.key, "collection number 17 of the archive", "listCollection3", 5)).length).toBe(later.length);
    const parts = await object.routingLoadedParts();
    expect(parts.loaded).toBe(true);
    expect(parts.definitions).toBeGreaterThan(0);
    expect(parts.definitions).toBeLessThan(TOOLS / 2);
  }, 180_000);

  it("serves a catalog past the data-flow table's bounds per request after an eviction without parsing every definition again", async () => {
    const tenant = await createTenant(service, "past-bounds-co");
    const object = await tenantObject(service, tenant.id);
    // Every operation returns a record created by a user, and takes a user's id: ≈ 57,000 links, more than the table holds.
    const OPERATIONS = 240;
    const record = {
      type: "object",
      properties: { id: { type: "string" }, createdBy: { type: "object", properties: { user: { type: "object", properties: { id: { type: "string" } } } } } },
    };
    const listed = {
      200: { description: "ok", content: { "application/json": { schema: { type: "object", properties: { value: { type: "array", items: record } } } } } },
    };
    const userId = { name: "user_id", in: "path", required: true, schema: { type: "string" } };
    const paths: Record<string, unknown> = { "/users": { get: { operationId: "listUsers", summary: "List users", responses: listed } } };
    for (let i = 0; i < OPERATIONS; i += 1) {
      paths[`/users/{user_id}/things${i}`] = {
        get: { operationId: `listUserThings${i}`, summary: `List a user's things of kind ${i}`, parameters: [userId], responses: listed },
      };
    }
    const document = { openapi: "3.0.3", info: { title: "Things", version: "1" }, paths };
    // A small API beside it, whose operations are each other's siblings (read from the stored state after the eviction).
    const weather = ["forecast", "alerts", "radar"].map((what) => ({
      name: `weather_${what}`,
      method: "GET",
      url: `https://weather.example.com/${what}`,
      description: `Weather ${what} for a city.`,
    }));
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "weather", tools: weather } })).status).toBe(200);
    const imported = await service.json("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "openapi", document, serverUrl: "https://things.example.com" },
    });
    expect(imported.status).toBe(200);
    await prepared(object);
    expect((await object.routingLoadReport()).dataFlow).toBe("per request");
    const route = async () =>
      (
        await service.json<{ candidates: { name: string; why?: unknown }[] }>("POST", "/v1/route", {
          key: tenant.key,
          body: { task: "list a user's things of kind 17", k: 5 },
        })
      ).body.candidates;
    const weatherTask = async () =>
      (
        await service.json<{ candidates: { name: string; why?: unknown }[] }>("POST", "/v1/route", {
          key: tenant.key,
          body: { task: "weather forecast for Lisbon", k: 3 },
        })
      ).body.candidates;
    const before = await route();
    const weatherBefore = await weatherTask();
    expect(weatherBefore.map((c) => c.name).sort()).toEqual(["weather_alerts", "weather_forecast", "weather_radar"]);
    expect(before.map((c) => c.name)).toContain("listUserThings17");

    await object.simulateEviction();
    expect(await route()).toEqual(before);
    expect(await weatherTask()).toEqual(weatherBefore);
    expect((await object.routingLoadReport()).dataFlow).toBe("per request");
    // The offered samples were stored with the preparation: only the tools an answer shows are parsed.
    expect(await object.store("routing").definitionParses()).toBeLessThan(OPERATIONS / 4);
  }, 180_000);
});
