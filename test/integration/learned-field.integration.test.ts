import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObservedSessionView } from "../../functions/storage/tenant-observed";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { connectMcp } from "../helpers/mcp-client";
import { learnedWordsOf, topToolByWords } from "../helpers/learned-words";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

/**
 * The learned field (issue 45): each tool learns the words of the requests that chose it, so a
 * later request worded like them finds it, though the tool's own text has none of its words.
 */

const TOOLS = [
  { name: "searchMovie", method: "GET", url: "https://api.example.com/search/movie", description: "Search for a movie by its title" },
  { name: "movieCredits", method: "GET", url: "https://api.example.com/movie/credits", description: "Get the cast and crew of a movie" },
  { name: "tvSeasons", method: "GET", url: "https://api.example.com/tv/seasons", description: "List the seasons of a TV show" },
  { name: "weatherToday", method: "GET", url: "https://api.example.com/weather/today", description: "Today's weather forecast for a city" },
  { name: "askAnything", method: "GET", url: "https://api.example.com/ask", description: "Computes answers to natural language queries" },
];
/** The request of the observed conversation: none of its words is in any tool's own text. */
const REQUEST = "Dig up that blockbuster flick everybody keeps quoting";
/** A paraphrase sharing words only with the request. */
const PARAPHRASE = "which blockbuster flick";

/** What a tool that learned nothing says of where its words came from. */
const NOTHING_FROM = { fromUse: { sources: 0, words: 0 }, fromExamples: { sources: 0, words: 0 } };

let service: TestService;
const clients: Client[] = [];

async function tenantWithTools(id: string): Promise<string> {
  const { key } = await createTenant(service, id);
  const imported = await service.json("POST", "/v1/tools/import", { key, body: { format: "list", source: "movies", tools: TOOLS } });
  expect(imported.status).toBe(200);
  return key;
}

/** A chatbot's conversation over MCP: search, call the tools, end the session; no feedback. */
async function chat(key: string, task: string, tools: readonly string[]): Promise<void> {
  const client = await connectMcp(service, key);
  clients.push(client);
  await client.callTool({ name: "find_tools", arguments: { task, k: 5 } }, CallToolResultSchema);
  for (const tool of tools) await client.callTool({ name: "call_tool", arguments: { name: tool, arguments: {} } }, CallToolResultSchema);
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
}

const route = async (key: string, task: string, k = 1): Promise<RouteAnswer> =>
  (await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k } })).body;

/**
 * The tool the paraphrase finds by words (undefined: nothing matched, a fallback stands in). Mode
 * "graph" leaves similar tasks' votes out of a first step, so only the tools' own text and their
 * learned fields can find it.
 */
const foundBy = (key: string, task = PARAPHRASE) => topToolByWords(service, key, task);

const learnedWords = (key: string, tool: string) => learnedWordsOf(service, key, tool);

const terms = async (key: string, tool: string): Promise<string[]> => (await learnedWords(key, tool)).terms.map((t) => t.term).sort();

beforeAll(async () => {
  service = await startService({ outbound: () => Response.json({ results: [{ id: 1 }] }) });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await service.dispose();
});

