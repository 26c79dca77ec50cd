import { describe, expect, it } from "vitest";
import {
  dataFlowCandidates,
  fillArguments,
  isInformative,
  observeValues,
  parameterCandidates,
  type ProbedOutput,
} from "../../functions/probing/instance-discovery";
import { parseHelperSelection, parseInstanceAnswer } from "../../functions/probing/prompts";
import { ToolDefinition } from "../../functions/tools/definition";

function tool(path: string, parameters: unknown[], extra: Record<string, unknown> = {}): ToolDefinition {
  const name = `get${path
    .replace(/[{}]/g, "")
    .split(/[/_]/)
    .filter(Boolean)
    .map((s) => s[0]?.toUpperCase() + s.slice(1))
    .join("")}`;
  return ToolDefinition.parse({ name, method: "GET", serverUrl: "https://api.example.com", path, operation: `GET ${path}`, parameters, ...extra });
}

function param(def: ToolDefinition): ToolDefinition["parameters"][number] {
  const first = def.parameters[0];
  if (first === undefined) throw new Error(`${def.name} has no parameter`);
  return first;
}

function output(def: ToolDefinition, response: unknown): ProbedOutput {
  return { tool: def.name, path: def.path, inputs: def.parameters.map((p) => p.name), samples: observeValues(response) };
}

const searchPerson = tool("/search/person", [{ name: "query", in: "query", required: true, schema: { type: "string" } }], {
  description: "Search for people.",
});
const searchPersonResponse = {
  page: 1,
  results: [
    { id: 31, name: "Tom Hanks", known_for: [{ id: 13, title: "Forrest Gump" }] },
    { id: 5, name: "Someone Else", known_for: [] },
  ],
};
const personDetails = tool("/person/{person_id}", [{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }]);

