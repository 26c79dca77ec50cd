import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import type { ObservedSessionView } from "../../functions/storage/tenant-observed";
import { learnedWordsOf } from "../helpers/learned-words";
import { connectMcp } from "../helpers/mcp-client";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * A careless chatbot (issue 45): a conversation that calls a wrong tool teaches it the request's
 * words. Later conversations with the same words that choose the right tool take them back from
 * it, so one wrong choice does not outlast what the tenant's users do after it.
 */

const TOOLS = [
  {
    name: "famousSayings",
    method: "GET",
    url: "https://api.example.com/sayings",
    description: "Famous sayings of the day, each with a quote from a famous person",
  },
  { name: "convertCurrency", method: "GET", url: "https://api.example.com/convert", description: "Convert an amount of money from one currency to another" },
  { name: "catPicture", method: "GET", url: "https://api.example.com/cat", description: "A random picture of a cat" },
  { name: "weatherToday", method: "GET", url: "https://api.example.com/weather", description: "Today's weather forecast for a city" },
  { name: "searchMovie", method: "GET", url: "https://api.example.com/movie", description: "Search for a movie by its title" },
];

let service: TestService;

beforeAll(async () => {
  service = await startService({ outbound: () => Response.json({ ok: true }) });
});
afterAll(async () => {
  await service.dispose();
});

/** A chatbot's conversation over MCP: search, call one tool, end the session; no feedback. */
async function chat(key: string, task: string, tool: string): Promise<string[]> {
  const client = await connectMcp(service, key);
  try {
    const answer = CallToolResultSchema.parse(await client.callTool({ name: "find_tools", arguments: { task, k: 5 } }, CallToolResultSchema));
    await client.callTool({ name: "call_tool", arguments: { name: tool, arguments: {} } }, CallToolResultSchema);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    return ((answer.structuredContent as { candidates?: { name: string }[] } | undefined)?.candidates ?? []).map((c) => c.name);
  } finally {
    await client.close();
  }
}

/** The first step's candidates by the tools' own text and learned fields (mode "graph" leaves similar tasks' votes out). */
const byWords = async (key: string, task: string): Promise<string[]> =>
  (await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k: 2, mode: "graph" } })).body.candidates.map((c) => c.name);

describe("a careless call's words", () => {
  it("go back to the right tool when later conversations with the same words choose it", async () => {
    const { key } = await createTenant(service, "careless-words");
    expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", source: "mixed", tools: TOOLS } })).status).toBe(200);
    // Other tools learn other words, as in any tenant with traffic.
    await chat(key, "Show me a fluffy kitten", "catPicture");
    await chat(key, "Is it going to rain in Oslo", "weatherToday");
    await chat(key, "That blockbuster flick with the heist", "searchMovie");
    // The words name the sayings tool first; a careless chatbot takes it.
    const request = "Get me a quote for my euros in greenbacks";
    expect((await chat(key, request, "famousSayings"))[0]).toBe("famousSayings");
    expect((await byWords(key, "a quote for euros in greenbacks"))[0]).toBe("famousSayings");
    // Later conversations with those words choose the converter.
    await chat(key, "What quote would I get for euros in greenbacks", "convertCurrency");
    await chat(key, "A quote for my euros in greenbacks please", "convertCurrency");
    expect((await byWords(key, "a quote for euros in greenbacks"))[0]).toBe("convertCurrency");
    // The sayings tool lost the words the later requests share with the careless one; it still counts one conversation.
    const sayings = await learnedWordsOf(service, key, "famousSayings");
    expect(sayings.sources).toBe(1);
    expect(sayings.terms.map((t) => t.term)).toEqual(["get"]);
    // What a conversation took away goes back with it.
    const { sessions } = (await service.json<{ sessions: ObservedSessionView[] }>("GET", "/v1/observed-sessions", { key })).body;
    for (const session of sessions.filter((s) => s.trajectories.some((t) => t.tools[0] === "convertCurrency"))) {
      const deleted = await service.fetch(`/v1/observed-sessions/${encodeURIComponent(session.id)}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` },
      });
      expect(deleted.status).toBe(204);
    }
    expect((await learnedWordsOf(service, key, "famousSayings")).terms.map((t) => [t.term, t.weight])).toEqual([
      ["euro", 1],
      ["get", 1],
      ["greenback", 1],
      ["quot", 1],
    ]);
  });
});
