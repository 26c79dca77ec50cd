import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import {
  answerJson,
  fitToBudget,
  fitToBudgetAsEntries,
  toolViews,
  withToolObjects,
  type AnswerPart,
  type BudgetedAnswer,
  type RankedCandidate,
} from "../../functions/toolnet/answer-budget";
import { END, START } from "../../functions/toolnet/graph";
import { ToolDefinition } from "../../functions/tools/definition";

// An independent o200k_base encoder (the full js-tiktoken entry point), not the service's module.
const encoding = getEncoding("o200k_base");
const tokens = (text: string): number => encoding.encode(text).length;

const weatherTool = (i: number): ToolDefinition =>
  ToolDefinition.parse({
    name: `weather${i}`,
    method: "GET",
    serverUrl: "https://api.example.com",
    path: `/weather/${i}`,
    operation: `GET /weather/${i}`,
    description: `Weather forecast for a city, provider ${i}. Gives temperature, wind and rain by the hour for the coming days.`,
    parameters: [
      { name: "city", in: "query", required: true, description: "City name, e.g. Oslo.", schema: { type: "string" } },
      {
        name: "days",
        in: "query",
        description: "How many days ahead, 1 to 14; the default is three days.",
        schema: { type: "integer", minimum: 1, maximum: 14 },
      },
      { name: "units", in: "query", schema: { type: "string", enum: ["metric", "imperial"] } },
    ],
  });

/** A tool that needs 40 required parameters: no small budget can show it at all. */
const hugeTool = ToolDefinition.parse({
  name: "bulkOrder",
  method: "POST",
  serverUrl: "https://api.example.com",
  path: "/orders",
  operation: "POST /orders",
  description: "Place a bulk order.",
  parameters: Array.from({ length: 40 }, (_, i) => ({ name: `line_item_quantity_${i}`, in: "body", required: true, schema: { type: "integer", minimum: 0 } })),
});

/** The answer parts the tests of the prompt block ask for (the default is the tools array only). */
const BOTH = { include: ["tools", "prompt"] as const };

/** The returned `tools` array; a test fails when it is missing. */
function toolsOf(answer: BudgetedAnswer): NonNullable<BudgetedAnswer["tools"]> {
  if (answer.tools === undefined) throw new Error("the answer has no tools array");
  return answer.tools;
}

/** The returned prompt block; a test fails when it is missing. */
function promptOf(answer: BudgetedAnswer): string {
  if (answer.prompt === undefined) throw new Error("the answer has no prompt block");
  return answer.prompt;
}

const ranked = (defs: ToolDefinition[], end = false): RankedCandidate[] => [
  ...defs.map((def, i) => ({ tool: def.name, weight: 1000 - i * 50, description: def.description, views: toolViews(def) })),
  ...(end ? [{ tool: END, weight: 40, description: "" }] : []),
];

