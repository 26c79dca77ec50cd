import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../functions/llm/client";
import { Budget } from "../../functions/prompt-play/budget";
import type { PlayCheckpoint } from "../../functions/prompt-play/checkpoint";
import { invocationsMatch, runDescriptionSearch } from "../../functions/prompt-play/description-search";
import { playToPrompt } from "../../functions/prompt-play/play2prompt";
import type { PlaySettingsInput } from "../../functions/prompt-play/settings";
import type { Demonstration, PlayDependencies, PlayEvent, PlayPurpose, SolveOutcome, ToolArguments, ToolCallOutcome } from "../../functions/prompt-play/types";
import { ToolDefinition } from "../../functions/tools/definition";

/**
 * The paper's Figure 2: "the tool documentation is outdated, specifying start_date and end_date
 * instead of from and to, in addition to setting them to be required parameters when in fact
 * they are optional". The fake tool rejects the old names with an error that names the new ones;
 * the fake base model uses `from`/`to` only when the description names them; the fake
 * optimisation model first adds detail (as the paper's early states do) and names `from`/`to`
 * once a reflection tells it to. Every fake is a pure function of its input, so runs (and
 * resumed runs) are reproducible.
 */

const tool = ToolDefinition.parse({
  name: "getHistoricalRates",
  method: "GET",
  serverUrl: "https://rates.example.com",
  path: "/history",
  operation: "GET /history",
  description: "Get historical exchange rates between start_date and end_date.",
  parameters: [
    { name: "start_date", in: "query", required: true, schema: { type: "string" }, description: "First day" },
    { name: "end_date", in: "query", required: true, schema: { type: "string" }, description: "Last day" },
    { name: "base", in: "query", required: false, schema: { type: "string" }, description: "Base currency" },
  ],
});
const ORIGINAL = tool.description;
const RENAMED = "Use 'from' and 'to' (YYYY-MM-DD); both are optional.";
const CHAT_USAGE = { promptTokens: 100, completionTokens: 20, totalTokens: 120 };
const SOLVE_USAGE = { promptTokens: 50, completionTokens: 10, totalTokens: 60 };

function namesFromTo(description: string): boolean {
  return description.includes("`from`") && description.includes("`to`");
}

async function rateTool(args: ToolArguments): Promise<ToolCallOutcome> {
  const old = ["start_date", "end_date"].find((k) => k in args);
  if (old !== undefined) return { ok: false, status: 400, body: { error: `Unknown parameter '${old}'. ${RENAMED}` }, error: "HTTP 400" };
  return { ok: true, status: 200, body: { base: args["base"] ?? "EUR", from: args["from"] ?? "latest", to: args["to"] ?? "latest", rates: { USD: 1.08 } } };
}

/** The base model B: it follows the description; queries without dates need none. */
async function solve(description: string, demo: Demonstration): Promise<SolveOutcome> {
  const needsDates = "from" in demo.args || "to" in demo.args;
  if (!needsDates || namesFromTo(description)) return { ok: true, usedArgs: demo.args, output: (await rateTool(demo.args)).body, usage: SOLVE_USAGE };
  const { from, to, ...rest } = demo.args;
  const usedArgs = { start_date: from, end_date: to, ...rest };
  const outcome = await rateTool(usedArgs);
  return { ok: false, usedArgs, error: `HTTP ${outcome.status ?? 0}: ${JSON.stringify(outcome.body)}`, usage: SOLVE_USAGE };
}

const DATE_VARIANTS: ToolArguments[] = [{ from: "2024-01-01", to: "2024-01-31" }, { from: "2023-06-01", to: "2023-06-30", base: "USD" }, { base: "GBP" }];

