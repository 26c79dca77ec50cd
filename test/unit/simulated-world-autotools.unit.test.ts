import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { mountAutotools, SimulatedWorld } from "../../functions/simulated-world/index";
import worker from "../../functions/simulated-world/worker";

interface Endpoint {
  name: string;
  response?: unknown;
}

function toolsFile(domain: string): { endpoints: Endpoint[] } {
  const path = fileURLToPath(new URL(`../../kv-seed/world/autotools/tools/${domain}.tools.json`, import.meta.url));
  return JSON.parse(readFileSync(path, "utf8")) as { endpoints: Endpoint[] };
}

const food = toolsFile("food");
const weather = toolsFile("weather");
const game = toolsFile("game");
const tmdb = toolsFile("tmdb");

function recorded(file: { endpoints: Endpoint[] }, name: string): unknown {
  const endpoint = file.endpoints.find((e) => e.name === name);
  if (endpoint === undefined) throw new Error(`no endpoint ${name}`);
  return endpoint.response;
}

function autotoolsWorld(): SimulatedWorld {
  return new SimulatedWorld([
    mountAutotools("/autotools/food", food),
    mountAutotools("/autotools/weather", weather),
    mountAutotools("/autotools/game", game),
    mountAutotools("/autotools/tmdb", tmdb),
  ]);
}

async function call(world: SimulatedWorld, path: string): Promise<{ status: number; body: unknown }> {
  const response = await world.handle(new Request(`http://world.test${path}`));
  return { status: response.status, body: await response.json() };
}

describe("simulated world: AutoTools tool files", () => {
  it("replays a food endpoint's recorded response at its URL path", async () => {
    const { status, body } = await call(autotoolsWorld(), "/autotools/food/food/menuItems/search?query=burger");
    expect(status).toBe(200);
    expect(body).toEqual(recorded(food, "GET_search_menu_items"));
  });

  it("chains food search → details by handed-out id, replaying the recorded detail", async () => {
    const world = autotoolsWorld();
    const search = await call(world, "/autotools/food/recipes/complexSearch?query=pasta");
    const recipeId = (search.body as { results: Array<{ id: number }> }).results[0]?.id;
    expect(recipeId).toBe(1079930);
    const equipment = await call(world, `/autotools/food/recipes/${String(recipeId)}/equipmentWidget.json`);
    expect(equipment.status).toBe(200);
    expect(equipment.body).toEqual(recorded(food, "GET_equipment_by_id"));

    // The URL placeholder {item_id} is a path parameter even though the file says `in: query`.
    const item = await call(world, "/autotools/food/food/menuItems/247615");
    expect(item.status).toBe(200);
    expect((item.body as { id: number; title: string }).id).toBe(247615);
    expect((await call(world, "/autotools/food/food/menuItems/1")).status).toBe(404);
  });

  it("reads weather's `in: required` as a required query parameter", async () => {
    const world = autotoolsWorld();
    const missing = await call(world, "/autotools/weather/time_machine?place_id=london");
    expect(missing.status).toBe(400);
    expect((missing.body as { errors: string[] }).errors).toEqual(["date must be provided (required query parameter)."]);
    const ok = await call(world, "/autotools/weather/time_machine?place_id=london&date=2024-01-01");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(recorded(weather, "GET_historical_weather"));
  });

  it("serves tmdb.tools.json from its OpenAPI `responses` object, under the URL's /3 path", async () => {
    const world = autotoolsWorld();
    const search = await call(world, "/autotools/tmdb/3/search/person?query=Brad%20Pitt");
    expect(search.status).toBe(200);
    const personId = (search.body as { results: Array<{ id: number }> }).results[0]?.id;
    expect(personId).toBeTypeOf("number");
    const details = await call(world, `/autotools/tmdb/3/person/${String(personId)}`);
    expect(details.status).toBe(200);
    expect((details.body as { id: number }).id).toBe(personId);
    expect((await call(world, "/autotools/tmdb/3/search/person")).status).toBe(400);
  });

  it("lists endpoints it cannot serve instead of guessing their paths", async () => {
    const { body } = await call(autotoolsWorld(), "/__world");
    const mounts = (body as { mounts: Array<{ prefix: string; operations: unknown[]; skipped: Array<{ name: string }> }> }).mounts;
    expect(mounts.map((m) => m.prefix)).toEqual(["/autotools/food", "/autotools/game", "/autotools/tmdb", "/autotools/weather"]);
    const gameMount = mounts.find((m) => m.prefix === "/autotools/game");
    expect(gameMount?.skipped.map((s) => s.name)).toEqual(["GET_game_reviewed_today"]);
    expect(gameMount?.operations).toHaveLength(game.endpoints.length - 1);
  });

  it("reads game's `params` and scheme-less quirks: search → game by id", async () => {
    const world = autotoolsWorld();
    const search = await call(world, "/autotools/game/game/search?criteria=witcher");
    const gameId = (search.body as Array<{ id: number }>)[0]?.id;
    const details = await call(world, `/autotools/game/game/${String(gameId)}`);
    expect(details.status).toBe(200);
    expect((details.body as { id: number }).id).toBe(gameId);
    expect((await call(world, "/autotools/game/game/999999999")).status).toBe(404);
  });
});

describe("simulated world: Worker module", () => {
  it("mounts TMDB and the four AutoTools files, and keeps handed-out ids across requests", async () => {
    const listing = await worker.fetch(new Request("http://world.test/__world"));
    const mounts = ((await listing.json()) as { mounts: Array<{ prefix: string }> }).mounts.map((m) => m.prefix);
    expect(mounts).toEqual(["/autotools/food", "/autotools/game", "/autotools/tmdb", "/autotools/weather", "/tmdb"]);

    const credits = await worker.fetch(new Request("http://world.test/tmdb/movie/550/credits"));
    const creditId = ((await credits.json()) as { crew: Array<{ credit_id: string }> }).crew[0]?.credit_id;
    const credit = await worker.fetch(new Request(`http://world.test/tmdb/credit/${String(creditId)}`));
    expect(credit.status).toBe(200);
  });
});
