import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import {
  addTools,
  addTrajectories,
  applyFeedback,
  createGraph,
  END,
  formatPromptBlock,
  removeTool,
  START,
  successors,
  type ToolGraph,
} from "../../functions/toolnet/graph/index";

/** Real API-Bank call sequences (api-bank/api_call_sequences.json, Apache-2.0), tool names only. */
function apiBankGraph(): ToolGraph {
  const graph = createGraph();
  addTools(graph, ["GetUserToken", "AddAgenda", "AddAlarm", "AddMeeting", "Calculator", "QueryHistoryToday"]);
  addTrajectories(graph, [
    { id: "AddAgenda-AddAlarm-GetUserToken-level-2-1", tools: ["GetUserToken", "AddAgenda", "AddAlarm"] },
    { id: "AddAgenda-AddMeeting-GetUserToken-level-2-2", tools: ["GetUserToken", "AddAgenda"] },
    { id: "AddAgenda-AddMeeting-GetUserToken-level-2-3", tools: ["GetUserToken", "AddMeeting"] },
    { id: "Calculator-QueryHistoryToday-level-2-1", tools: ["Calculator", "QueryHistoryToday"] },
  ]);
  return graph;
}

describe("successors: the ranked out-neighbours of the last tool (eq. 4)", () => {
  it("ranks by eq. 6 weight, best first, end left out unless asked for", () => {
    const graph = apiBankGraph();
    // GetUserToken: AddAgenda 2/3, AddMeeting 1/3; out-neighbours AddAgenda, AddMeeting, self, end.
    //   AddAgenda:  0.3·2/3 + 0.7/4 = 0.2 + 0.175    = 0.375
    //   AddMeeting: 0.3·1/3 + 0.7/4 = 0.1 + 0.175    = 0.275
    //   end, self:  0       + 0.7/4 =       0.175
    expect(successors(graph, "GetUserToken", 5)).toEqual([
      { tool: "AddAgenda", weight: 375, exact: expect.closeTo(0.375, 12) },
      { tool: "AddMeeting", weight: 275, exact: expect.closeTo(0.275, 12) },
      { tool: "GetUserToken", weight: 175, exact: expect.closeTo(0.175, 12) },
    ]);
    expect(successors(graph, "GetUserToken", 5, { includeEnd: true }).map((r) => r.tool)).toEqual(["AddAgenda", "AddMeeting", END, "GetUserToken"]);
    expect(successors(graph, "GetUserToken", 1)).toHaveLength(1);
    expect(successors(graph, "GetUserToken", 0)).toEqual([]);
  });

  it("from START ranks every tool; the result follows feedback and tool removal", () => {
    const graph = apiBankGraph();
    expect(successors(graph, START, 2).map((r) => r.tool)).toEqual(["GetUserToken", "Calculator"]);
    applyFeedback(graph, { tools: ["GetUserToken"], scores: [-3] });
    applyFeedback(graph, { tools: ["GetUserToken"], scores: [-3] });
    applyFeedback(graph, { tools: ["Calculator"], scores: [3] });
    expect(successors(graph, START, 2).map((r) => r.tool)).toEqual(["Calculator", "GetUserToken"]);
    removeTool(graph, "Calculator");
    expect(successors(graph, START, 2).map((r) => r.tool)).toEqual(["GetUserToken", "AddAgenda"]);
    expect(successors(graph, START, 40)).toHaveLength(5);
  });

  it("refuses unknown tools, the end node and bad k", () => {
    const graph = apiBankGraph();
    const unknown = (() => {
      try {
        successors(graph, "Nope", 3);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(unknown).toBeInstanceOf(Failure);
    expect(unknown).toMatchObject({ code: "unknown_tool", names: ["Nope"] });
    expect(() => successors(graph, END, 3)).toThrow(/end node has no successors/);
    expect(() => successors(graph, "GetUserToken", -1)).toThrow(Failure);
    expect(() => successors(graph, "GetUserToken", 1.5)).toThrow(Failure);
  });
});

describe("formatPromptBlock", () => {
  it("lists the candidates in rank order with integer weights, end as Finish", () => {
    const graph = apiBankGraph();
    const descriptions: Record<string, string> = {
      AddAgenda: "The API for adding a agenda item includes content, time and location.",
      AddMeeting: "The API for making a meeting\n  reservation.",
    };
    const text = formatPromptBlock({
      previous: "GetUserToken",
      candidates: successors(graph, "GetUserToken", 4, { includeEnd: true }),
      describe: (tool) => descriptions[tool],
    });
    expect(text).toBe(
      [
        "You last used GetUserToken. Tools you can use next, sorted by weight:",
        "1. AddAgenda (weight 375): The API for adding a agenda item includes content, time and location.",
        "2. AddMeeting (weight 275): The API for making a meeting reservation.",
        "3. Finish (weight 175): Stop calling tools and give the final answer (or report that the task cannot be done).",
        "4. GetUserToken (weight 175)",
        "A weight (0–1000) is how strongly past runs favour that tool at this step: tools that came next often and " +
          "worked well weigh more, tools that failed weigh less. Prefer heavier tools, but choose what the task needs.",
      ].join("\n"),
    );
  });

  it("words the first step differently and can name the end action", () => {
    const graph = apiBankGraph();
    const text = formatPromptBlock({ previous: START, candidates: successors(graph, START, 1), finishName: "Answer" });
    expect(text.split("\n").slice(0, 2)).toEqual([
      "Tools you can start with, sorted by weight:",
      `1. GetUserToken (weight ${successors(graph, START, 1)[0]?.weight ?? -1})`,
    ]);
    const finishOnly = formatPromptBlock({
      previous: "AddAlarm",
      candidates: [{ tool: END, weight: 1000, exact: 1 }],
      finishName: "Answer",
    });
    expect(finishOnly).toContain("1. Answer (weight 1000)");
  });
});
