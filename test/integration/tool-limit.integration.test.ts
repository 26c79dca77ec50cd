import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, type TestService } from "../helpers/service";

/** A tenant holds at most MAX_TOOLS_PER_TENANT tools (functions/tools/tool-limit.ts); 5 here. */

let service: TestService;
beforeAll(async () => {
  service = await startService({ bindings: { MAX_TOOLS_PER_TENANT: "5" } });
});
afterAll(async () => service.dispose());

const tool = (name: string) => ({ name, method: "GET", url: `https://api.example.com/${name}` });

describe("tool limit per tenant", () => {
  it("refuses an import that would pass the limit, whole, with a problem naming it; re-imports and imports up to it pass", async () => {
    const tenant = await createTenant(service, "limit-co");
    const first = await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: ["a", "b", "c", "d"].map(tool) } });
    expect(first.status).toBe(200);

    const over = await service.json<{ status: number; detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "list", tools: ["d", "e", "f"].map(tool) },
    });
    expect(over.status).toBe(422);
    expect(over.headers.get("content-type")).toContain("application/problem+json");
    expect(over.body.detail).toContain("6 tools");
    expect(over.body.detail).toContain("at most 5");
    const listed = await service.json<{ tools: { name: string }[] }>("GET", "/v1/tools", { key: tenant.key });
    expect(listed.body.tools.map((t) => t.name).sort()).toEqual(["a", "b", "c", "d"]);

    const upTo = await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: ["a", "b", "c", "d", "e"].map(tool) } });
    expect(upTo.status).toBe(200);
    const oneMore = await service.json<{ detail: string }>("PUT", "/v1/tools/f", {
      key: tenant.key,
      body: { name: "f", method: "GET", serverUrl: "https://api.example.com", path: "/f", operation: "GET /f", description: "", parameters: [], tags: [] },
    });
    expect(oneMore.status).toBe(422);
    expect(oneMore.body.detail).toContain("at most 5");
  });

  it("holds under concurrent imports: the object counts again inside the import's transaction", async () => {
    const tenant = await createTenant(service, "race-co");
    // Each import alone fits (2 of 5); together they would leave 10.
    const imports = await Promise.all(
      ["p", "q", "r", "s", "t"].map((prefix) =>
        service.json<{ detail?: string }>("POST", "/v1/tools/import", {
          key: tenant.key,
          body: { format: "list", source: prefix, tools: [`${prefix}1`, `${prefix}2`].map(tool) },
        }),
      ),
    );
    const statuses = imports.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 422, 422, 422]);
    for (const refused of imports.filter((r) => r.status === 422)) expect(refused.body.detail).toContain("at most 5");
    const listed = await service.json<{ tools: { name: string }[] }>("GET", "/v1/tools", { key: tenant.key });
    expect(listed.body.tools).toHaveLength(4);
  });
});
