import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";
import { importIssues, importOpenApi, isImportFailure } from "../../functions/tools/openapi-import";
import type { Failure } from "../../functions/common/failures";

const AUTOTOOLS = "kv-seed/world/autotools";

function autotools(domain: string): unknown {
  return JSON.parse(readFileSync(`${AUTOTOOLS}/tools/${domain}.tools.json`, "utf8"));
}

/** The error of an all-or-nothing import (`skipInvalid: false`). */
function listError(list: unknown): Failure & { issues: string[] } {
  try {
    importToolList(list, { skipInvalid: false });
  } catch (error) {
    // The problems it lists, as the import's callers read them.
    if (isImportFailure(error)) return Object.assign(error, { issues: importIssues(error) });
    throw error;
  }
  throw new Error("expected importToolList to throw");
}

function named(tools: ToolDefinition[], name: string): ToolDefinition {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool named ${name}`);
  return tool;
}

function param(tool: ToolDefinition, name: string) {
  const found = tool.parameters.find((p) => p.name === name);
  if (found === undefined) throw new Error(`${tool.name} has no parameter ${name}`);
  return found;
}

describe("importToolList: bare lists", () => {
  const list = [
    {
      name: "getMovie",
      method: "get",
      url: "https://api.example.com/v1/movies/{movie_id}",
      description: "One movie by id.",
      parameters: [
        { name: "language", type: "String", description: "ISO 639-1 code" },
        { name: "page", type: "int", required: true, default: 1 },
      ],
    },
    {
      name: "rateMovie",
      method: "POST",
      serverUrl: "https://api.example.com/v1/",
      path: "movies/{movie_id}/rating",
      parameters: [
        { name: "movie_id", in: "path", schema: { type: "integer" } },
        { name: "value", type: "float", required: true },
        { name: "X-Session", in: "header", type: "string" },
      ],
    },
  ];

  it("reads shorthand parameters and infers path parameters from the URL template", () => {
    const { tools, warnings } = importToolList(list);
    expect(warnings).toEqual([]);
    expect(tools).toHaveLength(2);
    const [get, post] = tools;
    expect(get).toEqual({
      name: "getMovie",
      method: "GET",
      // A bare URL splits at the origin: the path keeps everything after the host.
      serverUrl: "https://api.example.com",
      path: "/v1/movies/{movie_id}",
      operation: "GET /v1/movies/{movie_id}",
      description: "One movie by id.",
      parameters: [
        { name: "language", in: "query", required: false, description: "ISO 639-1 code", schema: { type: "string" } },
        { name: "page", in: "query", required: true, schema: { type: "integer", default: 1 } },
        { name: "movie_id", in: "path", required: true, schema: { type: "string" } },
      ],
      tags: [],
    });
    expect(post).toMatchObject({
      serverUrl: "https://api.example.com/v1",
      path: "/movies/{movie_id}/rating",
      operation: "POST /movies/{movie_id}/rating",
      bodyContentType: "application/json",
      description: "",
    });
    expect(post?.parameters).toEqual([
      { name: "movie_id", in: "path", required: true, schema: { type: "integer" } },
      // Without `in`, a POST parameter goes in the JSON body.
      { name: "value", in: "body", required: true, schema: { type: "number" } },
      { name: "X-Session", in: "header", required: false, schema: { type: "string" } },
    ]);
    for (const tool of tools) expect(ToolDefinition.parse(tool)).toEqual(tool);
  });

  it("derives or repairs names that are missing or not identifiers", () => {
    const { tools, warnings } = importToolList([
      { method: "GET", url: "https://api.example.com/pets/{petId}" },
      { name: "get weather now", method: "GET", url: "https://api.example.com/weather" },
      { name: "getPetsByPetId", method: "DELETE", url: "https://api.example.com/pets/{petId}" },
    ]);
    // The explicit name keeps its spelling; the derived one yields.
    expect(tools.map((t) => t.name)).toEqual(["getPetsByPetId_2", "getWeatherNow", "getPetsByPetId"]);
    expect(warnings).toContain('item 1 (get weather now): "get weather now" is not an identifier; named "getWeatherNow".');
  });

  it("reports every bad item with its index and field", () => {
    const error = listError([
      { name: "ok", method: "GET", url: "https://api.example.com/ok" },
      { name: "noMethod", url: "https://api.example.com/a" },
      { name: "relative", method: "GET", url: "/v1/things" },
      { name: "cookie", method: "GET", url: "https://api.example.com/c", parameters: [{ name: "sid", in: "cookie" }] },
      { name: "ghost", method: "GET", url: "https://api.example.com/g", parameters: [{ name: "id", in: "path" }] },
      { name: "okToo", method: "GET", url: "https://api.example.com/ok2" },
      { name: "badMethod", method: "FETCH", url: "https://api.example.com/m" },
      { name: "badParams", method: "GET", url: "https://api.example.com/p", parameters: [{ type: "string" }] },
    ]);
    expect(error.code).toBe("invalid_list");
    expect(error.message).toMatch(/^The tool list is invalid: item 1 \(noMethod\): method: /);
    const issues = error.issues.join("\n");
    expect(issues).toMatch(/^item 1 \(noMethod\): method: /m);
    expect(issues).toMatch(/^item 2 \(relative\): url: "\/v1\/things" is not an absolute http\(s\) URL/m);
    expect(issues).toMatch(/^item 3 \(cookie\): parameters\[0\]\.in: "cookie" is not supported/m);
    expect(issues).toMatch(/^item 4 \(ghost\): parameters\[0\]\.in: path parameter "id" does not appear in the URL/m);
    expect(issues).toMatch(/^item 6 \(badMethod\): method: /m);
    expect(issues).toMatch(/^item 7 \(badParams\): parameters\[0\]\.name: /m);
    expect(error.issues).toHaveLength(6);
  });

  it("keeps the title of the API an item names, as plain text", () => {
    const { tools } = importToolList([{ name: "topTracks", method: "GET", url: "https://music.example/top", apiTitle: "  **Music**   charts " }]);
    expect(tools[0]?.apiTitle).toBe("Music charts");
    const { tools: untitled } = importToolList([{ name: "topTracks", method: "GET", url: "https://music.example/top", apiTitle: " " }]);
    expect(untitled[0]?.apiTitle).toBeUndefined();
  });

  it("accepts its own output: imported definitions re-import unchanged", async () => {
    const { tools } = await importOpenApi(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8"));
    const again = importToolList(JSON.parse(JSON.stringify(tools)));
    expect(again.tools).toEqual(tools);
    expect(again.warnings).toEqual([]);
  });

  it("rejects inputs that are not tool lists", () => {
    expect(listError({ hello: "world" }).message).toMatch(/Expected a list of tools/);
    expect(listError("GET /x").code).toBe("invalid_list");
    expect(listError([]).message).toMatch(/empty/);
    expect(listError([{ name: "a", method: "GET", url: "https://x.example/a?format=json" }]).issues[0]).toMatch(/url: must not contain a query string/);
  });
});

describe("importToolList: autotools files", () => {
  it("imports food with the {item_id} quirk: the URL template makes it a path parameter", () => {
    const { tools, warnings } = importToolList(autotools("food"));
    expect(tools).toHaveLength(22);
    const item = named(tools, "GET_menu_item_information");
    expect(item.serverUrl).toBe("https://spoonacular-recipe-food-nutrition-v1.p.rapidapi.com");
    expect(item.path).toBe("/food/menuItems/{item_id}");
    expect(item.operation).toBe("GET /food/menuItems/{item_id}");
    expect(param(item, "item_id")).toMatchObject({ in: "path", required: true, schema: { type: "integer", default: 306187 } });
    expect(item.parameters.filter((p) => p.name === "item_id")).toHaveLength(1);
    expect(warnings).toContain('item 0 (GET_menu_item_information): "item_id" is a placeholder in the URL, so it is a path parameter (the list says query).');
    // The recorded response is kept as the example; there is no documented schema.
    expect(item.responseExample).toMatchObject({ id: 306187, title: "Burger" });
    expect(item.responseSchema).toBeUndefined();
    // List-wide headers: the key placeholder becomes the auth requirement, the host a fixed header.
    expect(item.auth).toEqual({ scheme: "apiKey", in: "header", name: "X-RapidAPI-Key" });
    expect(param(item, "X-RapidAPI-Host")).toMatchObject({
      in: "header",
      required: false,
      schema: { type: "string", default: "spoonacular-recipe-food-nutrition-v1.p.rapidapi.com" },
    });
    expect(JSON.stringify(tools)).not.toContain("<Your API Key>");
    // Loose type names are repaired: "String" → "string".
    expect(param(named(tools, "GET_wine_pairing"), "food").schema).toEqual({ type: "string", default: "steak" });
  });

  it("reads weather's in: required / optional as query parameters", () => {
    const { tools } = importToolList(autotools("weather"));
    expect(tools).toHaveLength(11);
    const historical = named(tools, "GET_historical_weather");
    expect(param(historical, "date")).toMatchObject({ in: "query", required: true });
    expect(param(historical, "place_id")).toMatchObject({ in: "query", required: false });
  });

  it("skips game's item without a URL with a warning naming it (or rejects all on request); reads `params` and a scheme-less server", () => {
    const error = listError(autotools("game"));
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatch(/^item 8 \(GET_game_reviewed_today\): url: "Gets the 10 games/);

    const { tools, warnings } = importToolList(autotools("game"));
    expect(tools).toHaveLength(17);
    expect(warnings.some((w) => w.startsWith("skipped item 8 (GET_game_reviewed_today): url:"))).toBe(true);
    const search = named(tools, "GET_game_search");
    expect(search.serverUrl).toBe("https://opencritic-api.p.rapidapi.com");
    expect(search.path).toBe("/game/search");
    expect(param(search, "criteria")).toMatchObject({ in: "query", schema: { type: "string" } });
  });

  it("reads tmdb's OpenAPI `responses` and matches the OpenAPI import operation for operation", async () => {
    const { tools } = importToolList(autotools("tmdb"));
    expect(tools).toHaveLength(54);
    const popular = named(tools, "GET_tv_popular");
    expect(popular.serverUrl).toBe("https://api.themoviedb.org/3");
    expect(popular.path).toBe("/tv/popular");
    const schema = popular.responseSchema as { properties: { results: { items: { properties: Record<string, unknown> } } } };
    // OpenAPI 3.0 `nullable` is upgraded exactly as in a full document import.
    expect(schema.properties.results.items.properties.poster_path).toEqual({ title: "image-path", type: ["string", "null"] });
    expect(popular.responseExample).toMatchObject({ page: 1 });

    const fromOpenApi = await importOpenApi(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8"));
    expect(new Set(tools.map((t) => t.operation))).toEqual(new Set(fromOpenApi.tools.map((t) => t.operation)));
  });

  it("keeps the autotools tool names that the tasks' gold solutions use", () => {
    const tasks = JSON.parse(readFileSync(`${AUTOTOOLS}/tasks.json`, "utf8")) as { dataset: string; solution: [string, number][] }[];
    for (const domain of ["food", "weather", "tmdb"]) {
      const names = new Set(importToolList(autotools(domain)).tools.map((t) => t.name));
      const gold = tasks.filter((t) => t.dataset === domain).flatMap((t) => t.solution.map(([name]) => name));
      expect(gold.length).toBeGreaterThan(0);
      for (const name of gold) expect(names, `${domain}: ${name}`).toContain(name);
    }
  });
});