describe("zero-token argument filling from the schema", () => {
  it("takes the first meaningful enum value, defaults, examples and const", () => {
    const def = tool("/discover", [
      { name: "sort_by", in: "query", required: true, schema: { type: "string", enum: ["", "popularity.desc", "popularity.asc"] } },
      { name: "page", in: "query", required: false, schema: { type: "integer", default: 1 } },
      { name: "region", in: "query", required: true, schema: { type: "string", examples: ["DE", "FR"] } },
      { name: "v", in: "query", required: true, schema: { const: 3 } },
      { name: "cursor", in: "query", required: false, schema: { type: "string", example: "abc" } },
    ]);
    const [first] = fillArguments(def);
    expect(first?.arguments).toEqual({ sort_by: "popularity.desc", page: 1, region: "DE", v: 3, cursor: "abc" });
    expect(first?.sources).toEqual({ sort_by: "enum", page: "default", region: "example", v: "const", cursor: "example" });
    expect(first?.dataFlow).toEqual([]);
  });

  it("omits optional parameters that document no value, and offers the required-only set next", () => {
    const def = tool("/search/tv", [
      { name: "query", in: "query", required: true, schema: { type: "string" } },
      { name: "include_adult", in: "query", required: false, schema: { type: "boolean", default: false } },
      { name: "first_air_date_year", in: "query", required: false, schema: { type: "integer" } },
      { name: "with_genres", in: "query", required: false, description: "Possible values are: 18, 35", schema: { type: "string" } },
    ]);
    const sets = fillArguments(def);
    expect(sets[0]?.arguments).toEqual({ query: "Breaking Bad", include_adult: false });
    expect(sets[1]?.arguments).toEqual({ query: "Breaking Bad" });
    expect(sets.every((s) => !("first_air_date_year" in s.arguments) && !("with_genres" in s.arguments))).toBe(true);
  });

  it("derives a search word from the tool's path, name or description", () => {
    const q = (def: ToolDefinition) => fillArguments(def)[0]?.arguments["query"] ?? fillArguments(def)[0]?.arguments["text"];
    expect(q(searchPerson)).toBe("Tom Hanks");
    expect(q(tool("/search/movie", [{ name: "query", in: "query", required: true, schema: { type: "string" } }]))).toBe("Inception");
    expect(q(tool("/find_places", [{ name: "text", in: "query", required: true, description: "Place name to search for.", schema: { type: "string" } }]))).toBe(
      "London",
    );
    expect(q(tool("/lookup", [{ name: "query", in: "query", required: true, schema: { type: "string" } }], { description: "Find a wine by name." }))).toBe(
      "merlot",
    );
    expect(q(tool("/lookup", [{ name: "query", in: "query", required: true, schema: { type: "string" } }]))).toBe("test");
  });

  it("uses format-aware samples, telling names and the description's examples", () => {
    const def = tool("/things", [
      { name: "since", in: "query", required: true, schema: { type: "string", format: "date" } },
      { name: "contact", in: "query", required: true, schema: { type: "string", format: "email" } },
      { name: "token", in: "query", required: true, schema: { type: "string", format: "uuid" } },
      { name: "language", in: "query", required: true, schema: { type: "string" } },
      { name: "lat", in: "query", required: true, schema: { type: "number" } },
      { name: "lon", in: "query", required: true, schema: { type: "string" } },
      { name: "page", in: "query", required: true, schema: {} },
      { name: "wine", in: "query", required: true, description: "The type of wine, e.g. merlot, riesling, or malbec.", schema: { type: "string" } },
      { name: "food", in: "query", required: true, description: 'A dish ("steak") or an ingredient.', schema: { type: "string" } },
    ]);
    const [first] = fillArguments(def);
    expect(first?.arguments).toEqual({
      since: "2024-01-15",
      contact: "user@example.com",
      token: "123e4567-e89b-12d3-a456-426614174000",
      language: "en",
      lat: 51.5074,
      lon: "-0.1278",
      page: 1,
      wine: "merlot",
      food: "steak",
    });
    expect(first?.sources["since"]).toBe("format");
    expect(first?.sources["wine"]).toBe("description");
  });

  it("coerces documented values to the declared type and falls back to typed placeholders", () => {
    const def = tool("/recipes/{recipe_id}/price", [
      { name: "recipe_id", in: "path", required: true, schema: { type: "integer", default: "1003464" } },
      { name: "thing_id", in: "query", required: true, schema: { type: "integer", minimum: 5 } },
      { name: "code", in: "query", required: true, schema: { type: "string" } },
      { name: "flag", in: "query", required: true, schema: { type: "boolean" } },
      { name: "tags", in: "query", required: true, schema: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
    ]);
    const [first] = fillArguments(def);
    expect(first?.arguments).toEqual({ recipe_id: 1003464, thing_id: 5, code: "1", flag: false, tags: ["a"] });
    expect(first?.score).toBeCloseTo(0.1);
  });

  it("returns several distinct ranked sets, at most maxCandidates", () => {
    const def = tool("/x/{x_id}", [
      { name: "x_id", in: "path", required: true, schema: { type: "integer", examples: [7, 8, 9] } },
      { name: "page", in: "query", required: false, schema: { type: "integer", default: 1 } },
    ]);
    const sets = fillArguments(def, { maxCandidates: 4 });
    // Documented alternatives (0.9) outrank dropping the optional default (0.95 × 0.9), then the placeholder.
    expect(sets.map((s) => s.arguments)).toEqual([{ x_id: 7, page: 1 }, { x_id: 8, page: 1 }, { x_id: 9, page: 1 }, { x_id: 7 }]);
    for (let i = 1; i < sets.length; i++) expect(sets[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(sets[i]?.score ?? 0);
    expect(fillArguments(def, { maxCandidates: 2 })).toHaveLength(2);
    expect(fillArguments(tool("/health", []))).toEqual([{ arguments: {}, score: 1, sources: {}, dataFlow: [] }]);
  });

  it("keeps a __proto__ parameter as a plain argument", () => {
    const def = tool("/odd", [{ name: "__proto__", in: "query", required: true, schema: { type: "string", default: "x" } }]);
    const args = fillArguments(def)[0]?.arguments ?? {};
    expect(Object.keys(args)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });
});

describe("data flow from probed tools", () => {
  it("fills person_id from a probed /search/person's results[].id", () => {
    const sets = fillArguments(personDetails, { outputs: [output(searchPerson, searchPersonResponse)] });
    expect(sets[0]?.arguments).toEqual({ person_id: 31 });
    expect(sets[0]?.sources).toEqual({ person_id: "data_flow" });
    expect(sets[0]?.dataFlow).toEqual([{ parameter: "person_id", tool: "getSearchPerson", path: "results[0].id", value: 31 }]);
    // The runner-up is the second result, then the placeholder; never a known_for movie id.
    expect(sets.map((s) => s.arguments["person_id"])).toEqual([31, 5, 1]);
  });

  it("without outputs, an id gets only the placeholder", () => {
    expect(fillArguments(personDetails).map((s) => s.arguments)).toEqual([{ person_id: 1 }]);
  });

  it("reads the owner of an id from the nearest named key", () => {
    const movie = tool("/movie/{movie_id}", [{ name: "movie_id", in: "path", required: true, schema: { type: "integer" } }]);
    const details = {
      id: 550,
      genres: [{ id: 18, name: "Drama" }],
      production_companies: [{ id: 508, name: "Regency" }],
      belongs_to_collection: { id: 10, name: "C" },
    };
    const out = [output(movie, details)];
    const first = (def: ToolDefinition) => dataFlowCandidates(def, param(def), out)[0];
    expect(first(tool("/genre/{genre_id}", [{ name: "genre_id", in: "path", required: true, schema: { type: "integer" } }]))?.value).toBe(18);
    expect(first(tool("/company/{company_id}", [{ name: "company_id", in: "path", required: true, schema: { type: "integer" } }]))?.value).toBe(508);
    expect(first(tool("/collection/{collection_id}", [{ name: "collection_id", in: "path", required: true, schema: { type: "integer" } }]))?.value).toBe(10);
    // A person_id is nowhere in a movie's details.
    expect(first(personDetails)).toBeUndefined();
  });

  it("does not take a top-level id that echoes the producer's own input for another entity", () => {
    const reviews = tool("/movie/{movie_id}/reviews", [{ name: "movie_id", in: "path", required: true, schema: { type: "integer" } }]);
    const review = tool("/review/{review_id}", [{ name: "review_id", in: "path", required: true, schema: { type: "string" } }]);
    const response = { id: 550, page: 1, results: [{ id: "5b1c", author: "a" }] };
    const values = dataFlowCandidates(review, param(review), [output(reviews, response)]);
    expect(values.map((v) => v.value)).toEqual(["5b1c"]);
  });

  it("prefers a search's results over the echo of the same id, and weighs input entities down", () => {
    const credits = tool("/person/{person_id}/movie_credits", [{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }]);
    const creditsResponse = { id: 31, cast: [{ id: 13, title: "Forrest Gump" }] };
    const candidates = dataFlowCandidates(personDetails, param(personDetails), [output(credits, creditsResponse), output(searchPerson, searchPersonResponse)]);
    expect(candidates[0]).toMatchObject({ value: 31, from: { tool: "getSearchPerson", path: "results[0].id" } });
    // movie_credits lists movies: a movie_id may come from its cast[].id, a person_id rather not.
    const movie = tool("/movie/{movie_id}", [{ name: "movie_id", in: "path", required: true, schema: { type: "integer" } }]);
    const forMovie = dataFlowCandidates(movie, param(movie), [output(credits, creditsResponse)]);
    expect(forMovie[0]).toMatchObject({ value: 13, from: { path: "cast[0].id" } });
    const forPerson = dataFlowCandidates(personDetails, param(personDetails), [output(credits, creditsResponse)]);
    expect(forPerson.find((c) => c.value === 13)?.score ?? 0).toBeLessThan(forMovie[0]?.score ?? 0);
  });

  it("matches a field named like the parameter, and fills optional identifiers from strong data flow", () => {
    const places = tool("/find_places", [{ name: "text", in: "query", required: true, schema: { type: "string" } }]);
    const current = tool("/current", [
      { name: "place_id", in: "query", required: false, schema: { type: "string" } },
      { name: "units", in: "query", required: false, schema: { type: "string" } },
    ]);
    const sets = fillArguments(current, { outputs: [output(places, [{ name: "London", place_id: "london", lat: "51.5N" }])] });
    expect(sets.map((s) => s.arguments)).toContainEqual({ place_id: "london" });
    expect(sets.find((s) => s.dataFlow.length > 0)?.dataFlow[0]).toMatchObject({ parameter: "place_id", path: "[0].place_id" });
    // Without outputs the optional place_id is simply left out.
    expect(fillArguments(current).map((s) => s.arguments)).toEqual([{}]);
  });

  it("keeps values of one response together when several parameters come from data flow", () => {
    const popular = tool("/tv/popular", []);
    const latest = tool("/tv/latest", []);
    const episode = tool("/tv/{tv_id}/season/{season_number}", [
      { name: "tv_id", in: "path", required: true, schema: { type: "integer" } },
      { name: "season_number", in: "path", required: true, schema: { type: "integer" } },
    ]);
    const sets = fillArguments(episode, {
      outputs: [output(popular, { results: [{ id: 100 }] }), output(latest, { id: 200, seasons: [{ id: 9, season_number: 3 }] })],
    });
    expect(sets[0]?.arguments).toEqual({ tv_id: 200, season_number: 3 });
    expect(new Set(sets[0]?.dataFlow.map((d) => d.tool))).toEqual(new Set(["getTvLatest"]));
  });

  it("converts types and skips values that cannot be the parameter's type", () => {
    const out = [output(searchPerson, { results: [{ id: "31" }, { id: "abc" }] })];
    expect(dataFlowCandidates(personDetails, param(personDetails), out).map((c) => c.value)).toEqual([31]);
    const byString = tool("/person/{person_id}", [{ name: "person_id", in: "path", required: true, schema: { type: "string" } }]);
    expect(dataFlowCandidates(byString, param(byString), [output(searchPerson, { results: [{ id: 31 }] })]).map((c) => c.value)).toEqual(["31"]);
  });

  it("lists every parameter's candidates for display", () => {
    const map = parameterCandidates(personDetails, { outputs: [output(searchPerson, searchPersonResponse)] });
    expect(map.get("person_id")?.map((c) => c.source)).toEqual(["data_flow", "data_flow", "placeholder"]);
  });
});

describe("observed values and informative responses", () => {
  it("keeps scalars with concrete paths, breadth-first and capped", () => {
    const values = observeValues({
      a: 1,
      list: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }],
      "odd-key": "x",
      deep: { deeper: { v: true } },
      long: "y".repeat(300),
      nothing: null,
    });
    expect(values.map((v) => v.path)).toEqual(["a", '["odd-key"]', "list[0].id", "list[1].id", "list[2].id", "deep.deeper.v"]);
    expect(observeValues([{ id: 1 }, { id: 2 }], { maxValues: 1 })).toEqual([{ path: "[0].id", value: 1 }]);
  });

  it("tells empty answers from informative ones", () => {
    expect(isInformative({ page: 1, results: [], total_results: 0 })).toBe(false);
    expect(isInformative([])).toBe(false);
    expect(isInformative({})).toBe(false);
    expect(isInformative(null)).toBe(false);
    expect(isInformative("")).toBe(false);
    expect(isInformative({ page: 1, results: [{ id: 1 }] })).toBe(true);
    expect(isInformative({ id: 1, name: "x", tags: [] })).toBe(true);
    expect(isInformative({ id: 1, tags: [] })).toBe(false);
    expect(isInformative({ status: "ok" })).toBe(true);
    expect(isInformative(0)).toBe(true);
  });
});

describe("reading the model's answers", () => {
  it("parses the query, the fenced program and an optional description", () => {
    const answer = [
      'Your query: "Find the details of the movie The Matrix"',
      "Test program:",
      "```typescript",
      'const r = await tools.getSearchMovie({ query: "The Matrix" });',
      "return r;",
      "```",
      "Tool description: Searches movies by title.",
    ].join("\n");
    expect(parseInstanceAnswer(answer)).toEqual({
      query: "Find the details of the movie The Matrix",
      program: 'const r = await tools.getSearchMovie({ query: "The Matrix" });\nreturn r;',
      description: "Searches movies by title.",
    });
    expect(parseInstanceAnswer("Your query: x\nTest program:\nreturn await tools.a({});")).toEqual({ query: "x", program: "return await tools.a({});" });
    expect(parseInstanceAnswer("I cannot help with that.")).toEqual({});
    expect(parseInstanceAnswer("```json\n{}\n```\n```ts\nreturn 1;\n```").program).toBe("return 1;");
  });

  it("parses a helper selection, in the order named, only among candidates", () => {
    expect(parseHelperSelection("Selected tools: getSearchPerson, getSearchMovie", ["getSearchMovie", "getSearchPerson", "getTv"], 3)).toEqual([
      "getSearchPerson",
      "getSearchMovie",
    ]);
    expect(parseHelperSelection("Selected tools: getSearchPersonX", ["getSearchPerson"], 3)).toEqual([]);
    expect(parseHelperSelection("a, b, c", ["a", "b", "c"], 2)).toEqual(["a", "b"]);
  });
});
