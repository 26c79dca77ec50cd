import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObservedSessionView } from "../../functions/storage/tenant-observed";
import { LEARNED_FIELD_WEIGHT } from "../../functions/toolnet/retrieval/learned-field";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { connectMcp } from "../helpers/mcp-client";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

/**
 * Implicit learning (issue 30): what a chatbot searches for and then calls teaches the router,
 * with no feedback call. Conversations are MCP sessions (the SDK client keeps the session id the
 * service hands out) or REST calls with a Conversation-Id header.
 */

const TOOLS = [
  { name: "searchMovie", method: "GET", url: "https://api.example.com/search/movie", description: "Search for a movie by its title" },
  { name: "movieCredits", method: "GET", url: "https://api.example.com/movie/credits", description: "Get the cast and crew of a movie" },
  { name: "movieReviews", method: "GET", url: "https://broken.example.com/movie/reviews", description: "Get the user reviews of a movie" },
  { name: "tvSeasons", method: "GET", url: "https://api.example.com/tv/seasons", description: "List the seasons of a TV show" },
];
const TASK = "Who played in the movie the user is asking about? search the movie first";

let service: TestService;
const clients: Client[] = [];

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  CallToolResultSchema.parse(await client.callTool({ name, arguments: args }, CallToolResultSchema));

async function tenantWithTools(id: string): Promise<string> {
  const { key } = await createTenant(service, id);
  const imported = await service.json("POST", "/v1/tools/import", { key, body: { format: "list", source: "movies", tools: TOOLS } });
  expect(imported.status).toBe(200);
  return key;
}

async function connect(key: string): Promise<Client> {
  const client = await connectMcp(service, key);
  clients.push(client);
  return client;
}

/** The client ends its session (HTTP DELETE with its session id), as a chat client does when a conversation ends. */
async function endSession(client: Client): Promise<void> {
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
}

async function sessions(key: string): Promise<ObservedSessionView[]> {
  const listed = await service.json<{ sessions: ObservedSessionView[] }>("GET", "/v1/observed-sessions", { key });
  expect(listed.status).toBe(200);
  return listed.body.sessions;
}

async function graph(key: string): Promise<{ nodes: { tool: string; score: number }[]; trajectories: { id: string; tools: string[] }[] }> {
  return (await service.json<{ nodes: { tool: string; score: number }[]; trajectories: { id: string; tools: string[] }[] }>("GET", "/v1/graph", { key })).body;
}

const scoreOf = async (key: string, tool: string): Promise<number | undefined> => (await graph(key)).nodes.find((n) => n.tool === tool)?.score;

/** A chatbot's conversation over MCP: search, then call the tools in order, never give feedback. */
async function chat(key: string, task: string, tools: readonly string[]): Promise<Client> {
  const client = await connect(key);
  expect((await call(client, "find_tools", { task, k: 5 })).isError).toBeUndefined();
  for (const tool of tools) await call(client, "call_tool", { name: tool, arguments: {} });
  return client;
}