/** The optimisation model M, as a pure function of the prompt. */
function figure2Model(purpose: PlayPurpose, text: string): string {
  switch (purpose) {
    case "propose_invocation": {
      const k = Number(/Exploration (\d+) of/.exec(text)?.[1] ?? "1");
      const learned = text.includes("Use 'from' and 'to'") || text.includes('"from"');
      // Before any error it trusts the documentation; after it, it follows the error message.
      if (!learned) return JSON.stringify({ arguments: { start_date: "2024-01-01", end_date: "2024-01-31" } });
      return `\`\`\`json\n${JSON.stringify({ arguments: DATE_VARIANTS[(k - 1) % 3] })}\n\`\`\``;
    }
    case "validate_invocation":
      return '{"valid": true, "reason": "rates returned"}';
    case "sample_query": {
      const invocation = /Invocation: (.*)/.exec(text)?.[1] ?? "";
      return JSON.stringify({ query: text.includes("An earlier attempt") ? `Please list the exchange rates for ${invocation}` : `Rates for ${invocation}?` });
    }
    case "sample_answer":
      return '{"answer": "1 EUR was 1.08 USD."}';
    case "score_demonstration":
      return JSON.stringify({ score: text.includes("Please list") ? 9 : 7, reason: "fine" });
    case "reflect_demonstration":
      return '{"reflection": "Try another period or base currency."}';
    case "reflect_description": {
      const current = /Description: (.*)/.exec(text)?.[1] ?? "";
      // Like the paper's early states: first confused, it asks for detail; with detail in place it reads the error.
      const reflection =
        current.includes("YYYY-MM-DD") && text.includes("Use 'from' and 'to'")
          ? "The tool rejects start_date/end_date: it takes optional `from` and `to` (YYYY-MM-DD). Name those in the description."
          : "The assistant is unsure about the dates; describe their format precisely.";
      return JSON.stringify({ reflection });
    }
    case "propose_description": {
      const feedback = /Feedback from watching[^\n]*\n([\s\S]*?)\n\nVariant/.exec(text)?.[1] ?? "";
      const v = Number(/Variant (\d+) of/.exec(text)?.[1] ?? "1");
      if (feedback.includes("`from`") && v >= 2) {
        return JSON.stringify({
          description:
            v === 2
              ? "Historical exchange rates for a period. Pass the optional `from` and `to` dates (YYYY-MM-DD); the documented start_date/end_date are outdated and rejected."
              : "Returns exchange rates between the optional `from` and `to` dates (YYYY-MM-DD), for an optional base currency.",
        });
      }
      const detail = ["", " Both dates are required.", " Give the base currency as a 3-letter code."][(v - 1) % 3] ?? "";
      return JSON.stringify({ description: `Get historical exchange rates between start_date and end_date (YYYY-MM-DD).${detail}` });
    }
  }
}

function textOf(messages: ChatMessage[]): string {
  return messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
}

interface World {
  deps: PlayDependencies;
  chats: { purpose: PlayPurpose; text: string }[];
  solves: { description: string; demo: Demonstration }[];
  events: PlayEvent[];
  checkpoints: PlayCheckpoint[];
  /** Every model call, chat or base-model solve, in order. */
  modelCalls: () => number;
}

/** The fakes, wired; `limit` makes any call past it fail the test loudly. */
function world(limit = Number.POSITIVE_INFINITY): World {
  const chats: World["chats"] = [];
  const solves: World["solves"] = [];
  const events: PlayEvent[] = [];
  const checkpoints: PlayCheckpoint[] = [];
  const guard = (): void => {
    if (chats.length + solves.length >= limit) throw new Error("a model call was made after the budget was exhausted");
  };
  return {
    chats,
    solves,
    events,
    checkpoints,
    modelCalls: () => chats.length + solves.length,
    deps: {
      chat: async (messages, purpose) => {
        guard();
        const text = textOf(messages);
        chats.push({ purpose, text });
        return { content: figure2Model(purpose, text), usage: CHAT_USAGE, durationMs: 1 };
      },
      callTool: rateTool,
      solveWith: async (description, demo) => {
        guard();
        solves.push({ description, demo });
        return solve(description, demo);
      },
      onProgress: (e) => events.push(e),
      // Stored as a job would store it: as JSON.
      onCheckpoint: (state) => void checkpoints.push(JSON.parse(JSON.stringify(state)) as PlayCheckpoint),
    },
  };
}

