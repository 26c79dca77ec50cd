import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { evaluatorMessages, parseEvaluatorAnswer } from "../../functions/chain/evaluator";
import { attributionMessages, generationMessages, revisionMessages } from "../../functions/chain/prompts";
import { answerChat, DEMO_MODEL_NAME, handleDemoModelRequest, readTypedApi } from "../../functions/demo-model";
import { solveMessages, solveWith } from "../../functions/jobs/solve-with";
import { createModelClient } from "../../functions/llm/client";
import type { ChatMessage } from "../../functions/llm/client";
import { invocationsMatch, parseModelJson, playToPrompt } from "../../functions/prompt-play";
import { exampleRequestMessages, parseExampleRequests, REQUEST_MAX_CHARS, REQUESTS_PER_TOOL } from "../../functions/prompt-play/example-requests";
import {
  proposeDescriptionMessages,
  proposeInvocationMessages,
  reflectDescriptionMessages,
  sampleAnswerMessages,
  sampleQueryMessages,
  scoreDemonstrationMessages,
  validateInvocationMessages,
} from "../../functions/prompt-play/prompts";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importOpenApi } from "../../functions/tools/openapi-import";
import worker from "../../functions/simulated-world/worker";

/**
 * The demo model fed the product's own prompts (so a changed prompt that it no longer
 * understands fails here), its programs run against the simulated world as `npm start` serves it.
 */

const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object;
const tools = new Map((await importOpenApi(document)).tools.map((t) => [t.name, t]));
const tool = (name: string): ToolDefinition => {
  const found = tools.get(name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
};
const RUN_TOOLS = ["getSearchPerson", "getPersonPersonIdMovieCredits", "getSearchMovie", "getMovieMovieIdCredits", "getTvPopular"].map(tool);

const turns = (messages: ChatMessage[]) => messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : "" }));

/** Calls a tool of the demo tenant on the simulated world, as the tools binding would. */
async function callTool(name: string, args: Record<string, unknown>): Promise<unknown> {
  const def = tool(name);
  const path = def.path.replace(/\{([^}]+)\}/g, (_, key: string) => encodeURIComponent(String(args[key])));
  const query = new URLSearchParams(
    def.parameters.filter((p) => p.in === "query" && args[p.name] !== undefined).map((p): [string, string] => [p.name, String(args[p.name])]),
  );
  const response = await worker.fetch(new Request(`http://world.atc.test/tmdb${path}?${query}`));
  if (!response.ok) throw new Error(`${name} answered ${response.status}`);
  return response.json();
}

/** The demo model's program for `task`, run with the tools above. */
async function runTask(task: string): Promise<unknown> {
  const reply = answerChat(turns(generationMessages(task, RUN_TOOLS, new Map())));
  const program = /```ts\n([\s\S]*?)\n```/.exec(reply)?.[1] ?? "";
  const toolsObject = new Proxy({}, { get: (_, name: string) => (args: Record<string, unknown>) => callTool(name, args) });
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (tools: unknown) => Promise<unknown>;
  return new AsyncFunction("tools", program)(toolsObject);
}