beforeAll(async () => {
  service = await startService({
    outbound: (request) =>
      new URL(request.url).hostname === "broken.example.com" ? new Response("down", { status: 503 }) : Response.json({ results: [{ id: 1 }] }),
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await service.dispose();
});

describe("implicit learning from observed conversations", () => {
  it("a search followed by two calls in one MCP session becomes one trajectory with the task text", async () => {
    const key = await tenantWithTools("observed-join");
    const client = await chat(key, TASK, ["searchMovie", "movieCredits"]);
    await endSession(client);
    const [session] = await sessions(key);
    expect(session?.id).toMatch(/^mcp:/);
    expect(session?.closedAt).not.toBeNull();
    expect(session?.trajectories.map((t) => ({ task: t.task, tools: t.tools, outcomes: t.outcomes }))).toEqual([
      { task: TASK, tools: ["searchMovie", "movieCredits"], outcomes: ["success", "success"] },
    ]);
    const learned = (await graph(key)).trajectories.filter((t) => t.id.startsWith("observed:"));
    expect(learned).toEqual([{ id: `observed:${session?.id}:1`, tools: ["searchMovie", "movieCredits"] }]);
    // The 2xx calls are weak successes: +1 each.
    expect(await scoreOf(key, "searchMovie")).toBe(1);
    // First-step learning: the same task now has the tenant's history behind its first tool.
    const routed = await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task: TASK, k: 5 } });
    expect(routed.body.candidates.find((c) => c.name === "searchMovie")?.why?.history).toEqual({ tasks: 1 });
  });

  it("a call with no search before it teaches nothing", async () => {
    const key = await tenantWithTools("observed-no-search");
    const client = await connect(key);
    await call(client, "call_tool", { name: "searchMovie", arguments: {} });
    await call(client, "call_tool", { name: "movieCredits", arguments: {} });
    await endSession(client);
    expect(await sessions(key)).toEqual([]);
    expect((await graph(key)).trajectories).toEqual([]);
    expect(await scoreOf(key, "searchMovie")).toBe(0);
  });

  it("an explicit score overrides the implicit outcome, sent before the conversation ends or after", async () => {
    const key = await tenantWithTools("observed-explicit");
    // The failing tool (503) would get −1; the conversation scores it +2 itself.
    const client = await chat(key, "Read what people think of the film", ["movieReviews"]);
    expect((await call(client, "give_feedback", { tools: ["movieReviews"], score: 2 })).isError).toBeUndefined();
    await endSession(client);
    expect(await scoreOf(key, "movieReviews")).toBe(2);
    expect((await sessions(key))[0]?.trajectories[0]?.outcomes).toEqual(["failure"]);

    // REST: the trajectory is closed (and its −1 applied) by the next task's search; feedback in the same conversation afterwards takes the −1 back.
    const headers = { "conversation-id": "chat-42" };
    await service.json("POST", "/v1/route", { key, headers, body: { task: "Read what people think of the film", k: 5 } });
    await service.json("POST", "/v1/tools/movieReviews/call", { key, headers, body: { arguments: {} } });
    await service.json("POST", "/v1/route", { key, headers, body: { task: "Which seasons does the show have", k: 5 } });
    expect(await scoreOf(key, "movieReviews")).toBe(1);
    const feedback = await service.json("POST", "/v1/feedback", { key, headers, body: { tools: ["movieReviews"], scores: [3] } });
    expect(feedback.status).toBe(200);
    expect(await scoreOf(key, "movieReviews")).toBe(5);
  });

  it("implicit evidence is bounded per tool, so it never outweighs one explicit score", async () => {
    const key = await tenantWithTools("observed-bounded");
    for (let i = 0; i < 4; i++) await endSession(await chat(key, `Find the film number ${i}`, ["searchMovie"]));
    expect(await scoreOf(key, "searchMovie")).toBe(2);
  });

  it("caps what one conversation teaches: steps per trajectory", async () => {
    const key = await tenantWithTools("observed-capped");
    const client = await chat(
      key,
      TASK,
      Array.from({ length: 30 }, () => "searchMovie"),
    );
    await endSession(client);
    expect((await sessions(key))[0]?.trajectories[0]?.tools).toHaveLength(12);
  });

  it("turning it off stops recording at the next request", async () => {
    const key = await tenantWithTools("observed-off");
    const client = await connect(key);
    await call(client, "find_tools", { task: TASK, k: 5 });
    const off = await service.json("PUT", "/v1/settings/learning", { key, body: { implicit: false } });
    expect(off.body).toEqual({ implicit: false, retentionDays: 30, idleMinutes: 30, fieldWeight: LEARNED_FIELD_WEIGHT, startsWeight: 1 });
    await call(client, "call_tool", { name: "searchMovie", arguments: {} });
    await endSession(client);
    expect((await sessions(key))[0]?.trajectories).toEqual([]);
    await endSession(await chat(key, TASK, ["searchMovie"]));
    expect(await sessions(key)).toHaveLength(1);
    expect((await graph(key)).trajectories).toEqual([]);
  });

  it("an idle conversation is closed by the alarm, and retention reduces its task text to terms", async () => {
    const key = await tenantWithTools("observed-retention");
    await chat(key, 'Who starred in "Heat", the film Michael Mann made in 1995?', ["searchMovie", "movieCredits"]);
    const observed = (await tenantObject(service, "observed-retention")).store("observed");
    expect((await sessions(key))[0]?.trajectories).toEqual([]);
    expect(await observed.alarmWork(Date.now() + 31 * 60_000)).toEqual({ closed: 1, reduced: 0 });
    expect((await sessions(key))[0]?.trajectories[0]?.task).toContain("Heat");
    expect(await observed.alarmWork(Date.now() + 31 * 86_400_000)).toEqual({ closed: 0, reduced: 1 });
    const [trajectory] = (await sessions(key))[0]?.trajectories ?? [];
    expect(trajectory?.task).toBeNull();
    expect(trajectory?.terms).toBe("film made starred");
    // What learning needs stays: a similar task still finds the tenant's history.
    const routed = await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task: "Who starred in that film?", k: 5 } });
    expect(routed.body.candidates.find((c) => c.name === "searchMovie")?.why?.history).toEqual({ tasks: 1 });
  });

  it("deleting an observed conversation unlearns it", async () => {
    const key = await tenantWithTools("observed-delete");
    await endSession(await chat(key, TASK, ["searchMovie", "movieCredits"]));
    const [session] = await sessions(key);
    const deleted = await service.fetch(`/v1/observed-sessions/${encodeURIComponent(session?.id ?? "")}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(deleted.status).toBe(204);
    expect(await sessions(key)).toEqual([]);
    expect((await graph(key)).trajectories).toEqual([]);
    expect(await scoreOf(key, "searchMovie")).toBe(0);
    const missing = await service.json<{ type: string }>("DELETE", "/v1/observed-sessions/mcp:nope", { key });
    expect(missing.status).toBe(404);
    expect(missing.body.type).toMatch(/not-found$/);
  });

  it("one tenant's sessions never change another tenant's routing", async () => {
    const learner = await tenantWithTools("observed-learner");
    const other = await tenantWithTools("observed-other");
    const before = await service.json<RouteAnswer>("POST", "/v1/route", { key: other, body: { task: TASK, k: 5 } });
    for (let i = 0; i < 3; i++) await endSession(await chat(learner, TASK, ["movieCredits", "tvSeasons"]));
    const after = await service.json<RouteAnswer>("POST", "/v1/route", { key: other, body: { task: TASK, k: 5 } });
    expect(after.body).toEqual(before.body);
    expect(await sessions(other)).toEqual([]);
    expect((await graph(other)).trajectories).toEqual([]);
    const learned = await service.json<RouteAnswer>("POST", "/v1/route", { key: learner, body: { task: TASK, k: 5 } });
    expect(learned.body.candidates[0]?.name).toBe("movieCredits");
  });

  it("a Conversation-Id that is not visible ASCII is a 400 problem", async () => {
    const key = await tenantWithTools("observed-bad-id");
    const answer = await service.json<{ type: string; status: number }>("POST", "/v1/route", {
      key,
      headers: { "conversation-id": "x".repeat(200) },
      body: { task: TASK },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.status).toBe(400);
  });

  it("the learning curve counts searches whose offered tools were called next, and sessions learned from", async () => {
    const key = await tenantWithTools("observed-curve");
    await endSession(await chat(key, TASK, ["searchMovie", "movieCredits"]));
    const curve = await service.json<{ days: { day: string; searches: number; offeredHits: number; trajectories: number; sessions: number }[] }>(
      "GET",
      "/v1/learning-curve",
      { key },
    );
    expect(curve.body.days).toEqual([{ day: new Date().toISOString().slice(0, 10), searches: 1, offeredHits: 1, trajectories: 1, sessions: 1 }]);
  });
});
