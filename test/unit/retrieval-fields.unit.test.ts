import { describe, expect, it } from "vitest";
import { DEFAULT_TUNING, toolDocument, ToolIndex, type ToolDocField } from "../../functions/toolnet/retrieval";
import { coverageRanking, taskClauses } from "../../functions/toolnet/retrieval/task-clauses";
import { ToolDefinition } from "../../functions/tools/definition";

const tool = (name: string, description: string, parameters: { name: string; description?: string; schema?: Record<string, unknown> }[] = []): ToolDefinition =>
  ToolDefinition.parse({
    name,
    method: "GET",
    serverUrl: `https://${name.toLowerCase()}.example.com`,
    path: "/",
    operation: "GET /",
    description,
    parameters: parameters.map((p) => ({ in: "query", ...p })),
  });

/** A small catalog whose tools say what they do in words a request may not use. */
const catalog = [
  tool("getWeather", "Provide you with the latest weather information.", [
    { name: "location", description: "City name" },
    { name: "units", schema: { type: "string", enum: ["celsius", "fahrenheit"] } },
  ]),
  tool("createEvent", "Add an entry to the calendar.", [{ name: "attendees", description: "Email addresses of the people invited" }, { name: "title" }]),
  tool("sendMessage", "Deliver a note to a contact.", [{ name: "recipient" }, { name: "body" }]),
  tool("convertCurrency", "Exchange rates between two currencies.", [{ name: "from" }, { name: "to" }, { name: "amount" }]),
];

const names = (index: ToolIndex, task: string, k = 5): string[] => index.search(task, k).map((r) => r.name);
const without = (...fields: ToolDocField[]) => ({ boosts: { ...DEFAULT_TUNING.boosts, ...Object.fromEntries(fields.map((f) => [f, 0])) } });

describe("every text a tool carries counts, by field", () => {
  it("finds a tool by the parameter a request names, through the parameter fields, and not without them", () => {
    const docs = catalog.map((d) => toolDocument(d));
    const task = "invite these attendees";
    expect(names(ToolIndex.build(docs), task)[0]).toBe("createEvent");
    expect(names(ToolIndex.build(docs, without("parameters", "parameterDocs")), task)).not.toContain("createEvent");
  });

  it("finds a tool by an enum value of its parameters, through the values field, and not without it", () => {
    const docs = catalog.map((d) => toolDocument(d));
    expect(docs[0]?.values).toBe("celsius fahrenheit");
    expect(names(ToolIndex.build(docs), "how many degrees celsius")[0]).toBe("getWeather");
    expect(names(ToolIndex.build(docs, without("values")), "how many degrees celsius")).not.toContain("getWeather");
  });

  it("finds an API's operation by the API's own title, through the api field, and not without it", () => {
    // Two APIs whose operations read alike; only the API's title says which is about films.
    const listing = (name: string, apiTitle: string) => ToolDefinition.parse({ ...tool(name, "List the items of a collection, newest first."), apiTitle });
    const defs = [listing("listTitles", "Films Database"), listing("listRecords", "Vinyl Records Catalogue"), ...catalog];
    const task = "show me the newest films";
    expect(names(ToolIndex.build(defs.map((d) => toolDocument(d))), task)[0]).toBe("listTitles");
    const blind = names(
      ToolIndex.build(
        defs.map((d) => toolDocument(d)),
        without("api"),
      ),
      task,
    );
    expect(blind[0]).not.toBe("listTitles");
  });

  it("finds a paraphrased request's tool through a stored example request, and not without it", () => {
    const task = "What's the expected temperature in Rome this afternoon?";
    const plain = ToolIndex.build(catalog.map((d) => toolDocument(d)));
    expect(names(plain, task)).not.toContain("getWeather");
    // Example requests the tenant's model wrote for the tool (Play2Prompt demonstrations) are indexed as their own field.
    const examples = ["Will it rain in Oslo tomorrow afternoon?", "What temperature is expected in Lyon tonight?"];
    const taught = ToolIndex.build(catalog.map((d) => toolDocument(d, d.name === "getWeather" ? { queries: examples } : {})));
    expect(names(taught, task)[0]).toBe("getWeather");
    expect(
      names(
        ToolIndex.build(
          catalog.map((d) => toolDocument(d, d.name === "getWeather" ? { queries: examples } : {})),
          without("examples"),
        ),
        task,
      ),
    ).not.toContain("getWeather");
  });
});

describe("coverage of a task's distinct needs", () => {
  it("splits a request into the clauses that each name a need, and leaves a one-need request whole", () => {
    expect(taskClauses("Convert 100 dollars to euros, then send the amount to my brother as a message.")).toEqual([
      "Convert 100 dollars to euros",
      "send the amount to my brother as a message.",
    ]);
    expect(taskClauses("What's the weather like in Rome?")).toEqual([]);
  });

  it("puts both needs of a two-need task in the top 5 when clause rankings are fused, where one query gives one need's siblings", () => {
    const charts = ["bar", "line", "pie", "scatter", "area", "radar"].map((kind) =>
      tool(`${kind}Chart`, `Draw a ${kind} chart of ranking data: chart title, chart colours, chart size.`),
    );
    const index = ToolIndex.build([...charts, tool("exportPdf", "Save a document as PDF."), ...catalog].map((d) => toolDocument(d)));
    const task = "Draw a bar chart of the reading ranking with a chart title, chart colours and a chart size. Then save it as PDF.";
    const search = (text: string, depth: number) => index.search(text, depth);
    expect(names(index, task, 5)).not.toContain("exportPdf");
    // The weight is the bench's to choose (off by default: it cost every dev set, see CLAUSE_WEIGHT).
    const top5 = coverageRanking(task, search, 30, 1)
      .slice(0, 5)
      .map((r) => r.name);
    expect(top5).toContain("exportPdf");
    expect(top5).toContain("barChart");
    expect(coverageRanking(task, search, 30, 0)).toEqual(index.search(task, 30));
  });
});
