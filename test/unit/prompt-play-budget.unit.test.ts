import { describe, expect, it } from "vitest";
import { Budget, budgetedChat } from "../../functions/prompt-play/budget";
import { parseModelJson, readArguments, readBoolean, readNumber, readString, stableJson } from "../../functions/prompt-play/model-output";

const usage = (total: number): { promptTokens: number; completionTokens: number; totalTokens: number } => ({
  promptTokens: total - 10,
  completionTokens: 10,
  totalTokens: total,
});

describe("budget", () => {
  it("counts calls and tokens, in total and per purpose", () => {
    const budget = new Budget({ maxModelCalls: 10, maxTokens: 1_000 });
    budget.charge("propose_invocation", usage(100));
    budget.charge("solve", usage(50), 2);
    expect(budget.usage()).toEqual({
      calls: 3,
      promptTokens: 130,
      completionTokens: 20,
      totalTokens: 150,
      byPurpose: {
        propose_invocation: { calls: 1, promptTokens: 90, completionTokens: 10, totalTokens: 100 },
        solve: { calls: 2, promptTokens: 40, completionTokens: 10, totalTokens: 50 },
      },
    });
    expect(budget.remaining()).toEqual({ modelCalls: 7, tokens: 850 });
    expect(budget.exhausted).toBe(false);
  });

  it("is exhausted by calls or by tokens, and then refuses further calls", () => {
    const byCalls = new Budget({ maxModelCalls: 2, maxTokens: 1_000 });
    byCalls.charge("a", usage(10));
    byCalls.check();
    byCalls.charge("a", usage(10));
    expect(byCalls.exhaustedBy).toBe("calls");
    expect(() => byCalls.check()).toThrow(expect.objectContaining({ code: "budget_exhausted" }));

    const byTokens = new Budget({ maxModelCalls: 100, maxTokens: 100 });
    // One call may overshoot (its size is known only afterwards), but it is the last.
    byTokens.charge("a", usage(150));
    expect(byTokens.exhaustedBy).toBe("tokens");
    expect(() => byTokens.check()).toThrow(/token budget is exhausted/);
  });

  it("gives a phase its own limits while charging the whole job", () => {
    const job = new Budget({ maxModelCalls: 10, maxTokens: 10_000 });
    const phase = job.phase({ maxModelCalls: 4, maxTokens: 10_000 });
    for (let i = 0; i < 4; i++) phase.charge("x", usage(20));
    expect(phase.exhausted).toBe(true);
    expect(job.exhausted).toBe(false);
    expect(job.usage().calls).toBe(4);
    // The job running out also stops the phase.
    const small = new Budget({ maxModelCalls: 1, maxTokens: 10_000 });
    const roomy = small.phase({ maxModelCalls: 100, maxTokens: 10_000 });
    small.charge("x", usage(20));
    expect(roomy.exhausted).toBe(true);
  });

  it("restores a checkpointed usage", () => {
    const a = new Budget({ maxModelCalls: 5, maxTokens: 1_000 });
    a.charge("score", usage(40));
    const b = new Budget({ maxModelCalls: 5, maxTokens: 1_000 }, JSON.parse(JSON.stringify(a.usage())) as ReturnType<Budget["usage"]>);
    b.charge("score", usage(40));
    expect(b.usage().byPurpose["score"]).toEqual({ calls: 2, promptTokens: 60, completionTokens: 20, totalTokens: 80 });
    expect(a.usage().calls).toBe(1);
  });

  it("budgets a chat function: checked before, charged after, no call once exhausted", async () => {
    let calls = 0;
    const budget = new Budget({ maxModelCalls: 2, maxTokens: 1_000 });
    const ask = budgetedChat(async (_messages, _purpose: "p") => {
      calls++;
      return { content: `answer ${calls}`, usage: usage(30), durationMs: 1 };
    }, budget);
    expect(await ask([], "p")).toBe("answer 1");
    expect(await ask([], "p")).toBe("answer 2");
    await expect(ask([], "p")).rejects.toMatchObject({ code: "budget_exhausted" });
    expect(calls).toBe(2);
    expect(budget.usage().totalTokens).toBe(60);
  });
});

describe("reading model answers", () => {
  it("reads JSON fenced, bare, or inside prose", () => {
    expect(parseModelJson('```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(parseModelJson('Here you go:\n```\n{"a": 2}\n```\nHope it helps')).toEqual({ a: 2 });
    expect(parseModelJson('  {"a": 3}  ')).toEqual({ a: 3 });
    expect(parseModelJson('Sure! The answer is {"a": {"b": "}{"}} as requested.')).toEqual({ a: { b: "}{" } });
    expect(parseModelJson('```json\n{"a": "escaped \\" quote"}')).toEqual({ a: 'escaped " quote' });
    // A fenced block that is not an object does not hide a later one.
    expect(parseModelJson('```\nnot json\n```\n{"a": 4}')).toEqual({ a: 4 });
  });

  it("returns undefined, never throws, on anything else", () => {
    for (const text of ["", "no json here", "[1, 2, 3]", '{"a": ', "```json\n{broken}\n```", "null", '"a string"']) {
      expect(parseModelJson(text)).toBeUndefined();
    }
    expect(parseModelJson(`${"{".repeat(5_000)}`)).toBeUndefined();
  });

  it("reads fields leniently but within bounds", () => {
    expect(readString({ query: "  find dune  " }, "query")).toBe("find dune");
    expect(readString({ query: "   " }, "query")).toBeUndefined();
    expect(readString({ request: "x" }, "query", "request")).toBe("x");
    expect(readBoolean({ valid: "Yes" }, "valid")).toBe(true);
    expect(readBoolean({ valid: false }, "valid")).toBe(false);
    expect(readBoolean({ valid: "maybe" }, "valid")).toBeUndefined();
    expect(readNumber({ score: 7 }, 0, 10, "score")).toBe(7);
    expect(readNumber({ score: "8/10" }, 0, 10, "score")).toBe(8);
    expect(readNumber({ score: 11 }, 0, 10, "score")).toBeUndefined();
    expect(readNumber({ score: "high" }, 0, 10, "score")).toBeUndefined();
  });

  it("reads tool arguments wrapped, bare, or as a JSON string", () => {
    expect(readArguments({ arguments: { from: "2024-01-01" } })).toEqual({ from: "2024-01-01" });
    expect(readArguments({ args: '{"to": "2024-01-31"}' })).toEqual({ to: "2024-01-31" });
    expect(readArguments({ from: "2024-01-01" })).toEqual({ from: "2024-01-01" });
    expect(readArguments({ arguments: [1] })).toBeUndefined();
  });

  it("writes stable JSON whatever the key order", () => {
    expect(stableJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    expect(stableJson({ a: 1, b: 2 })).toBe(stableJson({ b: 2, a: 1 }));
  });
});
