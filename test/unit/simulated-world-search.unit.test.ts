import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mountOpenApi, SimulatedWorld } from "../../functions/simulated-world/index";

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const world = new SimulatedWorld([mountOpenApi("/tmdb", tmdb)]);

async function get(path: string): Promise<{ body: { results: { name?: string; title?: string }[]; total_results: number }; search: string | null }> {
  const response = await world.handle(new Request(`http://world.atc.test${path}`));
  expect(response.status).toBe(200);
  return { body: (await response.json()) as never, search: response.headers.get("x-world-search") };
}

describe("search endpoints of the simulated world", () => {
  it("answer with the sample records that match the query", async () => {
    const cooper = await get("/tmdb/search/person?query=Bradley%20Cooper");
    expect(cooper.body.results.map((r) => r.name)).toEqual(["Bradley Cooper"]);
    expect(cooper.body.total_results).toBe(1);
    expect(cooper.search).toBe("filtered");
    const avengers = await get("/tmdb/search/movie?query=avengers%20ultron");
    expect(avengers.body.results.map((r) => r.title)).toEqual(["Avengers: Age of Ultron"]);
  });

  it("match every word, in any case", async () => {
    const bradleys = await get("/tmdb/search/person?query=BRADLEY");
    expect(bradleys.body.results.length).toBeGreaterThan(10);
    expect(bradleys.body.results.every((r) => /bradley/i.test(r.name ?? ""))).toBe(true);
    expect(bradleys.body.total_results).toBe(bradleys.body.results.length);
  });

  it("on a mount without records, serve the whole sample, marked unmatched, for a name the sample does not hold", async () => {
    const nolan = await get("/tmdb/search/person?query=Christopher%20Nolan");
    expect(nolan.search).toBe("unmatched");
    expect(nolan.body.results.length).toBe(20);
  });

  it("leave other endpoints alone", async () => {
    const response = await world.handle(new Request("http://world.atc.test/tmdb/trending/person/week"));
    expect(response.headers.get("x-world-search")).toBeNull();
  });
});