describe("the learned field", () => {
  it("after one observed conversation a paraphrase sharing words only with its request finds the tool; deleting the session takes it away", async () => {
    const key = await tenantWithTools("learned-paraphrase");
    expect(await foundBy(key)).toBeUndefined();
    await chat(key, REQUEST, ["movieCredits"]);
    expect(await terms(key, "movieCredits")).toEqual(["blockbust", "dig", "everybodi", "flick", "keep", "quot"]);
    expect((await learnedWords(key, "movieCredits")).sources).toBe(1);
    expect(await foundBy(key)).toBe("movieCredits");

    const [session] = (await service.json<{ sessions: ObservedSessionView[] }>("GET", "/v1/observed-sessions", { key })).body.sessions;
    const deleted = await service.fetch(`/v1/observed-sessions/${encodeURIComponent(session?.id ?? "")}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(deleted.status).toBe(204);
    expect(await learnedWords(key, "movieCredits")).toEqual({ tool: "movieCredits", sources: 0, terms: [], ...NOTHING_FROM });
    expect(await foundBy(key)).toBeUndefined();
  });

  it("a call with no search before it teaches nothing", async () => {
    const key = await tenantWithTools("learned-no-search");
    const client = await connectMcp(service, key);
    clients.push(client);
    await client.callTool({ name: "call_tool", arguments: { name: "movieCredits", arguments: {} } }, CallToolResultSchema);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(await learnedWords(key, "movieCredits")).toEqual({ tool: "movieCredits", sources: 0, terms: [], ...NOTHING_FROM });
  });

  it("after the retention period no request text is stored and the ranking is unchanged; the words survive eviction", async () => {
    const id = "learned-retention";
    const key = await tenantWithTools(id);
    await chat(key, `${REQUEST} from 1994 with "Vincent"`, ["movieCredits"]);
    const before = await route(key, PARAPHRASE, 3);
    const object = await tenantObject(service, id);
    expect(await object.store("observed").alarmWork(Date.now() + 31 * 86_400_000)).toEqual({ closed: 0, reduced: 1 });
    const [session] = (await service.json<{ sessions: ObservedSessionView[] }>("GET", "/v1/observed-sessions", { key })).body.sessions;
    expect(session?.trajectories[0]?.task).toBeNull();
    // Argument values (numbers, quoted text) were never learned.
    expect(await terms(key, "movieCredits")).toEqual(["blockbust", "dig", "everybodi", "flick", "keep", "quot"]);
    expect(await route(key, PARAPHRASE, 3)).toEqual(before);
    await object.simulateEviction();
    expect(await route(key, PARAPHRASE, 3)).toEqual(before);
  });

  it("a negative score in the conversation takes its words away; a positive one strengthens them", async () => {
    const key = await tenantWithTools("learned-negative");
    const headers = { "conversation-id": "chat-7" };
    await service.json("POST", "/v1/route", { key, headers, body: { task: REQUEST, k: 5 } });
    await service.json("POST", "/v1/tools/movieCredits/call", { key, headers, body: { arguments: {} } });
    await service.json("POST", "/v1/route", { key, headers, body: { task: "List the seasons of the show", k: 5 } });
    await service.json("POST", "/v1/tools/tvSeasons/call", { key, headers, body: { arguments: {} } });
    await service.json("POST", "/v1/route", { key, headers, body: { task: "Today's weather forecast please", k: 5 } });
    expect((await learnedWords(key, "movieCredits")).terms[0]?.weight).toBe(1);
    expect((await service.json("POST", "/v1/feedback", { key, headers, body: { tools: ["tvSeasons"], scores: [2] } })).status).toBe(200);
    expect((await learnedWords(key, "tvSeasons")).terms.every((t) => t.weight === 2)).toBe(true);
    expect((await service.json("POST", "/v1/feedback", { key, headers, body: { tools: ["movieCredits"], scores: [-2] } })).status).toBe(200);
    expect((await learnedWords(key, "movieCredits")).terms).toEqual([]);
    expect(await foundBy(key)).toBeUndefined();
  });

  it("one conversation repeated 1,000 times teaches no more than once", { timeout: 120_000 }, async () => {
    const id = "learned-repeated";
    const key = await tenantWithTools(id);
    await chat(key, REQUEST, ["movieCredits"]);
    const once = await learnedWords(key, "movieCredits");
    const observed = (await tenantObject(service, id)).store("observed");
    await observed.recordSearch("mcp:flood", REQUEST, null, ["movieCredits"]);
    await observed.recordCall("mcp:flood", "movieCredits", "success");
    // The other 999 in batches (the object takes each pair in the order sent).
    for (let batch = 0; batch < 999; batch += 111) {
      await Promise.all(
        Array.from({ length: 111 }, () => [
          observed.recordSearch("mcp:flood", REQUEST, null, ["movieCredits"]),
          observed.recordCall("mcp:flood", "movieCredits", "success"),
        ]).flat(),
      );
    }
    await observed.close("mcp:flood");
    const flooded = await learnedWords(key, "movieCredits");
    // The flood is one more source, its words at one conversation's weight: each term moves by 1 at most.
    expect(flooded.sources).toBe(2);
    expect(flooded.terms.map((t) => [t.term, t.weight])).toEqual(once.terms.map((t) => [t.term, t.weight + 1]));
  });

  it("a posted trajectory teaches its first tool at explicit weight, later tools their own part", async () => {
    const key = await tenantWithTools("learned-explicit");
    const posted = await service.json("POST", "/v1/graph/trajectories", {
      key,
      body: {
        trajectories: [{ id: "t1", tools: ["searchMovie", "tvSeasons"], task: "Dig up the flick by its title, then list the seasons of its spinoff show" }],
      },
    });
    expect(posted.status).toBe(200);
    const first = await learnedWords(key, "searchMovie");
    expect(first.terms.map((t) => t.term).sort()).toEqual(["dig", "flick", "titl"]);
    expect(first.terms.every((t) => t.weight === 2)).toBe(true);
    const later = await learnedWords(key, "tvSeasons");
    expect(later.terms.map((t) => t.term).sort()).toEqual(["list", "season", "show", "spinoff"]);
    expect(later.terms.every((t) => t.weight === 1)).toBe(true);
  });

  it("a posted trajectory cannot take the ids the service keeps for observed conversations and example requests", async () => {
    const key = await tenantWithTools("learned-reserved");
    for (const id of ["observed:some-conversation:1", "example:tvSeasons"]) {
      const posted = await service.json<{ detail?: string }>("POST", "/v1/graph/trajectories", {
        key,
        body: { trajectories: [{ id, tools: ["tvSeasons"], task: REQUEST }] },
      });
      expect(posted.status).toBe(400);
      expect(posted.headers.get("content-type")).toContain("application/problem+json");
      expect(JSON.stringify(posted.body)).toContain("the service's own");
    }
    // Nothing of the refused requests was stored.
    expect(await learnedWords(key, "tvSeasons")).toEqual({ tool: "tvSeasons", sources: 0, terms: [], ...NOTHING_FROM });
    const graph = await service.json<{ trajectories: unknown[] }>("GET", "/v1/graph", { key });
    expect(graph.body.trajectories).toEqual([]);
  });

  it("a tool chosen where the request's words found nothing is offered for a new such request; one the words found is not", async () => {
    // Open questions: none shares a word with another, or with any tool's own text.
    const questions = ["How many moons has Jupiter", "The capital city of Australia", "How tall is Mount Everest"];
    const asker = await tenantWithTools("learned-unmatched");
    const newQuestion = "Who painted the Mona Lisa";
    expect(await foundBy(asker, newQuestion)).toBeUndefined();
    for (const question of questions) await chat(asker, question, ["askAnything"]);
    expect(await foundBy(asker, newQuestion)).toBe("askAnything");
    // The words of a request that named its tool teach their tool, and nothing for other requests.
    const forecaster = await tenantWithTools("learned-matched");
    for (const city of ["Paris", "Oslo", "Lima"]) await chat(forecaster, `Today's weather forecast for ${city}`, ["weatherToday"]);
    expect(await foundBy(forecaster, newQuestion)).toBeUndefined();
  });

  it("one tenant's learning never changes another's answers", async () => {
    const learner = await tenantWithTools("learned-learner");
    const other = await tenantWithTools("learned-other");
    const before = await route(other, PARAPHRASE, 3);
    for (let i = 0; i < 3; i++) await chat(learner, REQUEST, ["tvSeasons"]);
    expect(await foundBy(learner)).toBe("tvSeasons");
    expect(await route(other, PARAPHRASE, 3)).toEqual(before);
    expect(await learnedWords(other, "tvSeasons")).toEqual({ tool: "tvSeasons", sources: 0, terms: [], ...NOTHING_FROM });
  });
});