const demo = (query: string, args: ToolArguments): Demonstration => ({ query, args, resultSummary: "HTTP 200: {…}", answer: "…", score: 0.9 });
const DEMOS = [
  demo("What were EUR rates in January 2024?", { from: "2024-01-01", to: "2024-01-31" }),
  demo("USD rates for June 2023?", { from: "2023-06-01", to: "2023-06-30", base: "USD" }),
  demo("Latest rates against the pound?", { base: "GBP" }),
];
const SEARCH = { depth: 5, beamWidth: 3, expansionsPerNode: 3 };

describe("description search (Algorithm 2) on the paper's Figure 2", () => {
  it("scores the original, then finds a description naming from/to that solves every demonstration", async () => {
    const w = world();
    const budget = new Budget({ maxModelCalls: 1_000, maxTokens: 10_000_000 });
    const result = await runDescriptionSearch({ tool, description: ORIGINAL, demonstrations: DEMOS, settings: SEARCH, budget, deps: w.deps });

    // The original solves only the query that needs no dates.
    expect(result.originalScore).toBeCloseTo(1 / 3);
    expect(result.bestScore).toBe(1);
    expect(namesFromTo(result.bestDescription)).toBe(true);
    expect(result.bestDescription).toContain("start_date/end_date are outdated");
    expect(result.stoppedBy).toBe("converged");

    // The trajectory: depth 1 adds detail (no better), depth 2 applies the from/to reflection.
    expect(result.records.map((r) => r.depth)).toEqual([0, 1, 2]);
    expect(result.records[0]?.beam).toEqual([{ id: "0.0", parentId: null, depth: 0, score: 1 / 3, summary: expect.stringContaining("1/3 solved") }]);
    expect(result.records[1]?.beam.map((e) => e.score)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(result.records[2]?.beam[0]).toMatchObject({ score: 1, parentId: "1.0" });
    const reflections = w.chats.filter((c) => c.purpose === "reflect_description");
    expect(reflections.length).toBe(2);
    expect(reflections[1]?.text).toContain("Use 'from' and 'to'");
    // The proposal that won saw the reflection naming from/to.
    const proposals = w.chats.filter((c) => c.purpose === "propose_description");
    expect(proposals.some((p) => p.text.includes("optional `from` and `to`"))).toBe(true);
    // The original ranks below the winner, and is never replaced by a description that merely ties it.
    expect(result.ranking[0]?.score).toBe(1);
    expect(result.ranking.find((r) => r.description === ORIGINAL)?.score).toBeCloseTo(1 / 3);
    // Base-model solves are charged to the budget.
    expect(budget.usage().byPurpose["solve"]?.calls).toBe(w.solves.length);
  });

  it("stops at the budget with the best found so far, and makes no call after exhaustion", async () => {
    const w = world(10);
    const budget = new Budget({ maxModelCalls: 10, maxTokens: 10_000_000 });
    const result = await runDescriptionSearch({ tool, description: ORIGINAL, demonstrations: DEMOS, settings: SEARCH, budget, deps: w.deps });
    expect(result.stoppedBy).toBe("budget");
    expect(w.modelCalls()).toBe(10);
    expect(budget.usage().calls).toBe(10);
    expect(budget.exhausted).toBe(true);
    expect(result.originalScore).toBeCloseTo(1 / 3);
    expect(result.bestDescription).toBe(ORIGINAL);
    expect(result.bestScore).toBeCloseTo(1 / 3);
    // Root (3 solves) + its reflection + one child (proposal + 3 solves) + the interrupted second child.
    expect(result.records.map((r) => [r.depth, r.candidates.length, r.partial])).toEqual([
      [0, 1, false],
      [1, 1, true],
    ]);
  });

  it("reports null scores when the budget runs out before the original is scored", async () => {
    const w = world(2);
    const result = await runDescriptionSearch({
      tool,
      description: ORIGINAL,
      demonstrations: DEMOS,
      settings: SEARCH,
      budget: new Budget({ maxModelCalls: 2, maxTokens: 1_000 }),
      deps: w.deps,
    });
    expect(result).toMatchObject({ bestDescription: ORIGINAL, bestScore: null, originalScore: null, stoppedBy: "budget", state: undefined });
    expect(w.modelCalls()).toBe(2);
  });

  it("compares invocations by content, not key order or scalar type", () => {
    expect(invocationsMatch({ to: "2024-01-31", from: "2024-01-01" }, { from: "2024-01-01", to: "2024-01-31" })).toBe(true);
    expect(invocationsMatch({ limit: 5 }, { limit: "5" })).toBe(true);
    expect(invocationsMatch({ start_date: "2024-01-01" }, { from: "2024-01-01" })).toBe(false);
  });
});

const JOB: PlaySettingsInput = {
  depth: 2,
  beamWidth: 3,
  expansionsPerNode: 3,
  refineSteps: 2,
  invocationAttempts: 3,
  demonstrations: 3,
  budget: { maxModelCalls: 2_000, maxTokens: 10_000_000, demonstrationShare: 0.5 },
};

describe("a Play2Prompt job on the paper's Figure 2", () => {
  it("plays with the tool, learns from/to from its errors, and ends with a better description", async () => {
    const w = world();
    const result = await playToPrompt({ tool, settings: JOB }, w.deps);

    // Phase 1: every demonstration uses the parameters the tool really accepts.
    expect(result.demonstrations.map((d) => d.args)).toEqual(DATE_VARIANTS);
    expect(result.demonstrations.every((d) => d.score === 0.9 && d.query.startsWith("Please list"))).toBe(true);
    expect(result.demonstrations[0]?.resultSummary).toContain("HTTP 200");
    expect(w.events).toContainEqual(
      expect.objectContaining({ type: "invocation_rejected", reason: expect.stringContaining("Unknown parameter 'start_date'") }),
    );
    expect(result.phases.demonstrations).toBe("depth");
    expect(result.beams.demonstrations.map((r) => r.depth)).toEqual([0, 1, 2]);

    // Phase 2: original vs best, on those demonstrations.
    expect(result.originalDescription).toBe(ORIGINAL);
    expect(result.originalScore).toBeCloseTo(1 / 3);
    expect(result.bestScore).toBe(1);
    expect(result.improved).toBe(true);
    expect(namesFromTo(result.bestDescription)).toBe(true);
    expect(result.stoppedBy).toBe("converged");
    expect(result.phases.descriptions).toBe("converged");

    // Usage: every chat and every solve, by purpose.
    expect(result.usage.calls).toBe(w.modelCalls());
    expect(result.usage.totalTokens).toBe(w.chats.length * CHAT_USAGE.totalTokens + w.solves.length * SOLVE_USAGE.totalTokens);
    expect(result.usage.byPurpose["propose_invocation"]?.calls).toBe(w.chats.filter((c) => c.purpose === "propose_invocation").length);
    expect(result.usage.byPurpose["solve"]?.calls).toBe(w.solves.length);

    // Progress: a beam per depth of each phase, with scores.
    const beams = w.events.flatMap((e) => (e.type === "beam" ? [[e.phase, e.record.depth, e.record.beam[0]?.score] as const] : []));
    expect(beams).toContainEqual(["descriptions", 0, 1 / 3]);
    expect(beams).toContainEqual(["descriptions", 2, 1]);
    expect(beams.filter(([phase]) => phase === "demonstrations").length).toBe(3);
    expect(w.events.filter((e) => e.type === "phase_started").map((e) => (e.type === "phase_started" ? e.phase : ""))).toEqual([
      "demonstrations",
      "descriptions",
    ]);
  });

  it("stops cleanly at the budget, returns the best so far, and makes no call after exhaustion", async () => {
    const w = world(22);
    const result = await playToPrompt({ tool, settings: { ...JOB, budget: { maxModelCalls: 22, maxTokens: 10_000_000, demonstrationShare: 0.5 } } }, w.deps);
    expect(w.modelCalls()).toBe(22);
    expect(result.usage.calls).toBe(22);
    expect(result.stoppedBy).toBe("budget");
    // The demonstration phase had half: one full demonstration (11 calls), then its share was spent.
    expect(result.phases).toEqual({ demonstrations: "budget", descriptions: "budget" });
    expect(result.demonstrations.map((d) => d.args)).toEqual([DATE_VARIANTS[0]]);
    // The description phase scored the original and explored, without finding better before the end.
    expect(result.originalScore).toBe(0);
    expect(result.bestDescription).toBe(ORIGINAL);
    expect(result.improved).toBe(false);
    // Depth 2 was cut short before any of its children was scored: its one proposal repeated its parent.
    expect(result.beams.descriptions.map((r) => r.depth)).toEqual([0, 1]);
  });

  it("resumes from its last checkpoint with a larger budget and finishes without redoing work", async () => {
    const first = world(22);
    const settings = { ...JOB, budget: { maxModelCalls: 22, maxTokens: 10_000_000, demonstrationShare: 0.5 } };
    await playToPrompt({ tool, settings }, first.deps);
    const last = first.checkpoints[first.checkpoints.length - 1];
    expect(last?.demonstrations?.length).toBe(1);
    expect(last?.usage.calls).toBe(22);

    const second = world();
    const result = await playToPrompt({ tool, settings: { ...settings, budget: { ...settings.budget, maxModelCalls: 2_000 } }, resumeFrom: last }, second.deps);
    // The original is not scored again, and the demonstrations are not searched again.
    expect(second.solves.filter((s) => s.description === ORIGINAL)).toEqual([]);
    expect(second.chats.filter((c) => c.purpose === "propose_invocation")).toEqual([]);
    // The interrupted proposal is redone, then scored on the demonstration: two calls.
    expect(second.modelCalls()).toBe(2);
    expect(result.usage.calls).toBe(24);
    expect(result.stoppedBy).toBe("converged");
    expect(result.originalScore).toBe(0);
    expect(result.bestScore).toBe(1);
    expect(namesFromTo(result.bestDescription)).toBe(true);
    expect(result.beams.demonstrations.length).toBeGreaterThan(0);
  });

  it("refuses a checkpoint that is damaged or belongs to another tool", async () => {
    const w = world();
    await expect(playToPrompt({ tool, resumeFrom: { version: 2 } }, w.deps)).rejects.toThrow(expect.objectContaining({ code: "invalid_play_settings" }));
    const first = world(22);
    await playToPrompt({ tool, settings: { ...JOB, budget: { maxModelCalls: 22, maxTokens: 10_000_000 } } }, first.deps);
    await expect(playToPrompt({ tool: { ...tool, name: "otherTool" }, resumeFrom: first.checkpoints[0] }, w.deps)).rejects.toThrow(
      /for tool getHistoricalRates, not otherTool/,
    );
    expect(w.modelCalls()).toBe(0);
  });

  it("refuses bad settings before any model call", async () => {
    const w = world();
    await expect(playToPrompt({ tool, settings: { depth: 0 } }, w.deps)).rejects.toThrow(/depth must be at least 1/);
    await expect(playToPrompt({ tool, settings: { beamWidth: 0 } }, w.deps)).rejects.toThrow(/beamWidth must be at least 1/);
    expect(w.modelCalls()).toBe(0);
  });
});
