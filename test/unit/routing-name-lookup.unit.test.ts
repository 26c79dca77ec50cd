import { beforeAll, describe, expect, it } from "vitest";
import { DataFlowIndex, type DataFlowSource } from "../../functions/toolnet/data-flow";
import { withNameLookups } from "../../functions/toolnet/name-lookup";
import type { ToolIndex } from "../../functions/toolnet/retrieval";
import { fuseFirstStep, fuseRunCandidates, type FusedCandidate } from "../../functions/toolnet/signal-fusion";
import { namesEntity, writesIdentifier } from "../../functions/toolnet/task-shape";
import { ToolDefinition } from "../../functions/tools/definition";
import { tmdbRouting } from "../helpers/tmdb-routing";

let index: ToolIndex;
let flow: DataFlowIndex;

beforeAll(async () => {
  ({ index, flow } = await tmdbRouting());
});

describe("what a task names and what it writes", () => {
  it("finds a proper name inside a sentence or quoted text, not a capital that starts a sentence", () => {
    expect(namesEntity("tell me the highest rated movie directed by Martin Scorsese")).toBe(true);
    expect(namesEntity("find the series 'house of cards'")).toBe(true);
    expect(namesEntity("Tell me the highest rated movie. What is its budget?")).toBe(false);
    expect(namesEntity("which movies are popular this week")).toBe(false);
  });

  it("takes a word with three or more digits, not a year or a date, for an identifier the task writes itself", () => {
    expect(writesIdentifier("details of person 12345")).toBe(true);
    expect(writesIdentifier("the movie tt0111161, please")).toBe(true);
    expect(writesIdentifier("reviews of the product with the ID B08N5W4NNB.")).toBe(true);
    expect(writesIdentifier("flights to Paris on 2023-05-01 or 5/1/2023")).toBe(false);
    expect(writesIdentifier("movies of 1994 and of the 1990s")).toBe(false);
    expect(writesIdentifier("the top-10 films of season 2")).toBe(false);
  });
});

describe("name lookups in data flow", () => {
  it("marks a same-API search by name for the identifier's entity, nothing else", () => {
    const producers = flow.producers("getPersonPersonIdMovieCredits");
    const byName = producers.filter((p) => p.byName).map((p) => p.from);
    // searchPerson takes a text query and returns people's ids; popular people need no input,
    // a credit lookup needs an id itself.
    expect(byName).toEqual(["getSearchPerson"]);
    expect(producers.map((p) => p.from)).toEqual(expect.arrayContaining(["getPersonPopular", "getCreditCreditId"]));
  });

  it("does not take another API's search for a lookup: its ids are that API's", () => {
    const tool = (
      name: string,
      serverUrl: string,
      path: string,
      parameters: ToolDefinition["parameters"],
      responseSchema?: Record<string, unknown>,
    ): ToolDefinition =>
      ToolDefinition.parse({
        name,
        method: "GET",
        serverUrl,
        path,
        operation: `GET ${path}`,
        parameters,
        ...(responseSchema === undefined ? {} : { responseSchema }),
      });
    const people = { type: "object", properties: { results: { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } } } };
    const tools = [
      tool("getPerson", "https://films.example.com", "/person/{person_id}", [{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }]),
      tool("searchPerson", "https://films.example.com", "/search/person", [{ name: "query", in: "query", required: true, schema: { type: "string" } }], people),
      tool(
        "searchPersonElsewhere",
        "https://other.example.com",
        "/search/person",
        [{ name: "query", in: "query", required: true, schema: { type: "string" } }],
        people,
      ),
    ];
    const producers = new DataFlowIndex(new Map(tools.map((t) => [t.name, t]))).producers("getPerson");
    // Another API's ids do not fill this API's identifiers at all (flow-rules.ts, sameIssuer), by name or otherwise.
    expect(producers.map((p) => [p.from, p.byName])).toEqual([["searchPerson", true]]);
  });
});

