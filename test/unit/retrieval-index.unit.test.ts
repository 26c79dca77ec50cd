import { describe, expect, it } from "vitest";
import { toolDocument, type ToolDoc } from "../../functions/toolnet/retrieval/tool-document";
import { ToolIndex } from "../../functions/toolnet/retrieval/tool-index";
import { ToolDefinition } from "../../functions/tools/definition";

type Spec = {
  name: string;
  operation: string;
  summary?: string;
  description?: string;
  parameters?: { name: string; description?: string }[];
  tags?: string[];
};

function doc(spec: Spec): ToolDoc {
  const [method = "GET", path = "/"] = spec.operation.split(" ");
  return toolDocument(
    ToolDefinition.parse({
      name: spec.name,
      method,
      serverUrl: "https://api.example.com",
      path,
      operation: spec.operation,
      summary: spec.summary,
      description: spec.description ?? "",
      parameters: (spec.parameters ?? []).map((p) => ({ ...p, in: "query" })),
      tags: spec.tags ?? [],
    }),
  );
}

const catalog: ToolDoc[] = [
  doc({
    name: "searchPerson",
    operation: "GET /search/person",
    summary: "Search People",
    description: "Find a person (actor, director, writer) by name; returns their id and the movies they are known for.",
    parameters: [{ name: "query", description: "Text to search for." }],
  }),
  doc({
    name: "getPersonMovieCredits",
    operation: "GET /person/{person_id}/movie_credits",
    summary: "Get Movie Credits",
    description: "The movies a person acted in (cast) or directed, wrote or produced (crew).",
  }),
  doc({
    name: "getCurrentWeather",
    operation: "GET /weather/current",
    summary: "Current weather",
    description: "Temperature, wind and rain forecast for a city.",
    parameters: [{ name: "city" }],
  }),
  doc({
    name: "sendEmail",
    operation: "POST /mail/send",
    summary: "Send an email",
    description: "Sends an email message to one or more recipients.",
  }),
  doc({
    name: "createInvoice",
    operation: "POST /invoices",
    summary: "Create invoice",
    description: "Bills a customer for line items.",
  }),
  doc({
    name: "deleteUser",
    operation: "DELETE /users/{user_id}",
    summary: "Delete a user",
    description: "Removes the account permanently.",
  }),
  doc({
    name: "listTvSeasons",
    operation: "GET /tv/{tv_id}/seasons",
    summary: "TV seasons",
    description: "Seasons and episodes of a television show.",
  }),
];

const names = (index: ToolIndex, text: string, k = 10): string[] => index.search(text, k).map((r) => r.name);

