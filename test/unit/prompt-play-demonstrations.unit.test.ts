import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../functions/llm/client";
import { Budget } from "../../functions/prompt-play/budget";
import { runDemonstrationSearch, type DemonstrationSettings } from "../../functions/prompt-play/demonstration-search";
import type { PlayEvent, PlayPurpose, ToolArguments, ToolCallOutcome } from "../../functions/prompt-play/types";
import { ToolDefinition } from "../../functions/tools/definition";

/**
 * Algorithm 1 with a scripted optimisation model and a fake tool: invocations are rejected when
 * the tool errors (without asking the judge) or when the judge says so, the next proposal sees
 * the reason, unreadable answers are rejected samples, and the rollout and the reflections feed
 * the next step.
 */

const tool = ToolDefinition.parse({
  name: "searchBooks",
  method: "GET",
  serverUrl: "https://books.example.com",
  path: "/search",
  operation: "GET /search",
  description: "Search books.",
  parameters: [
    { name: "title", in: "query", required: true, schema: { type: "string" } },
    { name: "limit", in: "query", required: false, schema: { type: "integer" } },
  ],
});

const usage = { promptTokens: 20, completionTokens: 10, totalTokens: 30 };

interface Call {
  purpose: PlayPurpose;
  text: string;
}

function textOf(messages: ChatMessage[]): string {
  return messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
}

/** A scripted model: `answer` gets the purpose, the prompt text and how many calls of that purpose came before. */
function scriptedModel(answer: (purpose: PlayPurpose, text: string, nth: number) => string): {
  chat: (messages: ChatMessage[], purpose: PlayPurpose) => Promise<{ content: string; usage: typeof usage; durationMs: number }>;
  calls: Call[];
} {
  const calls: Call[] = [];
  const counts = new Map<PlayPurpose, number>();
  return {
    calls,
    chat: async (messages, purpose) => {
      const text = textOf(messages);
      calls.push({ purpose, text });
      const nth = counts.get(purpose) ?? 0;
      counts.set(purpose, nth + 1);
      return { content: answer(purpose, text, nth), usage, durationMs: 1 };
    },
  };
}

const settings: DemonstrationSettings = { depth: 1, beamWidth: 3, expansionsPerNode: 1, refineSteps: 1, invocationAttempts: 4, demonstrations: 3 };

function standardRollout(purpose: PlayPurpose): string | undefined {
  switch (purpose) {
    case "validate_invocation":
      return '{"valid": true, "reason": "a list of books"}';
    case "sample_query":
      return '{"query": "Find me the book Dune"}';
    case "sample_answer":
      return '{"answer": "Dune, by Frank Herbert (1965)."}';
    case "score_demonstration":
      return '```json\n{"score": 8, "reason": "clear"}\n```';
    case "reflect_demonstration":
      return '{"reflection": "Also exercise the limit parameter."}';
    default:
      return undefined;
  }
}