describe("entity resolution in rankings", () => {
  const lookup: DataFlowSource = { from: "searchPerson", parameter: "person_id", field: "results[].id", score: 0.8, byName: true };
  const producersOf = (tool: string): readonly DataFlowSource[] => (tool === "personCredits" ? [lookup] : []);
  const ranked: FusedCandidate[] = ["personCredits", "topRated", "discover", "searchPerson"].map((tool, i) => ({ tool, score: 1 - i / 10, why: {} }));

  it("places the by-name lookup right after a leading tool whose identifier the task names but does not write", () => {
    const out = withNameLookups(ranked, "movies directed by Martin Scorsese", producersOf);
    expect(out.map((c) => c.tool)).toEqual(["personCredits", "searchPerson", "topRated", "discover"]);
    expect(out[1]).toEqual({ tool: "searchPerson", score: 1, why: { feeds: { to: "personCredits", field: "results[].id", parameter: "person_id" } } });
    // A lookup no signal ranked at all joins the same way.
    expect(withNameLookups(ranked.slice(0, 3), "movies directed by Martin Scorsese", producersOf).map((c) => c.tool)).toEqual([
      "personCredits",
      "searchPerson",
      "topRated",
      "discover",
    ]);
  });

  it("leaves the ranking as it is when the task names nothing, writes the identifier, or the tool is not a leader", () => {
    const tools = ranked.map((c) => c.tool);
    expect(withNameLookups(ranked, "movies directed by a famous director", producersOf).map((c) => c.tool)).toEqual(tools);
    expect(withNameLookups(ranked, "movies directed by Martin Scorsese, person 1032", producersOf).map((c) => c.tool)).toEqual(tools);
    expect(withNameLookups(ranked, "movies directed by Martin Scorsese", producersOf, 0).map((c) => c.tool)).toEqual(tools);
    const later = [ranked[1], ranked[2], ranked[0], ranked[3]].flatMap((c) => (c === undefined ? [] : [c]));
    expect(withNameLookups(later, "movies directed by Martin Scorsese", producersOf, 2).map((c) => c.tool)).toEqual(later.map((c) => c.tool));
  });

  it("places the lookup of every ranked tool, not only of the first five: an offered tool needs it", () => {
    const deep: FusedCandidate[] = ["a", "b", "c", "d", "e", "f", "personCredits", "g", "h"].map((tool, i) => ({ tool, score: 1 - i / 20, why: {} }));
    expect(withNameLookups(deep, "movies directed by Martin Scorsese", producersOf).map((c) => c.tool)).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
      "f",
      "personCredits",
      "searchPerson",
      "g",
      "h",
    ]);
  });

  it("holds the lookup in a run set whose seventh tool needs an identifier only a lookup supplies", () => {
    // Ten tools of at most 1,000 tokens, six seeds, ranked by relevance alone.
    const runSet = (tools: readonly string[], costOf: (tool: string) => number) =>
      fuseRunCandidates({
        task: "movies directed by Martin Scorsese",
        relevance: tools.map((name, i) => ({ name, score: tools.length - i })),
        history: [],
        seeds: 6,
        learnedAfter: () => [],
        dataFlowAfter: () => [],
        producersOf,
        maxTools: 10,
        tokenBudget: 1_000,
        costOf,
      });
    // The seventh tool is no seed, so only entity resolution brings its lookup; it is the eighth tool.
    const run = runSet(["a", "b", "c", "d", "e", "f", "personCredits", "g", "h", "i", "j", "k"], () => 100);
    expect(run.candidates.map((c) => c.tool)).toEqual(["a", "b", "c", "d", "e", "f", "personCredits", "searchPerson", "g", "h"]);
    // A tool taken past the size limit, because better-ranked ones did not fit the budget, brings its lookup too.
    const late = runSet(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "personCredits", "k"], (tool) => (tool === "b" || tool === "c" ? 2_000 : 100));
    expect(late.overBudget).toEqual(["b", "c"]);
    expect(late.candidates.map((c) => c.tool)).toEqual(["a", "d", "e", "f", "g", "h", "i", "j", "personCredits", "searchPerson"]);
  });

  it("starts a task that names a person with the person search, at the first step and in the run set", () => {
    const task = "Tell me about actor Scarlett Johansson's birthday";
    const first = (withTask: boolean) =>
      fuseFirstStep({ ...(withTask ? { task } : {}), relevance: index.search(task, 30), history: [], producersOf: (t) => flow.producers(t) }).map(
        (c) => c.tool,
      );
    const lead = first(true).indexOf("getPersonPersonId");
    expect(lead).toBeGreaterThanOrEqual(0);
    expect(first(true)[lead + 1]).toBe("getSearchPerson");
    expect(first(false).indexOf("getSearchPerson")).toBeGreaterThan(lead + 1);
    const run = (withTask: boolean) =>
      fuseRunCandidates({
        ...(withTask ? { task } : {}),
        relevance: index.search(task, 30),
        history: [],
        seeds: 6,
        learnedAfter: () => [],
        dataFlowAfter: (t) => flow.successors(t),
        producersOf: (t) => flow.producers(t),
        maxTools: 3,
        tokenBudget: Infinity,
        costOf: () => 100,
      }).candidates.map((c) => c.tool);
    expect(run(true)).toContain("getSearchPerson");
    expect(run(false)).not.toContain("getSearchPerson");
  });
});
