import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { calibrated } from "../helpers/calibration";
import { connectMcp } from "../helpers/mcp-client";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * The tools a tenant's users chose where the request's words found nothing are a calibrated
 * signal of the first step (first-step-prior.ts unmatchedChoices, routing-calibration.ts): an
 * answer engine asked open questions shares no word with the next question, so the words rank
 * other tools first; as a list of its own it reaches the first 5 from just below. Each remembered
 * task is replayed with what its own conversation taught left out; a tenant whose replay shows
 * the list pushing the right tool out gets it muted.
 */

const tool = (name: string, description: string) => ({ name, method: "GET", url: `https://${name.toLowerCase()}.example.com/run`, description });

// Open questions, one word each that no other question shares; every zoo tool's text holds all
// of them, so the words alone rank the eight zoo tools for any question and never the answer engine.
const ANIMALS = ["walrus", "otter", "badger", "heron", "lynx", "moose", "ferret", "gecko", "ibis", "jackal"];
const ANIMALS_TOO = ["koala", "lemur", "marmot", "newt", "ocelot", "panda", "quokka", "raven", "sloth", "tapir"];
const NEW_QUESTION = "penguin";
const ZOO = ["feed", "wash", "weigh", "count", "tag", "photograph", "vaccinate", "move"];
const zooTools = ZOO.map((errand) => tool(`${errand}Animal`, `${errand} ${[...ANIMALS, ...ANIMALS_TOO, NEW_QUESTION].join(" ")}`));
const answerEngine = tool("askAnything", "Computes answers to natural language queries.");

// Errand tasks whose first tool the words rank fifth: task t's five words are held, first to
// fifth best, by errand tools t … t+4 (the first holds all five words, the fifth only one).
const PREFIXES = ["zor", "quam", "blix", "drel", "fosk", "gryn", "hult", "jinx", "kelv", "lumb", "mirp", "nast"];
const word = (t: number, w: number) => `${PREFIXES[t]}${["ap", "eb", "ig", "od", "uf"][w]}`;
const ERRANDS = ["file", "sort", "stamp", "ship", "scan", "print", "bind", "shred"];
/** How far down task t's ranking errand tool j stands (0: first). */
const place = (j: number, t: number) => (((j - t) % ERRANDS.length) + ERRANDS.length) % ERRANDS.length;
const errandTools = ERRANDS.map((errand, j) =>
  tool(`${errand}Paper`, `${errand} ${PREFIXES.flatMap((_, t) => Array.from({ length: Math.max(0, 5 - place(j, t)) }, (_, w) => word(t, w))).join(" ")}`),
);
const errandTasks = PREFIXES.map((_, t) => ({
  id: `fifth-${t}`,
  task: Array.from({ length: 5 }, (_, w) => word(t, w)).join(" "),
  tools: [`${ERRANDS[(t + 4) % ERRANDS.length]}Paper`],
}));

// Unrelated operations: the zoo's words are rare in a catalog this size, so they outweigh the pseudo-word.
const fillers = Array.from({ length: 40 }, (_, i) => tool(`ledger${i}`, `Ledger operation ${i} of the accounts.`));
const TOOLS = [...zooTools, ...errandTools, ...fillers, answerEngine];

let service: TestService;
const clients: Client[] = [];
// Starting workerd passes the default minute on a loaded shared machine.
beforeAll(async () => {
  service = await startService({ outbound: () => Response.json({ answer: 42 }) });
}, 180_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await service.dispose();
});

/**
 * A tenant with the tools; its usual first tools off, so only the list of choices where the words
 * failed can lift the answer engine (`learning` settings besides).
 */
async function tenant(name: string, learning: { fieldWeight?: number } = {}): Promise<string> {
  const { key } = await createTenant(service, name);
  expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", tools: TOOLS } })).status).toBe(200);
  expect((await service.json("PUT", "/v1/settings/learning", { key, body: { startsWeight: 0, ...learning } })).status).toBe(200);
  return key;
}

/** A chatbot's conversation over MCP: search, call the tool, end the session; no feedback. */
async function chat(key: string, task: string, called: string): Promise<void> {
  const client = await connectMcp(service, key);
  clients.push(client);
  await client.callTool({ name: "find_tools", arguments: { task, k: 5 } }, CallToolResultSchema);
  await client.callTool({ name: "call_tool", arguments: { name: called, arguments: {} } }, CallToolResultSchema);
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
}

const firstFive = async (key: string, task: string): Promise<RouteAnswer["candidates"]> =>
  (await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k: 5 } })).body.candidates;

describe("the tools chosen where the words found nothing count as much as a tenant's own replayed tasks show", () => {
  it("lift the answer engine into the first 5 for a new open question the words rank other tools for", async () => {
    const key = await tenant("unmatched-helps");
    expect((await firstFive(key, NEW_QUESTION)).map((c) => c.name)).not.toContain(answerEngine.name);
    for (const animal of [...ANIMALS, ...ANIMALS_TOO]) await chat(key, animal, answerEngine.name);
    const report = await calibrated(service, "unmatched-helps", key);
    const replay = report.replays.unmatched;
    // Every remembered conversation is judged (the list holds the answer engine without it); sixteen at least are needed to decide.
    expect(replay.judged).toBeGreaterThanOrEqual(16);
    // With its own conversation left out, no question found the answer engine without the list; with it, every one did.
    expect(replay.hits[0]).toBe(0);
    expect(replay.hits[1]).toBe(replay.judged);
    expect(report.weights.unmatched).toBeGreaterThan(0);
    const offered = await firstFive(key, NEW_QUESTION);
    expect(offered.find((c) => c.name === answerEngine.name)?.why?.unmatched).toEqual({ rank: 1 });
    // The words' best match still leads.
    expect(offered[0]?.why?.relevance?.rank).toBe(1);
  }, 240_000);

  it("are muted where the replay shows them pushing the right tool out", async () => {
    // The learned field weak (a tenth of the tool's text), so the answer engine's pseudo-word ranks
    // it just below an errand task's five tools, where the list lifts it past the fifth.
    const key = await tenant("unmatched-hurts", { fieldWeight: 0.1 });
    for (const animal of ANIMALS.slice(0, 4)) await chat(key, animal, answerEngine.name);
    expect((await service.json("POST", "/v1/graph/trajectories", { key, body: { trajectories: errandTasks } })).status).toBe(200);
    const report = await calibrated(service, "unmatched-hurts", key);
    const replay = report.replays.unmatched;
    expect(replay.judged).toBeGreaterThanOrEqual(16);
    // Without the list every errand task's fifth-ranked tool was held and no open question's
    // answer engine; with it, each open question's, and the answer engine pushed the errands' out.
    expect(replay.hits).toEqual([errandTasks.length, replay.judged - errandTasks.length]);
    expect(report.weights.unmatched).toBe(0);
    const offered = await firstFive(key, errandTasks[0]?.task ?? "");
    expect(offered.map((c) => c.name)).toContain(errandTasks[0]?.tools[0]);
    expect(offered.some((c) => c.why?.unmatched !== undefined)).toBe(false);
  }, 240_000);
});
