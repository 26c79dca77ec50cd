import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Two sources naming a tool alike: an import never replaces or renames another source's tool.
 * The tool already there keeps its name; the new one gets a name of its own, the same on every
 * import, with a warning.
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;

/** Another API with an operation named like TMDB's movie search. */
const otherApi = {
  openapi: "3.0.3",
  info: { title: "Other API", version: "1" },
  servers: [{ url: "https://other.example.com" }],
  paths: {
    "/search": {
      get: {
        operationId: "getSearchMovie",
        summary: "Search the other API's films",
        parameters: [{ name: "q", in: "query", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "Films" } },
      },
    },
  },
};

interface ImportReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
  warnings: string[];
}
interface ToolRecord {
  name: string;
  source: string;
  hash: string;
  definition: { path: string; baseUrl?: string };
}

let service: TestService;
let tenant: { id: string; key: string };

beforeAll(async () => {
  service = await startService();
  tenant = await createTenant(service, "name-clash");
  const first = await service.json<ImportReport>("POST", "/v1/tools/import", {
    key: tenant.key,
    body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb`, source: "tmdb" },
  });
  expect(first.status).toBe(200);
});
afterAll(async () => service.dispose());

const importOther = () =>
  service.json<ImportReport>("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: otherApi, source: "other-api" } });
const readTool = (name: string) => service.json<ToolRecord>("GET", `/v1/tools/${name}`, { key: tenant.key });

describe("a name clash between sources", () => {
  it("keeps the TMDB tool and names the other API's tool after its source, with a warning", async () => {
    const before = await readTool("getSearchMovie");
    const imported = await importOther();
    expect(imported.status).toBe(200);
    expect(imported.body.updated).toEqual([]);
    expect(imported.body.created).toEqual(["getSearchMovie_otherApi"]);
    expect(imported.body.warnings.join("\n")).toMatch(/getSearchMovie.*"tmdb".*"getSearchMovie_otherApi"/);
    const after = await readTool("getSearchMovie");
    expect(after.body).toEqual(before.body);
    expect(after.body.source).toBe("tmdb");
    const other = await readTool("getSearchMovie_otherApi");
    expect(other.body).toMatchObject({ source: "other-api", definition: { path: "/search" } });
  });

  it("stays idempotent: importing either source again changes nothing", async () => {
    const other = await importOther();
    expect(other.body).toMatchObject({ created: [], updated: [], removed: [], unchanged: ["getSearchMovie_otherApi"] });
    const tmdbAgain = await service.json<ImportReport>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb`, source: "tmdb", prune: true },
    });
    expect(tmdbAgain.body).toMatchObject({ created: [], updated: [], removed: [] });
    expect(tmdbAgain.body.unchanged).toHaveLength(54);
    expect((await readTool("getSearchMovie_otherApi")).body.source).toBe("other-api");
  });

  it("names a clash inside one document too, with a warning", async () => {
    const twice = {
      ...otherApi,
      paths: { ...otherApi.paths, "/find": { get: { ...otherApi.paths["/search"].get, operationId: "getSearchMovie" } } },
    };
    const imported = await service.json<ImportReport>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "openapi", document: twice, source: "twice-api" },
    });
    expect(imported.status).toBe(200);
    expect(imported.body.updated).toEqual([]);
    expect(new Set(imported.body.created).size).toBe(2);
    expect(imported.body.created).not.toContain("getSearchMovie");
    expect(imported.body.warnings.length).toBeGreaterThanOrEqual(2);
    expect((await readTool("getSearchMovie")).body.source).toBe("tmdb");
  });

  it("replaces another source's tool only when PUT names it", async () => {
    const current = await readTool("getSearchMovie_otherApi");
    const replaced = await service.json<ImportReport>("PUT", "/v1/tools/getSearchMovie_otherApi", {
      key: tenant.key,
      body: { ...current.body.definition, description: "replaced on purpose" },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.updated).toEqual(["getSearchMovie_otherApi"]);
  });
});