describe("demonstration search (Algorithm 1)", () => {
  it("rejects an invocation the tool refuses, without asking the judge, and refines it with the error message", async () => {
    const toolCalls: ToolArguments[] = [];
    const callTool = async (args: ToolArguments): Promise<ToolCallOutcome> => {
      toolCalls.push(args);
      if (!("title" in args)) return { ok: false, status: 400, body: { error: "Missing required parameter 'title'" }, error: "HTTP 400" };
      return { ok: true, status: 200, body: [{ title: "Dune", author: "Frank Herbert" }] };
    };
    const model = scriptedModel((purpose, text) => {
      if (purpose === "propose_invocation")
        return text.includes("Missing required parameter 'title'") ? 'Sure:\n```json\n{"arguments": {"title": "Dune"}}\n```' : '{"arguments": {"q": "Dune"}}';
      return standardRollout(purpose) ?? "";
    });
    const events: PlayEvent[] = [];
    const result = await runDemonstrationSearch({
      tool,
      description: "Search books.",
      settings,
      budget: new Budget({ maxModelCalls: 100, maxTokens: 100_000 }),
      deps: { chat: model.chat, callTool, onProgress: (e) => events.push(e) },
    });

    expect(toolCalls).toEqual([{ q: "Dune" }, { title: "Dune" }]);
    const proposals = model.calls.filter((c) => c.purpose === "propose_invocation");
    expect(proposals.length).toBe(2);
    expect(proposals[0]?.text).not.toContain("Missing required parameter");
    expect(proposals[1]?.text).toContain('{"q":"Dune"} → HTTP 400');
    expect(proposals[1]?.text).toContain("Missing required parameter 'title'");
    // The judge is asked only about the call that worked.
    expect(model.calls.filter((c) => c.purpose === "validate_invocation").length).toBe(1);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "invocation_rejected",
        attempt: 1,
        args: { q: "Dune" },
        reason: expect.stringContaining("Missing required parameter 'title'"),
      }),
    );

    expect(result.demonstrations).toEqual([
      {
        query: "Find me the book Dune",
        args: { title: "Dune" },
        resultSummary: 'HTTP 200: [{"title":"Dune","author":"Frank Herbert"}]',
        answer: "Dune, by Frank Herbert (1965).",
        score: 0.8,
      },
    ]);
    expect(result.stoppedBy).toBe("depth");
  });

  it("rejects an invocation the judge finds invalid and passes the judge's reason to the next proposal", async () => {
    const callTool = async (args: ToolArguments): Promise<ToolCallOutcome> => ({
      ok: true,
      status: 200,
      body: args["title"] === "Xyzzy" ? [] : [{ title: "Emma" }],
    });
    const model = scriptedModel((purpose, text) => {
      if (purpose === "propose_invocation") return text.includes("no books match") ? '{"arguments": {"title": "Emma"}}' : '{"arguments": {"title": "Xyzzy"}}';
      if (purpose === "validate_invocation")
        return text.includes("Xyzzy") ? '{"valid": false, "reason": "no books match a made-up title"}' : '{"valid": "yes", "reason": "ok"}';
      return standardRollout(purpose) ?? "";
    });
    const result = await runDemonstrationSearch({
      tool,
      description: "Search books.",
      settings,
      budget: new Budget({ maxModelCalls: 100, maxTokens: 100_000 }),
      deps: { chat: model.chat, callTool },
    });
    const proposals = model.calls.filter((c) => c.purpose === "propose_invocation");
    expect(proposals.length).toBe(2);
    expect(proposals[1]?.text).toContain("judged invalid: no books match a made-up title");
    expect(result.demonstrations[0]?.args).toEqual({ title: "Emma" });
  });

  it("treats unreadable answers as rejected samples and never throws", async () => {
    const callTool = async (): Promise<ToolCallOutcome> => ({ ok: true, status: 200, body: [{ title: "Dune" }] });
    const model = scriptedModel((purpose, _text, nth) => {
      if (purpose === "propose_invocation") return nth === 0 ? "I would search for Dune." : '{"title": "Dune"}';
      if (purpose === "validate_invocation") return nth === 0 ? "looks fine to me" : '{"valid": true}';
      if (purpose === "sample_query") return "{not json";
      return standardRollout(purpose) ?? "";
    });
    const result = await runDemonstrationSearch({
      tool,
      description: "Search books.",
      settings: { ...settings, refineSteps: 2 },
      budget: new Budget({ maxModelCalls: 100, maxTokens: 100_000 }),
      deps: { chat: model.chat, callTool },
    });
    const proposals = model.calls.filter((c) => c.purpose === "propose_invocation");
    // Unreadable proposal, then an unreadable verdict, then a valid invocation (the bare object is read as arguments).
    expect(proposals.length).toBe(3);
    expect(proposals[1]?.text).toContain("(unreadable answer)");
    expect(proposals[2]?.text).toContain("the validity check gave no readable verdict");
    // Every query was unreadable: no demonstration, no answer/score calls, and the search ends quietly.
    expect(model.calls.filter((c) => c.purpose === "sample_query").length).toBe(2);
    expect(model.calls.filter((c) => c.purpose === "sample_answer").length).toBe(0);
    expect(result.demonstrations).toEqual([]);
    expect(result.stoppedBy).toBe("converged");
  });

  it("bounds the rejection sampling by invocationAttempts", async () => {
    let toolCalls = 0;
    const callTool = async (): Promise<ToolCallOutcome> => {
      toolCalls++;
      throw new Error("connection refused");
    };
    const model = scriptedModel((purpose) => (purpose === "propose_invocation" ? '{"arguments": {"title": "Dune"}}' : ""));
    const result = await runDemonstrationSearch({
      tool,
      description: "Search books.",
      settings: { ...settings, expansionsPerNode: 2, invocationAttempts: 3 },
      budget: new Budget({ maxModelCalls: 100, maxTokens: 100_000 }),
      deps: { chat: model.chat, callTool },
    });
    expect(toolCalls).toBe(2 * 3);
    expect(model.calls.length).toBe(2 * 3);
    expect(model.calls[1]?.text).toContain("connection refused");
    expect(result.demonstrations).toEqual([]);
  });

  it("rolls out N_refine steps with the last reflection, keeps the best-scored step, and gives its reflection to the children", async () => {
    const callTool = async (args: ToolArguments): Promise<ToolCallOutcome> => ({ ok: true, status: 200, body: [{ title: String(args["title"]) }] });
    const model = scriptedModel((purpose, text, nth) => {
      switch (purpose) {
        case "propose_invocation":
          return text.includes("An earlier valid invocation") ? '{"arguments": {"title": "Emma", "limit": 1}}' : '{"arguments": {"title": "Dune"}}';
        case "sample_query":
          return JSON.stringify({ query: text.includes("An earlier attempt") ? `Refined query ${nth}` : `First query ${nth}` });
        case "score_demonstration":
          return JSON.stringify({ score: text.includes("Refined query") ? 9 : 6, reason: "r" });
        case "reflect_demonstration":
          return JSON.stringify({ reflection: `reflection ${nth}: try the limit parameter` });
        default:
          return standardRollout(purpose) ?? "";
      }
    });
    const result = await runDemonstrationSearch({
      tool,
      description: "Search books.",
      settings: { depth: 2, beamWidth: 1, expansionsPerNode: 1, refineSteps: 3, invocationAttempts: 2, demonstrations: 2 },
      budget: new Budget({ maxModelCalls: 100, maxTokens: 100_000 }),
      deps: { chat: model.chat, callTool },
    });
    const queries = model.calls.filter((c) => c.purpose === "sample_query");
    expect(queries.length).toBe(6);
    expect(queries[0]?.text).not.toContain("An earlier attempt");
    expect(queries[1]?.text).toContain("An earlier attempt scored 6/10");
    expect(queries[1]?.text).toContain("reflection 0: try the limit parameter");
    // The child's invocation is proposed from the parent's invocation and the best step's reflection.
    const childProposal = model.calls.filter((c) => c.purpose === "propose_invocation")[1];
    expect(childProposal?.text).toContain('An earlier valid invocation: {"title":"Dune"}');
    expect(childProposal?.text).toContain("reflection 1: try the limit parameter");
    expect(result.demonstrations.map((d) => [d.query, d.score, d.args])).toEqual([
      ["Refined query 1", 0.9, { title: "Dune" }],
      ["Refined query 4", 0.9, { title: "Emma", limit: 1 }],
    ]);
    expect(result.records.map((r) => r.beam.length)).toEqual([1, 1, 1]);
  });

  it("stops mid-expansion when the budget runs out: no call after exhaustion, best so far kept", async () => {
    const callTool = async (args: ToolArguments): Promise<ToolCallOutcome> => ({ ok: true, status: 200, body: [args] });
    const model = scriptedModel((purpose, _text, nth) => {
      if (purpose === "propose_invocation") return JSON.stringify({ arguments: { title: `Book ${nth}` } });
      if (purpose === "sample_query") return JSON.stringify({ query: `Find book ${nth}` });
      return standardRollout(purpose) ?? "";
    });
    // One full expansion is 2 + 4 calls; the second stops after its query and answer.
    const budget = new Budget({ maxModelCalls: 10, maxTokens: 1_000_000 });
    const result = await runDemonstrationSearch({
      tool,
      description: "Search books.",
      settings: { depth: 3, beamWidth: 2, expansionsPerNode: 2, refineSteps: 1, invocationAttempts: 2, demonstrations: 2 },
      budget,
      deps: { chat: model.chat, callTool },
    });
    expect(result.stoppedBy).toBe("budget");
    expect(model.calls.length).toBe(10);
    expect(model.calls.map((c) => c.purpose).slice(6)).toEqual(["propose_invocation", "validate_invocation", "sample_query", "sample_answer"]);
    expect(budget.usage()).toMatchObject({ calls: 10, totalTokens: 300 });
    expect(result.demonstrations.map((d) => d.query)).toEqual(["Find book 0"]);
    // The interrupted expansion is not counted, so a resumed job redoes it.
    expect(result.state.next).toBe(1);
  });

  it("stops once M perfect demonstrations are found", async () => {
    const callTool = async (args: ToolArguments): Promise<ToolCallOutcome> => ({ ok: true, status: 200, body: [args] });
    const model = scriptedModel((purpose, text, nth) => {
      if (purpose === "propose_invocation") return JSON.stringify({ arguments: { title: `Book ${nth}` } });
      if (purpose === "sample_query") return JSON.stringify({ query: `Find ${/Invocation: (.*)/.exec(text)?.[1] ?? ""}` });
      if (purpose === "score_demonstration") return '{"score": 10}';
      return standardRollout(purpose) ?? "";
    });
    const result = await runDemonstrationSearch({
      tool,
      description: "Search books.",
      settings: { depth: 5, beamWidth: 3, expansionsPerNode: 3, refineSteps: 5, invocationAttempts: 2, demonstrations: 3 },
      budget: new Budget({ maxModelCalls: 1_000, maxTokens: 1_000_000 }),
      deps: { chat: model.chat, callTool },
    });
    expect(result.stoppedBy).toBe("converged");
    expect(result.records.length).toBe(2);
    expect(result.demonstrations.length).toBe(3);
    // A perfect step ends its rollout early.
    expect(model.calls.filter((c) => c.purpose === "sample_query").length).toBe(3);
  });
});
