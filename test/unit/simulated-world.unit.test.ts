import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { mountOpenApi, SimulatedWorld, type MountOptions } from "../../functions/simulated-world/index";

// The RestBench TMDB document, exactly as the benchmarks use it.
const tmdbDocument: unknown = JSON.parse(readFileSync(fileURLToPath(new URL("../../kv-seed/world/restbench-tmdb/openapi.json", import.meta.url)), "utf8"));

function tmdbWorld(options: MountOptions = {}): SimulatedWorld {
  return new SimulatedWorld([mountOpenApi("/tmdb", tmdbDocument, options)]);
}

async function get(world: SimulatedWorld, path: string, init?: RequestInit): Promise<{ status: number; body: unknown; response: Response }> {
  const response = await world.handle(new Request(`http://world.test${path}`, init));
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text), response };
}

function resultIds(body: unknown): number[] {
  const results = (body as { results?: Array<{ id?: unknown }> }).results ?? [];
  return results.map((r) => r.id).filter((id): id is number => typeof id === "number");
}

describe("simulated world: RestBench TMDB mount", () => {
  it("answers GET /tmdb/search/person with the documented JSON example", async () => {
    const { status, body, response } = await get(tmdbWorld(), "/tmdb/search/person?query=Sofia%20Coppola");
    expect(status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("x-world-operation")).toBe("GET /search/person");
    expect(resultIds(body)).toContain(51329);
    expect((body as { page: number }).page).toBe(1);
  });

  it("answers an unknown person_id with TMDB's 404", async () => {
    const { status, body } = await get(tmdbWorld(), "/tmdb/person/999999999/movie_credits");
    expect(status).toBe(404);
    expect(body).toEqual({
      success: false,
      status_code: 34,
      status_message: "The resource you requested could not be found.",
    });
  });

  it("accepts a person_id only after the search has handed it out (seed: none)", async () => {
    const world = tmdbWorld({ seed: "none" });
    expect(world.handedOut("/tmdb").has("51329")).toBe(false);
    expect((await get(world, "/tmdb/person/51329/movie_credits")).status).toBe(404);

    const search = await get(world, "/tmdb/search/person?query=Bradley%20Cooper");
    const personId = resultIds(search.body)[0];
    expect(personId).toBe(51329);
    expect(world.handedOut("/tmdb").has("51329")).toBe(true);

    const credits = await get(world, `/tmdb/person/${String(personId)}/movie_credits`);
    expect(credits.status).toBe(200);
    expect((credits.body as { id: unknown }).id).toBe(51329); // echoed, not the example's 287
    expect(Array.isArray((credits.body as { cast: unknown }).cast)).toBe(true);
  });

  it("seeds the ids of entry operations' examples, so search → details works on a fresh world", async () => {
    const world = tmdbWorld();
    expect(world.handedOut("/tmdb").has("51329")).toBe(true); // from the /search/person example
    const search = await get(tmdbWorld(), "/tmdb/search/movie?query=The%20Dark%20Knight");
    const movieId = resultIds(search.body)[0];
    expect(movieId).toBeTypeOf("number");
    const credits = await get(world, `/tmdb/movie/${String(movieId)}/credits`);
    expect(credits.status).toBe(200);
    expect((credits.body as { id: unknown }).id).toBe(movieId);
  });

  it("hands out deeper identifiers (credit_id) only through the responses that carry them", async () => {
    const world = tmdbWorld();
    const movieId = resultIds((await get(world, "/tmdb/movie/top_rated")).body)[0];
    const credits = await get(world, `/tmdb/movie/${String(movieId)}/credits`);
    const creditId = (credits.body as { cast: Array<{ credit_id: string }> }).cast[0]?.credit_id;
    expect(creditId).toMatch(/^[0-9a-f]{24}$/);

    const fresh = tmdbWorld();
    expect((await get(fresh, `/tmdb/credit/${String(creditId)}`)).status).toBe(404);

    const credit = await get(world, `/tmdb/credit/${String(creditId)}`);
    expect(credit.status).toBe(200);
    expect((credit.body as { id: unknown }).id).toBe(creditId);
  });

  it("echoes the id only when the path ends at an identifier", async () => {
    const world = tmdbWorld();
    const tvId = resultIds((await get(world, "/tmdb/search/tv?query=Game%20of%20Thrones")).body)[0];
    const season = await get(world, `/tmdb/tv/${String(tvId)}/season/1`);
    expect(season.status).toBe(200);
    // A season's own id is not the requested tv_id; the example's season id stays.
    expect((season.body as { id: unknown }).id).toBe(3624);
    const person = await get(world, "/tmdb/person/51329");
    expect((person.body as { id: unknown; name: unknown }).id).toBe(51329);
  });

  it("is deterministic: the same request gives the same body, also across worlds", async () => {
    const path = "/tmdb/discover/movie?sort_by=popularity.desc&page=1";
    const first = await (await tmdbWorld().handle(new Request(`http://w${path}`))).text();
    const world = tmdbWorld();
    const second = await (await world.handle(new Request(`http://w${path}`))).text();
    const third = await (await world.handle(new Request(`http://w${path}`))).text();
    expect(second).toBe(first);
    expect(third).toBe(first);
  });

  it("prefers literal paths over templates (/movie/popular is not a movie_id)", async () => {
    const { status, response } = await get(tmdbWorld(), "/tmdb/movie/popular");
    expect(status).toBe(200);
    expect(response.headers.get("x-world-operation")).toBe("GET /movie/popular");
  });

  it("answers a missing required query parameter with 400 naming it", async () => {
    for (const path of ["/tmdb/search/person", "/tmdb/search/person?query="]) {
      const { status, body } = await get(tmdbWorld(), path);
      expect(status).toBe(400);
      const message = (body as { status_message: string }).status_message;
      expect(message).toContain("query must be provided");
      expect((body as { status_code: number }).status_code).toBe(5);
    }
  });

  it("answers a wrongly typed query parameter with 400 naming it", async () => {
    const { status, body } = await get(tmdbWorld(), "/tmdb/movie/popular?page=first");
    expect(status).toBe(400);
    expect((body as { errors: string[] }).errors).toEqual(['query parameter page must be an integer (got "first").']);
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const { status, response, body } = await get(tmdbWorld(), "/tmdb/search/person?query=x", { method: "POST" });
    expect(status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect((body as { status_message: string }).status_message).toContain("POST");
  });

  it("answers unknown paths, inside and outside a mount, with a 404 JSON error", async () => {
    for (const path of ["/tmdb/no/such/thing", "/tmdb", "/elsewhere/search/person?query=x"]) {
      const { status, body, response } = await get(tmdbWorld(), path);
      expect(status).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect((body as { status_code: number }).status_code).toBe(34);
    }
  });

  it("lists mounts and their operations at /__world", async () => {
    const { status, body } = await get(tmdbWorld(), "/__world");
    expect(status).toBe(200);
    const mounts = (
      body as { mounts: Array<{ prefix: string; kind: string; operations: Array<{ method: string; path: string; identifierParams: string[] }> }> }
    ).mounts;
    expect(mounts.map((m) => m.prefix)).toEqual(["/tmdb"]);
    expect(mounts[0]?.kind).toBe("openapi");
    expect(mounts[0]?.operations).toHaveLength(54);
    expect(mounts[0]?.operations).toContainEqual(
      expect.objectContaining({ method: "GET", path: "/person/{person_id}/movie_credits", identifierParams: ["person_id"] }),
    );
    expect((await get(tmdbWorld(), "/__world", { method: "DELETE" })).status).toBe(405);
  });
});