describe("fitToBudget", () => {
  it("reports token counts equal to the tokenizer's count of the returned prompt and tools JSON", () => {
    const result = fitToBudget({ ...BOTH, previous: START, ranked: ranked([1, 2, 3].map(weatherTool)), maxTokens: 2_000 });
    if (!result.ok) throw new Error(result.message);
    const { answer } = result;
    expect(answer.overBudget).toEqual([]);
    expect(answer.tools).toHaveLength(3);
    expect(answer.tokens.prompt).toBe(tokens(promptOf(answer)));
    expect(answer.tokens.tools).toBe(tokens(JSON.stringify(toolsOf(answer))));
    expect(answer.tokens.total).toBe(answer.tokens.prompt + answer.tokens.tools);
    expect(answer.candidates.map((c) => [c.name, c.view])).toEqual([
      ["weather1", "compact"],
      ["weather2", "compact"],
      ["weather3", "compact"],
    ]);
    for (const [i, candidate] of answer.candidates.entries()) expect(candidate.tokens).toBe(tokens(JSON.stringify(toolsOf(answer)[i])));
  });

  it("prompt-names-in-tools: the prompt block gives weights in the tools array's order and repeats no tool's name or description", () => {
    const defs = [1, 2, 3].map(weatherTool);
    const result = fitToBudget({ ...BOTH, previous: "weather0", ranked: ranked(defs, true), maxTokens: 2_000, weights: "fused" });
    if (!result.ok) throw new Error(result.message);
    const { answer } = result;
    expect(toolsOf(answer).map((t) => t.function.name)).toEqual(["weather1", "weather2", "weather3"]);
    expect(promptOf(answer)).toContain("After weather0: the 3 tools in `tools`, best first, weights 1000, 950, 900.");
    expect(promptOf(answer)).toContain("Finish (stop and give the final answer): weight 40.");
    for (const def of defs) {
      expect(promptOf(answer)).not.toContain(def.name);
      expect(promptOf(answer)).not.toContain(String(def.description).slice(0, 20));
    }
    // Each name and description is paid for once, in `tools`: the block costs less than one line per tool did.
    expect(answer.tokens.prompt).toBeLessThan(tokens(defs.map((d) => `${d.name} (weight 1000): ${d.description}`).join("\n")));
  });

  it("counts the prompt block exactly whatever the previous tool is called (its parts are counted one by one)", () => {
    const defs = [1, 2].map(weatherTool);
    for (const previous of ["weather0", "get_v2.search…", "Ünïcode-tööl 東京", "ends with space ", "x", "1234", "a\nb", "!!!"]) {
      for (const weights of ["fused", "transitions"] as const) {
        for (const shown of [defs, []]) {
          const result = fitToBudget({ ...BOTH, previous, ranked: ranked(shown, true), maxTokens: 2_000, weights });
          if (!result.ok) throw new Error(result.message);
          expect(result.answer.tokens.prompt, `${previous} ${weights}`).toBe(tokens(promptOf(result.answer)));
        }
      }
    }
  });

  it("at a tight budget, names every ranked tool it left out, with its cost, and stays within the budget", () => {
    const defs = Array.from({ length: 8 }, (_, i) => weatherTool(i + 1));
    const maxTokens = 400;
    const result = fitToBudget({ ...BOTH, previous: "weather0", ranked: ranked(defs, true), maxTokens });
    if (!result.ok) throw new Error(result.message);
    const { answer } = result;
    expect(answer.tokens.total).toBeLessThanOrEqual(maxTokens);
    expect(answer.tokens.total).toBe(tokens(promptOf(answer)) + tokens(JSON.stringify(toolsOf(answer))));
    const shown = toolsOf(answer).map((t) => t.function.name);
    const left = answer.overBudget.map((o) => o.name);
    expect(shown.length).toBeGreaterThan(0);
    expect(left.length).toBeGreaterThan(0);
    // Nothing silently lost: shown + over budget = everything ranked, best ones shown.
    expect([...shown, ...left]).toEqual(defs.map((d) => d.name));
    for (const item of answer.overBudget) {
      expect(item.reason).toBe("budget");
      expect(item.tokens).toBe(toolViews(defs.find((d) => d.name === item.name) as ToolDefinition).compactTokens);
      expect(item.message).toContain(`maxTokens ${maxTokens}`);
    }
    expect(promptOf(answer)).not.toContain(left[0]);
    expect(answer.candidates.at(-1)?.name).toBe("Finish"); // the end node always stays
  });

  it("shows a tool's required-only view when its compact view does not fit what is left", () => {
    const wordy = ToolDefinition.parse({
      ...weatherTool(9),
      name: "wordyWeather",
      parameters: [
        { name: "city", in: "query", required: true, schema: { type: "string" } },
        ...Array.from({ length: 12 }, (_, i) => ({
          name: `option_${i}`,
          in: "query",
          description: "An optional refinement of the forecast.",
          schema: { type: "string" },
        })),
      ],
    });
    const views = toolViews(wordy);
    const fixed = tokens(fitToBudgetPrompt()) + tokens("[]");
    const maxTokens = fixed + Math.floor((views.requiredOnlyTokens + views.compactTokens) / 2) + 12;
    const result = fitToBudget({ ...BOTH, previous: START, ranked: ranked([wordy]), maxTokens });
    if (!result.ok) throw new Error(result.message);
    expect(result.answer.candidates[0]?.view).toBe("required-only");
    expect(toolsOf(result.answer)[0]?.function.parameters?.required).toEqual(["city"]);
    expect(result.answer.tokens.total).toBeLessThanOrEqual(maxTokens);
  });

  it("reports a tool whose required parameters alone exceed the budget, with a clear message", () => {
    const result = fitToBudget({ ...BOTH, previous: START, ranked: ranked([hugeTool, weatherTool(1)]), maxTokens: 300 });
    if (!result.ok) throw new Error(result.message);
    const [huge] = result.answer.overBudget;
    expect(huge).toMatchObject({ name: "bulkOrder", reason: "required-parameters-exceed-budget" });
    expect(huge?.requiredOnlyTokens).toBeGreaterThan(300);
    expect(huge?.message).toMatch(
      /^bulkOrder: its required parameters alone take \d+ tokens; an answer showing only this tool needs maxTokens ≥ \d+, more than 300/,
    );
    // The next tool still gets its place.
    expect(toolsOf(result.answer).map((t) => t.function.name)).toEqual(["weather1"]);
  });

  it("refuses a budget below what any answer costs, saying how much that is", () => {
    const result = fitToBudget({ ...BOTH, previous: START, ranked: ranked([weatherTool(1)]), maxTokens: 10 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.minimum).toBe(tokens(fitToBudgetPrompt()) + tokens("[]"));
    expect(result.message).toContain(`take ${result.minimum} tokens`);
  });
});

describe("fitToBudget: the parts an answer returns (include)", () => {
  it("by default returns the tools array only, and its count is the whole answer's", () => {
    const defs = [1, 2, 3].map(weatherTool);
    const result = fitToBudget({ previous: "weather0", ranked: ranked(defs, true), maxTokens: 2_000 });
    if (!result.ok) throw new Error(result.message);
    const { answer } = result;
    expect(answer).not.toHaveProperty("prompt");
    expect(toolsOf(answer).map((t) => t.function.name)).toEqual(["weather1", "weather2", "weather3"]);
    expect(answer.tokens).toEqual({ prompt: 0, tools: tokens(JSON.stringify(toolsOf(answer))), total: tokens(JSON.stringify(toolsOf(answer))), budget: 2_000 });
    // The caller still learns the weights and Finish from the candidates list.
    expect(answer.candidates.map((c) => [c.name, c.weight])).toEqual([
      ["weather1", 1000],
      ["weather2", 950],
      ["weather3", 900],
      ["Finish", 40],
    ]);
    const both = fitToBudget({ ...BOTH, previous: "weather0", ranked: ranked(defs, true), maxTokens: 2_000 });
    if (!both.ok) throw new Error(both.message);
    expect(answer.tokens.total).toBe(both.answer.tokens.total - both.answer.tokens.prompt);
  });

  it("tools only, at a tight budget: fits more than with the prompt block, names what it left out, stays within", () => {
    const defs = Array.from({ length: 8 }, (_, i) => weatherTool(i + 1));
    const maxTokens = 400;
    const only = fitToBudget({ previous: "weather0", ranked: ranked(defs, true), maxTokens });
    const both = fitToBudget({ ...BOTH, previous: "weather0", ranked: ranked(defs, true), maxTokens });
    if (!only.ok || !both.ok) throw new Error("refused");
    expect(only.answer.tokens.total).toBeLessThanOrEqual(maxTokens);
    expect(only.answer.tokens.total).toBe(tokens(JSON.stringify(toolsOf(only.answer))));
    expect(toolsOf(only.answer).length).toBeGreaterThan(toolsOf(both.answer).length);
    const shown = toolsOf(only.answer).map((t) => t.function.name);
    expect([...shown, ...only.answer.overBudget.map((o) => o.name)]).toEqual(defs.map((d) => d.name));
    expect(only.answer.overBudget.length).toBeGreaterThan(0);
  });

  it("prompt alone is the paper's eq. 4 list: each tool named with its weight and description, Finish by its weight", () => {
    const defs = [1, 2].map(weatherTool);
    const result = fitToBudget({
      include: ["prompt"],
      previous: "weather0",
      ranked: [...ranked(defs), { tool: END, weight: 970, description: "" }],
      maxTokens: 2_000,
      weights: "fused",
    });
    if (!result.ok) throw new Error(result.message);
    const { answer } = result;
    expect(answer).not.toHaveProperty("tools");
    const lines = promptOf(answer).split("\n");
    expect(lines[0]).toBe("You last used weather0. Tools you can use next, sorted by weight:");
    expect(lines[1]).toBe(`1. weather1 (weight 1000): ${defs[0]?.description}`);
    expect(lines[2]).toMatch(/^2\. Finish \(weight 970\): /);
    expect(lines[3]).toBe(`3. weather2 (weight 950): ${defs[1]?.description}`);
    expect(lines.at(-1)).toContain("Weights (0–1000) join past runs");
    expect(answer.tokens).toEqual({ prompt: tokens(promptOf(answer)), tools: 0, total: tokens(promptOf(answer)), budget: 2_000 });
    expect(answer.candidates.filter((c) => c.name !== "Finish").every((c) => c.view === undefined && (c.tokens ?? 0) > 0)).toBe(true);
  });

  it("prompt alone, at a tight budget: the lines that fit, the rest named with the cost of their line", () => {
    const defs = Array.from({ length: 8 }, (_, i) => weatherTool(i + 1));
    const maxTokens = 150;
    const result = fitToBudget({ include: ["prompt"], previous: START, ranked: ranked(defs), maxTokens });
    if (!result.ok) throw new Error(result.message);
    const { answer } = result;
    expect(answer.tokens.total).toBe(tokens(promptOf(answer)));
    expect(answer.tokens.total).toBeLessThanOrEqual(maxTokens);
    const shown = answer.candidates.map((c) => c.name);
    expect(shown.length).toBeGreaterThan(0);
    for (const name of shown) expect(promptOf(answer)).toContain(`${name} (weight`);
    expect([...shown, ...answer.overBudget.map((o) => o.name)]).toEqual(defs.map((d) => d.name));
    for (const item of answer.overBudget) {
      expect(promptOf(answer)).not.toContain(`${item.name} (weight`);
      expect(item.message).toContain(`maxTokens ${maxTokens}`);
      expect(item.tokens).toBeGreaterThan(10);
    }
  });
});

/** The prompt block of an answer that shows nothing (what every answer from START pays). */
function fitToBudgetPrompt(): string {
  const result = fitToBudget({ ...BOTH, previous: START, ranked: [], maxTokens: 10_000 });
  if (!result.ok) throw new Error(result.message);
  return promptOf(result.answer);
}

describe("answerJson: an answer's JSON text with its tools entries spliced in as their stored text", () => {
  const nul = String.fromCharCode(0);
  const tricky = ToolDefinition.parse({
    ...weatherTool(9),
    name: "quotedTools",
    description: `Shows "tools":"${nul}tools${nul}" and \\u0000tools\\u0000 verbatim, for a café in 東京 🚀.`,
  });
  const defs = [weatherTool(1), tricky, weatherTool(2), hugeTool, weatherTool(3)];

  it("is JSON.stringify of the answer with the views as objects, for every part, budget and key around the array", () => {
    const includes: AnswerPart[][] = [["tools"], ["tools", "prompt"], ["prompt"]];
    for (const include of includes) {
      for (const maxTokens of [2_000, 300, 120]) {
        const input = { include, previous: START, ranked: ranked(defs, true), maxTokens };
        const entries = fitToBudgetAsEntries(input);
        const objects = fitToBudget(input);
        if (!entries.ok || !objects.ok) throw new Error("budget too small for the test");
        // Keys before and after the array, as a route answer has them.
        const wrapped = { previous: null, via: "retrieval", fallback: { method: "partial-match", reason: `"tools":"${nul}tools${nul}"` }, ...entries.answer };
        const expected = JSON.stringify({ previous: null, via: "retrieval", fallback: wrapped.fallback, ...objects.answer });
        expect(answerJson(wrapped), `${include.join("+")} within ${maxTokens}`).toBe(expected);
        expect(withToolObjects(entries.answer)).toEqual(objects.answer);
        expect(Object.keys(withToolObjects(entries.answer))).toEqual(Object.keys(objects.answer));
      }
    }
  });

  it("gives the same answer from views without their JSON text (serialised once) as from stored text", () => {
    const withText = ranked(defs);
    const withoutText = withText.map(({ views, ...candidate }) =>
      views === undefined
        ? candidate
        : {
            ...candidate,
            views: {
              compact: views.compact,
              compactTokens: views.compactTokens,
              requiredOnly: views.requiredOnly,
              requiredOnlyTokens: views.requiredOnlyTokens,
            },
          },
    );
    for (const maxTokens of [2_000, 300]) {
      const a = fitToBudgetAsEntries({ include: ["tools"], previous: START, ranked: withText, maxTokens });
      const b = fitToBudgetAsEntries({ include: ["tools"], previous: START, ranked: withoutText, maxTokens });
      if (!a.ok || !b.ok) throw new Error("budget too small for the test");
      expect(answerJson(a.answer)).toBe(answerJson(b.answer));
    }
  });
});
