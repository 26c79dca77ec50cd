import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mountOpenApi, SimulatedWorld } from "../../functions/simulated-world/index";
import { RecordCatalog, TmdbRecordSet } from "../../functions/simulated-world/records";
import worker from "../../functions/simulated-world/worker";

/** The world as `npm start` serves it (worker.ts): TMDB's searches and pages backed by the demo records. */

interface Named {
  id: number;
  name?: string;
  title?: string;
  job?: string;
  character?: string;
}
interface Page {
  results: Named[];
  total_results: number;
}
interface Credits {
  id: number;
  cast: Named[];
  crew: Named[];
}

const demoRecords: unknown = JSON.parse(readFileSync("kv-seed/world/demo-records/tmdb.json", "utf8"));
const tmdb: unknown = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8"));

async function get<T>(path: string, status = 200): Promise<T> {
  const response = await worker.fetch(new Request(`http://world.atc.test${path}`));
  expect(response.status, path).toBe(status);
  return (await response.json()) as T;
}

const search = (kind: string, query: string) => get<Page>(`/tmdb/search/${kind}?query=${encodeURIComponent(query)}`);
const NOLAN_FILMS = [
  "Following",
  "Memento",
  "Insomnia",
  "Batman Begins",
  "The Prestige",
  "The Dark Knight",
  "Inception",
  "The Dark Knight Rises",
  "Interstellar",
  "Dunkirk",
  "Tenet",
  "Oppenheimer",
];