describe("the demo model's programs", () => {
  it("answer the README's run questions from the demo world, saying they are the demo model's", async () => {
    const nolan = (await runTask("Which movies did Christopher Nolan direct?")) as { answer: string[]; note: string };
    expect(nolan.answer).toEqual([
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
    ]);
    expect(nolan.note).toMatch(/demo model/);
    expect(await runTask("How many movies has Bradley Cooper acted in?")).toMatchObject({ answer: "18 movies" });
  });

  it("follow the pattern, not the sentence: other names and phrasings work too", async () => {
    expect(await runTask("Who directed the movie Inception?")).toMatchObject({ answer: ["Christopher Nolan"] });
    expect(await runTask("What films did Bradley Cooper direct")).toMatchObject({ answer: ["A Star Is Born", "Maestro"] });
    expect(await runTask("how many films has Tom Hanks starred in?")).toMatchObject({ answer: "6 movies" });
    expect(await runTask("Which movies did Nobody Atall direct?")).toMatchObject({ answer: null });
  });

  it("fail, saying so, for a task they have no pattern for, or without the tools a pattern needs", async () => {
    await expect(runTask("What is the most popular TV show?")).rejects.toThrow(/demo model .*cannot answer this task/);
    const withoutCredits = answerChat(turns(generationMessages("Which movies did Christopher Nolan direct?", [tool("getSearchPerson")], new Map())));
    expect(withoutCredits).toMatch(/throw new Error\(".*not among this run's tools/);
  });

  it("are written for the revision prompt too, with the tool names the typed API shows", () => {
    const messages = revisionMessages(
      "Which movies did Christopher Nolan direct?",
      RUN_TOOLS,
      new Map(),
      [{ program: "x", error: "boom", attributedTool: undefined }],
      undefined,
      2_000,
    );
    expect(answerChat(turns(messages))).toContain("tools.getPersonPersonIdMovieCredits({ person_id: first.id })");
    expect(
      readTypedApi(generationMessages("t", RUN_TOOLS, new Map())[1]?.content ?? "").map((t) => [t.name, t.path, t.parameters.includes("query")]),
    ).toContainEqual(["getSearchPerson", "/search/person", true]);
  });
});

describe("the demo model's other answers", () => {
  it("score a trajectory in the evaluator's form: calls that worked up, failed ones down", () => {
    const messages = evaluatorMessages({
      task: "t",
      succeeded: true,
      steps: [
        { tool: "getSearchPerson", arguments: { query: "x" }, ok: true, outcome: "{}" },
        { tool: "getPersonPersonIdMovieCredits", arguments: { person_id: 1 }, ok: false, outcome: "404" },
      ],
    });
    expect(parseEvaluatorAnswer(answerChat(turns(messages)), 2)).toEqual([2, -2]);
  });

  it("attribute an error to the tool it names", () => {
    const messages = attributionMessages("t", RUN_TOOLS, "await tools.getSearchPerson({})", "getPersonPersonIdMovieCredits answered 404", 2_000);
    expect(answerChat(turns(messages))).toBe("getPersonPersonIdMovieCredits");
  });

  it("play a tool for Play2Prompt: an invocation, its check, a query the solve step reads back, a grade, a description", async () => {
    const credits = tool("getPersonPersonIdMovieCredits");
    const description = credits.description;
    const ask = (messages: ChatMessage[]) => parseModelJson(answerChat(turns(messages)));
    const proposed = ask(proposeInvocationMessages({ tool: credits, description, rejected: [], exploration: { index: 0, of: 2 } }));
    const args = proposed?.["arguments"] as Record<string, unknown>;
    expect(args).toEqual({ person_id: 525 });
    const body = await callTool(credits.name, args);
    expect(ask(validateInvocationMessages({ tool: credits, description, args, status: 200, body }))).toMatchObject({ valid: true });
    expect(ask(validateInvocationMessages({ tool: credits, description, args, status: 404, body: { status_code: 34 } }))).toMatchObject({ valid: false });
    const result = JSON.stringify(body);
    const query = String(ask(sampleQueryMessages({ tool: credits, description, args, result }))?.["query"]);
    expect(query).toContain("person_id=525");
    // The demo base model uses only the parameters a description names.
    expect(ask(solveMessages(credits, description, query))?.["arguments"]).toEqual({});
    const solved = ask(solveMessages(credits, `${description} Takes person_id.`, query))?.["arguments"] as Record<string, unknown>;
    expect(invocationsMatch(solved, args)).toBe(true);
    const answer = String(ask(sampleAnswerMessages({ tool: credits, description, args, result, query }))?.["answer"]);
    expect(ask(scoreDemonstrationMessages({ tool: credits, description, args, result, query, answer }))?.["score"]).toBe(7);
    const better = ask(proposeDescriptionMessages({ tool: credits, description, reflection: "r", exploration: { index: 0, of: 2 } }));
    expect(better?.["description"]).toMatch(/Parameters: person_id \(required, /);
    expect(ask(reflectDescriptionMessages({ tool: credits, description, score: 1, reports: [] }))?.["reflection"]).toEqual(expect.any(String));
  });

  it("carry a whole Play2Prompt job (the documented settings) on the demo world, with working demonstrations", async () => {
    const credits = tool("getPersonPersonIdMovieCredits");
    const turn = (messages: ChatMessage[]) => ({
      content: answerChat(turns(messages)),
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      durationMs: 0,
    });
    const call = async (args: Record<string, unknown>) => {
      try {
        return { ok: true, status: 200, body: await callTool(credits.name, args) };
      } catch (error) {
        return { ok: false, status: 404, body: null, error: String(error) };
      }
    };
    const result = await playToPrompt(
      { tool: credits, settings: { depth: 2, beamWidth: 2, expansionsPerNode: 2, refineSteps: 2, budget: { maxModelCalls: 60, maxTokens: 100_000 } } },
      {
        chat: async (messages) => turn(messages),
        callTool: call,
        solveWith: (description, demonstration) => solveWith(credits, description, demonstration, { chat: async (messages) => turn(messages), call }),
      },
    );
    expect(result.demonstrations.length).toBeGreaterThan(0);
    expect(result.demonstrations.map((d) => d.args["person_id"])).toContain(525);
    // The registered description names no parameter; the one found states them, and solves every demonstration.
    expect(result).toMatchObject({ improved: true, originalScore: 0, bestScore: 1 });
    expect(result.bestDescription).toMatch(/Parameters: person_id \(required, /);
  });

  it("write example requests for imported tools in the form the examples job reads, from each tool's own words", () => {
    const shown = RUN_TOOLS.slice(0, 3).map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters.map((p) => p.name) }));
    const answer = answerChat(turns(exampleRequestMessages(shown)));
    const requests = parseExampleRequests(
      answer,
      shown.map((t) => t.name),
    );
    expect([...(requests?.keys() ?? [])]).toEqual(shown.map((t) => t.name));
    for (const tool of shown) {
      const written = requests?.get(tool.name) ?? [];
      expect(written).toHaveLength(REQUESTS_PER_TOOL);
      expect(written.every((r) => r.length > 0 && r.length <= REQUEST_MAX_CHARS)).toBe(true);
      expect(new Set(written).size).toBe(REQUESTS_PER_TOOL);
    }
    expect(requests?.get("getSearchPerson")?.[2]).toBe("Help me with get search person");
  });

  it("say what they are to a request they do not know", () => {
    expect(answerChat([{ role: "user", content: "Tell me a joke." }])).toMatch(/demo model .*cannot answer/);
  });
});

describe("the demo model on the OpenAI wire", () => {
  it("answers the product's model client as demo-model, with usage", async () => {
    const client = createModelClient(
      {
        baseUrl: "http://127.0.0.1:9/v1",
        apiKey: "demo",
        model: DEMO_MODEL_NAME,
        embeddingModel: undefined,
        timeoutMs: 5_000,
        allowLoopback: true,
        sources: { baseUrl: "env", apiKey: "env", model: "env", embeddingModel: undefined },
      },
      { maxRetries: 0, fetch: (input, init) => handleDemoModelRequest(new Request(input, init)) },
    );
    const result = await client.chat({ messages: generationMessages("Who directed Inception?", RUN_TOOLS, new Map()), purpose: "generate" });
    expect(result.model).toBe("demo-model");
    expect(result.content).toContain("tools.getSearchMovie(");
    expect(result.usage.totalTokens).toBeGreaterThan(0);
  });

  it("answers bad requests with OpenAI's error shape", async () => {
    const notJson = await handleDemoModelRequest(new Request("http://127.0.0.1/v1/chat/completions", { method: "POST", body: "{" }));
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { message: expect.stringMatching(/not JSON/) } });
    expect((await handleDemoModelRequest(new Request("http://127.0.0.1/v1/embeddings", { method: "POST", body: "{}" }))).status).toBe(404);
  });
});
