import { describe, expect, it } from "vitest";
import { queryTerms } from "../../functions/toolnet/retrieval/analyze";
import { repeatedTermWeight } from "../../functions/toolnet/retrieval/query-term-weight";
import { TOOL_DOC_FIELDS, type ToolDoc } from "../../functions/toolnet/retrieval/tool-document";
import { ToolIndex } from "../../functions/toolnet/retrieval/tool-index";

/**
 * A term the task repeats counts (k3 + 1)·q / (k3 + q) times (Okapi BM25's query-term saturation),
 * not q times: a chat-style task's repeated framing no longer outweighs the words, written once,
 * that name the tool. A term written once counts once, so a task without repeats ranks as before.
 */

function doc(name: string, fields: Partial<Record<(typeof TOOL_DOC_FIELDS)[number], string>>): ToolDoc {
  const empty = Object.fromEntries(TOOL_DOC_FIELDS.map((field) => [field, ""])) as Record<(typeof TOOL_DOC_FIELDS)[number], string>;
  return { ...empty, ...fields, name };
}

const catalog: ToolDoc[] = [
  doc("createPlan", { operation: "POST /plans", summary: "Create a plan", description: "Creates a plan with a title and steps." }),
  doc("getWeatherForecast", { operation: "GET /forecast", summary: "Weather forecast", description: "The weather forecast for a city, by day." }),
  doc("searchCities", { operation: "GET /cities", summary: "Search cities", description: "Find cities by name." }),
  doc("sendEmail", { operation: "POST /emails", summary: "Send an email", description: "Sends an email message to a recipient." }),
  doc("listInvoices", { operation: "GET /invoices", summary: "List invoices", description: "Invoices of a customer, newest first." }),
  doc("getStockPrice", { operation: "GET /stocks/{ticker}/price", summary: "Stock price", description: "The latest price of a stock ticker." }),
];

describe("query-term saturation", () => {
  it("weighs each occurrence of a term written q times by (k3 + 1) / (k3 + q), and a term written once by exactly 1", () => {
    for (const k3 of [0, 0.5, 1, 4]) expect(repeatedTermWeight(1, k3)).toBe(1);
    expect(repeatedTermWeight(2, 1)).toBeCloseTo(2 / 3, 12);
    expect(repeatedTermWeight(3, 1) * 3).toBeCloseTo(1.5, 12);
    expect(repeatedTermWeight(100, 1) * 100).toBeLessThan(2);
    expect(repeatedTermWeight(3, Infinity)).toBe(1);
  });

  it("counts a word the task writes three times 1.5 times (k3 = 1), not 3 times", () => {
    const index = ToolIndex.build(catalog);
    const once = index.search("weather", 1)[0];
    const thrice = index.search("weather, weather and weather", 1)[0];
    expect(thrice?.name).toBe("getWeatherForecast");
    expect(thrice?.score).toBeCloseTo(1.5 * (once?.score ?? 0), 9);
    const linear = ToolIndex.build(catalog, { queryTermSaturation: Infinity }).search("weather, weather and weather", 1)[0];
    expect(linear?.score).toBeCloseTo(3 * (once?.score ?? 0), 9);
  });

  it("ranks the tool the task names above one its repeated framing matches", () => {
    const task = "Plan my trip: plan the route, plan the stops, plan the hotels, and give me the weather forecast for Rome";
    // Counted in full, the four "plan"s put createPlan first; saturated, the words naming the forecast win.
    expect(
      ToolIndex.build(catalog, { queryTermSaturation: Infinity })
        .search(task, 2)
        .map((r) => r.name),
    ).toEqual(["createPlan", "getWeatherForecast"]);
    expect(
      ToolIndex.build(catalog)
        .search(task, 2)
        .map((r) => r.name),
    ).toEqual(["getWeatherForecast", "createPlan"]);
  });

  it("ranks a task without repeated words exactly as counting repeats in full does", () => {
    const saturated = ToolIndex.build(catalog);
    const linear = ToolIndex.build(catalog, { queryTermSaturation: Infinity });
    for (const task of [
      "send an email to my customer",
      "latest stock price of a ticker",
      "find cities named Springfield",
      "weather forecast for Rome by day",
    ]) {
      const terms = queryTerms(task);
      expect(new Set(terms).size, task).toBe(terms.length);
      expect(saturated.search(task, 6), task).toEqual(linear.search(task, 6));
    }
  });
});