describe("ToolIndex ranking", () => {
  const index = ToolIndex.build(catalog);

  it("puts the person search and movie credits tools first for a director's filmography", () => {
    const top = names(index, "find the movies directed by Sofia Coppola", 2);
    expect(new Set(top)).toEqual(new Set(["searchPerson", "getPersonMovieCredits"]));
  });

  it("puts the obviously right tool first for plain tasks", () => {
    expect(names(index, "What's the weather forecast in Paris?")[0]).toBe("getCurrentWeather");
    expect(names(index, "email my boss the report")[0]).toBe("sendEmail");
    expect(names(index, "bill the customer for two items")[0]).toBe("createInvoice");
    expect(names(index, "remove the account of user 42")[0]).toBe("deleteUser");
    expect(names(index, "list the episodes of a television series")[0]).toBe("listTvSeasons");
  });

  it("returns scores best first and at most k results", () => {
    const results = index.search("movie credits of a person", 2);
    expect(results).toHaveLength(2);
    const [first, second] = results;
    expect(first?.score).toBeGreaterThanOrEqual(second?.score ?? Infinity);
    expect(first?.name).toBe("getPersonMovieCredits");
  });

  it("only returns tools that share a term with the task", () => {
    expect(names(index, "weather")).toEqual(["getCurrentWeather"]);
  });

  it("finds tools through words that appear only in their split name", () => {
    const only = ToolIndex.build([doc({ name: "getExchangeRate", operation: "GET /x" }), ...catalog]);
    expect(names(only, "exchange rates")[0]).toBe("getExchangeRate");
  });

  it("finds a tool whose identifiers are lower-case compounds of the task's adjacent words", () => {
    // "downloadfile" and "randomimage" have no camelCase or underscore boundary to split on.
    const compounds = ToolIndex.build([
      doc({ name: "downloadfile_for_storage", operation: "GET /downloadfile", summary: "downloadfile" }),
      doc({ name: "randomimage_for_gallery", operation: "GET /randomimage", summary: "randomimage" }),
      ...catalog,
    ]);
    expect(names(compounds, "Please download the file report.pdf")[0]).toBe("downloadfile_for_storage");
    // Only adjacent words join, in the task's order.
    expect(names(compounds, "I would like a random image")[0]).toBe("randomimage_for_gallery");
    expect(names(compounds, "image random")).toEqual([]);
  });

  it("ranks first the tool whose title has the task's words side by side", () => {
    // Both summaries hold the same three words; only opB's has "movie credits" side by side
    // (without the phrase, the two tie and the name puts opA first).
    const pair = [
      doc({ name: "opA", operation: "GET /a", summary: "Credits list movie" }),
      doc({ name: "opB", operation: "GET /b", summary: "Movie credits list" }),
    ];
    expect(names(ToolIndex.build(pair), "movie credits of Heat")).toEqual(["opB", "opA"]);
    expect(names(ToolIndex.build(pair.reverse()), "movie credits of Heat")).toEqual(["opB", "opA"]);
  });

  it("finds tools through words that appear only in their path", () => {
    const only = ToolIndex.build([doc({ name: "op1", operation: "GET /v1/{id}/movie_credits" }), doc({ name: "op2", operation: "GET /v1/{id}/images" })]);
    expect(names(only, "movie credit")).toEqual(["op1"]);
  });

  it("finds tools through parameter names and tags", () => {
    const tagged = ToolIndex.build([
      doc({ name: "a", operation: "GET /a", parameters: [{ name: "postal_code" }] }),
      doc({ name: "b", operation: "GET /b", tags: ["geocoding"] }),
    ]);
    expect(names(tagged, "postal code")).toEqual(["a"]);
    expect(names(tagged, "geocoding")).toEqual(["b"]);
  });

  it("finds an operation by what its API's other operations do", () => {
    // A task describes the API as a whole; "Latest" and "Count" say nothing of parcels themselves.
    const parcels = [
      { name: "latest", summary: "Latest" },
      { name: "count", summary: "Count" },
      { name: "history", summary: "Full tracking history of a parcel" },
    ];
    const docs = parcels.map((op) => ({
      ...doc({ name: op.name, operation: `GET /${op.name}`, summary: op.summary }),
      siblings: parcels
        .filter((o) => o !== op)
        .map((o) => o.summary)
        .join("\n"),
    }));
    const withSiblings = ToolIndex.build([...docs, ...catalog]);
    expect(new Set(names(withSiblings, "parcel tracking", 3))).toEqual(new Set(["latest", "count", "history"]));
    // The history operation's own words still rank it first.
    expect(names(withSiblings, "parcel tracking")[0]).toBe("history");
    const withoutSiblings = ToolIndex.build([...docs.map((d) => ({ ...d, siblings: "" })), ...catalog]);
    expect(names(withoutSiblings, "parcel tracking")).toEqual(["history"]);
  });

  it("leaves a field out of ranking when its boost is 0", () => {
    const tagged = [doc({ name: "b", operation: "GET /b", tags: ["geocoding"] })];
    expect(
      names(
        ToolIndex.build(tagged, {
          boosts: {
            name: 2,
            operation: 2,
            summary: 2,
            description: 1,
            parameters: 1,
            parameterDocs: 0.2,
            tags: 0,
            action: 1,
            examples: 1,
            outputs: 0.5,
            siblings: 1,
            phrases: 2,
            values: 0.5,
            api: 0.5,
          },
        }),
        "geocoding",
      ),
    ).toEqual([]);
  });

  it("breaks score ties by name, whatever the insertion order", () => {
    const twin = (name: string): ToolDoc => doc({ name, operation: "GET /same", summary: "identical text" });
    expect(names(ToolIndex.build([twin("zeta"), twin("alpha")]), "identical")).toEqual(["alpha", "zeta"]);
    expect(names(ToolIndex.build([twin("alpha"), twin("zeta")]), "identical")).toEqual(["alpha", "zeta"]);
  });
});

describe("ToolIndex edge cases", () => {
  const index = ToolIndex.build(catalog);

  it("returns nothing, without throwing, for empty, blank, stop-word and unknown queries", () => {
    expect(index.search("")).toEqual([]);
    expect(index.search("   \n\t")).toEqual([]);
    expect(index.search("what is the and of it")).toEqual([]);
    expect(index.search("zxqvw blorptastic")).toEqual([]);
    expect(index.search("?!…🙂")).toEqual([]);
  });

  it("returns nothing for k ≤ 0 and on an empty index", () => {
    expect(index.search("weather", 0)).toEqual([]);
    expect(index.search("weather", -3)).toEqual([]);
    expect(ToolIndex.build([]).search("weather")).toEqual([]);
  });
});