describe("the demo world's TMDB answers what was asked", () => {
  it("a movie search finds the movie, and its id leads to its details and credits", async () => {
    const found = await search("movie", "Inception");
    expect(found.results.map((r) => r.title)).toEqual(["Inception"]);
    const id = found.results[0]?.id;
    expect((await get<Named>(`/tmdb/movie/${id}`)).title).toBe("Inception");
    const credits = await get<Credits>(`/tmdb/movie/${id}/credits`);
    expect(credits.id).toBe(id);
    expect(credits.crew.filter((c) => c.job === "Director").map((c) => c.name)).toEqual(["Christopher Nolan"]);
    expect(credits.cast.map((c) => c.name)).toContain("Leonardo DiCaprio");
  });

  it("a person search finds the person; their movie credits hold the movies they directed, job Director", async () => {
    const found = await search("person", "Christopher Nolan");
    expect(found.results.map((r) => r.name)).toEqual(["Christopher Nolan"]);
    const id = found.results[0]?.id;
    expect((await get<Named>(`/tmdb/person/${id}`)).name).toBe("Christopher Nolan");
    const credits = await get<Credits>(`/tmdb/person/${id}/movie_credits`);
    expect(credits.id).toBe(id);
    expect(credits.crew.filter((c) => c.job === "Director").map((c) => c.title)).toEqual(NOLAN_FILMS);
    // Other crew jobs are there too, and are not directing credits.
    expect(credits.crew.find((c) => c.title === "Man of Steel")?.job).toBe("Producer");
  });

  it("an actor's movie credits are the movies the records cast them in (the README's Bradley Cooper run)", async () => {
    const found = await search("person", "Bradley Cooper");
    expect(found.results.map((r) => [r.id, r.name])).toEqual([[51329, "Bradley Cooper"]]);
    const credits = await get<Credits>("/tmdb/person/51329/movie_credits");
    expect(credits.cast).toHaveLength(18);
    expect(credits.cast.map((c) => c.title)).toContain("Silver Linings Playbook");
    expect(credits.crew.map((c) => [c.title, c.job])).toEqual([
      ["A Star Is Born", "Director"],
      ["Maestro", "Director"],
    ]);
  });

  it("credits agree both ways for every person in the records", async () => {
    const catalog = new RecordCatalog(demoRecords);
    for (const person of catalog.people.values()) {
      const own = await get<Credits>(`/tmdb/person/${person.id}/movie_credits`);
      for (const entry of [...own.cast, ...own.crew]) {
        const movie = await get<Credits>(`/tmdb/movie/${entry.id}/credits`);
        expect(
          [...movie.cast, ...movie.crew].some((c) => c.id === person.id),
          `${person.name} in ${entry.title}`,
        ).toBe(true);
      }
    }
  });

  it("TV searches and pages come from the records too", async () => {
    const found = await search("tv", "breaking bad");
    expect(found.results.map((r) => r.name)).toEqual(["Breaking Bad"]);
    const credits = await get<Credits>(`/tmdb/tv/${found.results[0]?.id}/credits`);
    expect(credits.cast.map((c) => [c.name, c.character])).toContainEqual(["Bryan Cranston", "Walter White"]);
    const cranston = await get<Credits>("/tmdb/person/17419/tv_credits");
    expect(cranston.cast.map((c) => c.name)).toEqual(["Breaking Bad"]);
  });

  it("searches the recorded sample as well, each id once, and answers an empty page when nothing matches", async () => {
    const bradleys = await search("person", "Bradley");
    expect(bradleys.results.filter((r) => r.id === 51329)).toHaveLength(1);
    expect(bradleys.results.length).toBe(20); // the sample's 20 Bradleys, Cooper from the records
    expect(bradleys.results.every((r) => /bradley/i.test(r.name ?? ""))).toBe(true);
    expect((await search("movie", "avengers ultron")).results.map((r) => r.title)).toEqual(["Avengers: Age of Ultron"]);
    const none = await search("person", "Nobody Of That Name");
    expect(none.results).toEqual([]);
    expect(none.total_results).toBe(0);
  });

  it("a page for an id the records lack is the recorded sample, marked as such; the sample's own record stays its", async () => {
    // 154689 (Bradley James) is handed out by the person search sample; the world has no credits for him.
    const response = await worker.fetch(new Request("http://world.atc.test/tmdb/person/154689/movie_credits"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-world-record")).toBe("sample");
    // The recorded movie credits sample is Brad Pitt's (287), so it stays his.
    expect((await get<Credits>("/tmdb/person/287/movie_credits")).cast.map((c) => c.title)).toContain("Fight Club");
    expect((await get<Named>("/tmdb/movie/550")).title).toBe("Fight Club");
  });

  it("the AutoTools TMDB mount answers from the same records", async () => {
    const response = await worker.fetch(new Request("http://world.atc.test/autotools/tmdb/3/search/person?query=Christopher%20Nolan"));
    expect(((await response.json()) as Page).results.map((r) => r.id)).toEqual([525]);
  });
});

describe("the demo records", () => {
  it("never give an id the recorded sample uses for something else", () => {
    const catalog = new RecordCatalog(demoRecords);
    const names = new Map<string, string>();
    for (const [id, movie] of catalog.movies) names.set(`movie ${id}`, movie.title);
    for (const [id, person] of catalog.people) names.set(`person ${id}`, person.name);
    const clashes: string[] = [];
    // Walk every example of the RestBench document: an id with a title is a movie, with a name a person or show.
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const item of node) walk(item);
        return;
      }
      if (typeof node !== "object" || node === null) return;
      const record = node as Record<string, unknown>;
      if (typeof record["id"] === "number" && typeof record["title"] === "string") {
        const mine = names.get(`movie ${record["id"]}`);
        if (mine !== undefined && mine !== record["title"]) clashes.push(`movie ${record["id"]}: ${mine} / ${record["title"]}`);
      }
      if (typeof record["id"] === "number" && typeof record["name"] === "string" && "known_for" in record) {
        const mine = names.get(`person ${record["id"]}`);
        if (mine !== undefined && mine !== record["name"]) clashes.push(`person ${record["id"]}: ${mine} / ${record["name"]}`);
      }
      Object.values(record).forEach(walk);
    };
    walk(tmdb);
    expect(clashes).toEqual([]);
  });

  it("refuse a credit that names an unknown record", () => {
    const broken = structuredClone(demoRecords) as { credits: unknown[] };
    broken.credits.push({ person: 999_999_999, movie: 27205, job: "Director" });
    expect(() => new TmdbRecordSet(broken)).toThrow(/unknown person 999999999/);
  });

  it("are accepted as identifiers before any search handed them out (a recycled world isolate)", async () => {
    const world = new SimulatedWorld([mountOpenApi("/tmdb", tmdb, { records: new TmdbRecordSet(demoRecords) })]);
    const response = await world.handle(new Request("http://world.atc.test/tmdb/person/525/movie_credits"));
    expect(response.status).toBe(200);
  });
});
