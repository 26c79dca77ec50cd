import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer as answerOverMcp } from "../../examples/mcp-chat-loop";
import { answer as answerOverRest } from "../../examples/openai-chat-loop";
import { serviceFetch } from "../helpers/mcp-client";
import { createScriptedModel, type ScriptedChatRequest, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * The chatbot loops of examples/ run end to end: the service as the other integration tests start
 * it (the demo world's TMDB behind it), and an OpenAI-compatible endpoint scripted like a model
 * that searches for a person, asks for their credits, and then answers from what the tools said.
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const SERVICE_URL = "http://atc.test";
const MODEL = { baseURL: "https://model.example.test/v1", apiKey: "sk-example-model-key", model: "scripted" };
const QUESTION = "How many movies has Bradley Cooper acted in?";

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };

/** The tool messages of a chat request, parsed. */
function toolResults(request: ScriptedChatRequest): unknown[] {
  return request.body.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)) as unknown);
}

/** The first `results[].id` in a tool result, however the face wrapped it. */
function firstResultId(result: unknown): number {
  const id = /"results":\[\{[^\]]*?"id":(\d+)/.exec(JSON.stringify(result))?.[1];
  if (id === undefined) throw new Error(`no results[].id in ${JSON.stringify(result).slice(0, 300)}`);
  return Number(id);
}

/** How many distinct titles the credits result lists under `cast`. */
function castTitles(result: unknown): number {
  return new Set([...JSON.stringify(result).matchAll(/"title":"([^"]*)"/g)].map((m) => m[1])).size;
}

beforeAll(async () => {
  model = createScriptedModel({ apiKey: MODEL.apiKey });
  service = await startService();
  tenant = await createTenant(service, "examples");
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
});
afterAll(async () => service.dispose());

/** A model that searches, reads the credits, then answers. */
function scriptTheModel(): void {
  model.reset();
  model.on({
    name: "answer",
    match: (r) => toolResults(r).length >= 2,
    answer: (r) => ({ text: `Bradley Cooper acted in ${castTitles(toolResults(r).at(-1))} movies.` }),
  });
  model.on({
    name: "credits",
    match: (r) => toolResults(r).length === 1,
    answer: (r) => ({ toolCalls: [{ name: "getPersonPersonIdMovieCredits", arguments: { person_id: firstResultId(toolResults(r)[0]) } }] }),
  });
  model.on({ name: "search", answer: { toolCalls: [{ name: "getSearchPerson", arguments: { query: "Bradley Cooper" } }] } });
}

/** The service for the examples' service URL, the scripted model for the rest. */
function network(): typeof fetch {
  const toService = serviceFetch(service);
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return url.startsWith(SERVICE_URL) ? toService(input, init) : model.fetch(input, init);
  };
}

describe.each([
  ["the openai SDK over REST (examples/openai-chat-loop.ts)", answerOverRest],
  ["the MCP SDK client (examples/mcp-chat-loop.ts)", answerOverMcp],
])("the chatbot loop with %s", (_face, answer) => {
  it("routes, lets the model pick from the tools array, calls through the service, routes again with previousTool, until the model answers", async () => {
    scriptTheModel();
    const result = await answer(QUESTION, SERVICE_URL, tenant.key, MODEL, network());

    expect(result.toolsCalled).toEqual(["getSearchPerson", "getPersonPersonIdMovieCredits"]);
    expect(result.modelCalls).toBe(3);
    expect(result.answer).toMatch(/^Bradley Cooper acted in \d+ movies\.$/);
    expect(Number(/\d+/.exec(result.answer)?.[0])).toBeGreaterThan(0);
    // Each step's tools came from routing: the first step offers the search, the second (after
    // previousTool) the credits the model then called.
    const offered = model.chatRequests.map((r) => ((r.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name));
    expect(offered[0]).toContain("getSearchPerson");
    expect(offered[1]).toContain("getPersonPersonIdMovieCredits");
    expect(offered.flat()).not.toContain("Finish");
  });
});