describe("ToolIndex updates", () => {
  it("adds a tool so that it is found", () => {
    const index = ToolIndex.build(catalog);
    expect(names(index, "translate text into French")).not.toContain("translateText");
    index.add(doc({ name: "translateText", operation: "POST /translate", summary: "Translate text", description: "Into any language." }));
    expect(index.size).toBe(catalog.length + 1);
    expect(names(index, "translate text into French")[0]).toBe("translateText");
  });

  it("removes a tool by name so that it is no longer found", () => {
    const index = ToolIndex.build(catalog);
    expect(index.remove("getCurrentWeather")).toBe(true);
    expect(index.has("getCurrentWeather")).toBe(false);
    expect(index.size).toBe(catalog.length - 1);
    expect(names(index, "weather forecast")).toEqual([]);
    expect(index.remove("getCurrentWeather")).toBe(false);
    expect(index.remove("neverIndexed")).toBe(false);
  });

  it("replaces a tool of the same name: old words stop matching, new words match", () => {
    const index = ToolIndex.build(catalog);
    index.add(doc({ name: "getCurrentWeather", operation: "GET /tides", summary: "Tide tables", description: "High and low tide times for a harbour." }));
    expect(index.size).toBe(catalog.length);
    expect(names(index, "rain forecast")).not.toContain("getCurrentWeather");
    expect(names(index, "when is high tide in the harbour")[0]).toBe("getCurrentWeather");
  });

  it("ranks after updates exactly as a fresh build of the same tools", () => {
    const index = ToolIndex.build(catalog);
    index.remove("sendEmail");
    index.add(doc({ name: "deleteUser", operation: "DELETE /accounts/{id}", summary: "Close an account" }));
    const fresh = ToolIndex.build([
      ...catalog.filter((d) => d.name !== "sendEmail" && d.name !== "deleteUser"),
      doc({ name: "deleteUser", operation: "DELETE /accounts/{id}", summary: "Close an account" }),
    ]);
    for (const query of ["close the account", "movies directed by Nolan", "send an email", "weather in Rome"]) {
      expect(names(index, query), query).toEqual(names(fresh, query));
    }
  });

  it("keeps the last of two docs with the same name when building", () => {
    const index = ToolIndex.build([doc({ name: "x", operation: "GET /a", summary: "apples" }), doc({ name: "x", operation: "GET /b", summary: "bananas" })]);
    expect(index.size).toBe(1);
    expect(names(index, "apples")).toEqual([]);
    expect(names(index, "bananas")).toEqual(["x"]);
  });
});

describe("ToolIndex serialisation", () => {
  const queries = [
    "find the movies directed by Sofia Coppola",
    "weather forecast",
    "send an email to the customer with the invoice",
    "delete user",
    "",
    "zxqvw",
  ];

  it("gives identical results after toJSON → fromJSON, as object and as JSON text", () => {
    const index = ToolIndex.build(catalog);
    const fromObject = ToolIndex.fromJSON(index.toJSON());
    const fromText = ToolIndex.fromJSON(JSON.stringify(index.toJSON()));
    expect(fromObject.size).toBe(index.size);
    for (const query of queries) {
      expect(fromObject.search(query), query).toEqual(index.search(query));
      expect(fromText.search(query), query).toEqual(index.search(query));
    }
  });

  it("serialises to JSON-safe plain data", () => {
    const json = ToolIndex.build(catalog).toJSON();
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("round-trips an index that had tools removed and replaced, and stays updatable", () => {
    const index = ToolIndex.build(catalog);
    index.remove("sendEmail");
    index.add(doc({ name: "createInvoice", operation: "POST /invoices", summary: "Issue a bill" }));
    const restored = ToolIndex.fromJSON(JSON.stringify(index));
    for (const query of [...queries, "issue a bill", "email"]) expect(restored.search(query), query).toEqual(index.search(query));
    expect(restored.has("sendEmail")).toBe(false);
    restored.remove("getCurrentWeather");
    expect(names(restored, "weather")).toEqual([]);
    restored.add(doc({ name: "sendEmail", operation: "POST /mail", summary: "Send email" }));
    expect(names(restored, "send email")[0]).toBe("sendEmail");
  });

  it("refuses data that is not a serialised tool index", () => {
    const index = ToolIndex.build(catalog);
    expect(() => ToolIndex.fromJSON("{}")).toThrow(/rebuild/);
    expect(() => ToolIndex.fromJSON(JSON.stringify({ ...index.toJSON(), format: "atc-tool-index/0" }))).toThrow(/rebuild/);
    expect(() => ToolIndex.fromJSON("null")).toThrow(/rebuild/);
  });
});
