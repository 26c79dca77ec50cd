import { readFileSync } from "node:fs";
import { Validator } from "@cfworker/json-schema";
import { sample } from "openapi-sampler";
import { describe, expect, it } from "vitest";
import { compactView, COMPACT_LIMITS, requiredOnlyView } from "../../functions/toolnet/compact-view";
import { cutAtSentence } from "../../functions/toolnet/compact-schema";
import { openAiTool } from "../../functions/toolnet/openai-tools";
import { ToolDefinition } from "../../functions/tools/definition";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { validateArguments } from "../../functions/tools/safe-call";

const tool = (parameters: unknown[], extra: Record<string, unknown> = {}): ToolDefinition =>
  ToolDefinition.parse({ name: "t", method: "POST", serverUrl: "https://api.example.com", path: "/t", operation: "POST /t", parameters, ...extra });

type Schema = Record<string, unknown>;
const properties = (def: ToolDefinition, view = compactView(def)): Record<string, Schema> =>
  (view.tool.function.parameters?.properties ?? {}) as Record<string, Schema>;

const COUNTRIES = Array.from({ length: 3_000 }, (_, i) => `C${String(i).padStart(4, "0")}`);

describe("compaction rules, one small schema each", () => {
  it("description-cut-at-sentence: a long description ends at a sentence, not mid-word; the definition keeps it all", () => {
    const text = `Returns the forecast for a city. ${"It covers hourly temperature, wind and rain for the next ten days. ".repeat(6)}`;
    const def = tool([], { description: text });
    const view = compactView(def);
    expect(view.rules).toContain("description-cut-at-sentence");
    const shown = view.tool.function.description ?? "";
    expect(shown.length).toBeLessThanOrEqual(COMPACT_LIMITS.descriptionChars);
    expect(shown).toMatch(/\.$/);
    expect(text.replace(/\s+/g, " ").trim().startsWith(shown)).toBe(true);
    expect(def.description).toBe(text);
    // "e.g." and "i.e." do not end a sentence; with no sentence end, a word boundary and "…".
    expect(cutAtSentence("Use a code, e.g. FR or DE, for the country of the shop that sells it today.", 40)).toBe("Use a code, e.g. FR or DE, for the…");
    expect(compactView(tool([], { description: "Short." })).rules).not.toContain("description-cut-at-sentence");
  });

  it("a blank description does not hide the summary", () => {
    expect(compactView(tool([], { description: " ", summary: "Current weather for a city." })).tool.function.description).toBe("Current weather for a city.");
  });

  it("optional-descriptions-trimmed before required-descriptions-trimmed: optional ones are cut harder and run out first", () => {
    const long = "The identifier of the city as the provider spells it. Use the search tool to find it when all you have is its name or a postcode.";
    const def = tool([
      { name: "city", in: "query", required: true, description: long },
      ...Array.from({ length: 6 }, (_, i) => ({ name: `opt${i}`, in: "query", description: long })),
    ]);
    // Every optional parameter shown with its schema, so that only the description rules act.
    const view = compactView(def, { ...COMPACT_LIMITS, optionalParametersShown: 10 });
    const props = properties(def, view);
    expect(view.rules).toEqual(expect.arrayContaining(["optional-descriptions-trimmed"]));
    expect(String(props.city?.description)).toBe("The identifier of the city as the provider spells it.");
    expect(String(props.opt0?.description).length).toBeLessThanOrEqual(COMPACT_LIMITS.optionalDescriptionChars);
    expect(String(props.opt0?.description).length).toBeLessThan(String(props.city?.description).length);
    // The optional parameters share one allowance: the last ones get no description at all.
    expect(props.opt5?.description).toBeUndefined();
    expect(Object.keys(props)).toEqual(["city", "opt0", "opt1", "opt2", "opt3", "opt4", "opt5"]);
    const veryLong = tool([{ name: "city", in: "query", required: true, description: `${"A very long explanation of the city parameter ".repeat(5)}.` }]);
    expect(compactView(veryLong).rules).toContain("required-descriptions-trimmed");
  });

  it("optional-parameters-named-only: past the limit, optional parameters are named in the description, documented ones shown first", () => {
    const def = tool(
      [
        { name: "q", in: "query", required: true, description: "Address to look up.", schema: { type: "string" } },
        { name: "statecode", in: "query", schema: { type: "integer" } },
        { name: "format", in: "query", description: "Output format.", schema: { type: "string", enum: ["json", "xml"] } },
        { name: "limit", in: "query", description: "At most this many results.", schema: { type: "integer" } },
        { name: "dedupe", in: "query", schema: { type: "integer" } },
        { name: "viewbox", in: "query", description: "Area to prefer.", schema: { type: "string" } },
        { name: "accept-language", in: "header", schema: { type: "string" } },
      ],
      { description: "Search for a place." },
    );
    expect(COMPACT_LIMITS.optionalParametersShown).toBe(3);
    const view = compactView(def);
    expect(view.rules).toContain("optional-parameters-named-only");
    // Required parameters all stay; of the optional ones, the three documented ones keep their schema.
    expect(Object.keys(properties(def, view))).toEqual(["q", "format", "limit", "viewbox"]);
    expect(properties(def, view).format).toEqual({ type: "string", enum: ["json", "xml"], description: "Output format." });
    expect(view.tool.function.parameters?.required).toEqual(["q"]);
    // The rest are named, in the definition's order, so the model knows they exist.
    expect(view.tool.function.description).toBe("Search for a place. More optional parameters: statecode, dedupe, accept-language.");
    // No more optional parameters than the limit: nothing named, nothing changed.
    const few = tool(def.parameters.slice(0, 4), { description: "Search for a place." });
    expect(compactView(few).rules).not.toContain("optional-parameters-named-only");
    expect(compactView(few).tool.function.description).toBe("Search for a place.");
    // The required-only view leaves every optional parameter out and names none.
    expect(requiredOnlyView(def).tool.function.description).toBe("Search for a place.");
  });

  it("optional-parameters-named-only: a call that uses a named-only parameter passes the shown schema and the full definition", () => {
    const def = tool(
      [
        { name: "city", in: "query", required: true, schema: { type: "string" } },
        ...["lang", "units", "alerts", "days", "hours"].map((name) => ({
          name,
          in: "query",
          schema: name === "days" || name === "hours" ? { type: "integer", minimum: 1 } : { type: "string" },
        })),
      ],
      { description: "Weather forecast." },
    );
    const view = compactView(def);
    for (const name of ["days", "hours"]) {
      expect(properties(def, view)[name]).toBeUndefined();
      expect(view.tool.function.description).toContain(name);
    }
    // A model that adds them without knowing their type: a query value sent as text is coerced.
    const call = { city: "Oslo", units: "metric", days: "3", hours: 6 };
    const shown = new Validator(view.tool.function.parameters as never, "2020-12", false);
    expect(shown.validate(call).valid).toBe(true);
    expect(validateArguments(def, call)).toEqual({ ok: true, values: { ...call, days: 3 } });
    // A value the full schema refuses is refused, saying what is expected.
    const wrong = validateArguments(def, { city: "Oslo", days: 0 });
    expect(wrong).toMatchObject({ ok: false, argument: "days" });
    // The full definition still decides: an unknown name is refused, naming the accepted ones.
    const unknown = validateArguments(def, { city: "Oslo", unit: "metric" });
    expect(unknown).toMatchObject({ ok: false, argument: "unit" });
  });

  it("long-enum-summarised: 3,000 values become a type and a few examples; short enums stay", () => {
    const def = tool([
      { name: "country", in: "query", required: true, description: "Country code.", schema: { type: "string", enum: COUNTRIES } },
      { name: "unit", in: "query", schema: { type: "string", enum: ["metric", "imperial"] } },
      { name: "level", in: "query", schema: { enum: Array.from({ length: 50 }, (_, i) => i) } },
    ]);
    const view = compactView(def);
    const props = properties(def, view);
    expect(view.rules).toContain("long-enum-summarised");
    expect(props.country?.enum).toBeUndefined();
    expect(props.country?.type).toBe("string");
    expect(props.country?.description).toBe('Country code. One of 3,000 values, e.g. "C0000", "C0001", "C0002", "C0003", …');
    expect(props.unit?.enum).toEqual(["metric", "imperial"]);
    expect(props.level?.type).toBe("integer"); // inferred from the values, so the model still knows the type
    expect(JSON.stringify(view.tool).length).toBeLessThan(500);
  });

  it("refs-inlined: a local $ref is replaced by its target and $defs are not shown; a recursive one stops as object", () => {
    const def = tool([
      {
        name: "filter",
        in: "body",
        required: true,
        schema: {
          $ref: "#/$defs/Filter",
          $defs: {
            Filter: { type: "object", required: ["field"], properties: { field: { type: "string" }, and: { $ref: "#/$defs/Filter" } } },
          },
        },
      },
    ]);
    const view = compactView(def);
    expect(view.rules).toContain("refs-inlined");
    const json = JSON.stringify(view.tool);
    expect(json).not.toContain("$ref");
    expect(json).not.toContain("$defs");
    expect(properties(def, view).filter).toEqual({ type: "object", required: ["field"], properties: { field: { type: "string" }, and: { type: "object" } } });
  });

  it("repeated-schema-inlined-once: the same sub-schema is shown in full once, then as 'same as'", () => {
    const address = {
      type: "object",
      required: ["street", "city"],
      properties: { street: { type: "string" }, city: { type: "string" }, postcode: { type: "string", description: "Postal code" } },
    };
    const def = tool([
      { name: "shipping", in: "body", schema: { type: "object", properties: { address } } },
      { name: "billing", in: "body", required: true, schema: { type: "object", properties: { address } } },
    ]);
    const view = compactView(def);
    const props = properties(def, view);
    expect(view.rules).toContain("repeated-schema-inlined-once");
    // The required parameter is compacted first, so it keeps the full shape.
    expect((props.billing?.properties as Record<string, Schema> | undefined)?.address).toEqual(address);
    expect((props.shipping?.properties as Record<string, Schema> | undefined)?.address).toEqual({ type: "object", description: "Same as billing.address." });
  });

  it("deep-nesting-as-object: structure deeper than the limit is a bare object (or array)", () => {
    const leaf = { type: "object", properties: { x: { type: "number" } } };
    const nest = (depth: number): Schema =>
      depth === 0 ? leaf : { type: "object", properties: { inner: nest(depth - 1), list: { type: "array", items: leaf } } };
    const def = tool([{ name: "deep", in: "body", required: true, schema: nest(5) }]);
    const view = compactView(def);
    expect(view.rules).toContain("deep-nesting-as-object");
    let node = properties(def, view).deep as Schema;
    for (let depth = 1; depth <= COMPACT_LIMITS.depth; depth += 1) node = (node.properties as Record<string, Schema>).inner as Schema;
    expect((node.properties as Record<string, Schema>).inner).toEqual({ type: "object" });
    expect((node.properties as Record<string, Schema>).list).toEqual({ type: "array" });
  });

  it("annotations-dropped: examples, titles and x- extensions go; validation keywords stay", () => {
    const def = tool([
      {
        name: "q",
        in: "query",
        required: true,
        schema: { type: "string", title: "Query", examples: ["a", "b"], "x-internal": true, minLength: 2, pattern: "^[a-z]+$", default: "abc" },
      },
    ]);
    const view = compactView(def);
    expect(view.rules).toContain("annotations-dropped");
    expect(properties(def, view).q).toEqual({ type: "string", minLength: 2, pattern: "^[a-z]+$", default: "abc" });
  });

  it("optional-defaults-dropped and long-defaults-dropped: what the API applies anyway, and long examples, are not shown", () => {
    const url = "https://www.example.com/2022/06/27/a-long-article-path.html";
    const def = tool([
      { name: "city", in: "query", required: true, schema: { type: "string", default: "Oslo" } },
      { name: "page", in: "query", required: true, schema: { type: "string", default: url } },
      { name: "limit", in: "query", schema: { type: "integer", default: 10 } },
    ]);
    const view = compactView(def);
    expect(view.rules).toEqual(expect.arrayContaining(["optional-defaults-dropped", "long-defaults-dropped"]));
    const props = properties(def, view);
    expect(props.city).toEqual({ type: "string", default: "Oslo" }); // a short example of a required value stays
    expect(props.page).toEqual({ type: "string" });
    expect(props.limit).toEqual({ type: "integer" });
    // The definition keeps them, and a call that leaves the optional one out still validates.
    expect(def.parameters[2]?.schema.default).toBe(10);
    expect(validateArguments(def, { city: "Oslo", page: url }).ok).toBe(true);
    expect(compactView(tool([{ name: "city", in: "query", required: true, schema: { type: "string", default: "Oslo" } }])).rules).toEqual([]);
  });

  it("described-defaults-dropped: a described required parameter's default (an example, never applied) goes; an undescribed one keeps a short one", () => {
    const def = tool([
      { name: "lat", in: "query", required: true, description: "Latitude of the place.", schema: { type: "number", default: 40.7487727 } },
      { name: "end_date", in: "query", required: true, schema: { type: "string", default: "DD-MM-YYYY" } },
      { name: "units", in: "query", description: "Unit system.", schema: { type: "string", default: "metric" } },
    ]);
    const view = compactView(def);
    expect(view.rules).toEqual(expect.arrayContaining(["described-defaults-dropped", "optional-defaults-dropped"]));
    const props = properties(def, view);
    expect(props.lat).toEqual({ type: "number", description: "Latitude of the place." });
    // Without a description the example is the one hint at the value's form: it stays.
    expect(props.end_date).toEqual({ type: "string", default: "DD-MM-YYYY" });
    expect(props.units).toEqual({ type: "string", description: "Unit system." });
    expect(properties(def, requiredOnlyView(def)).lat).toEqual({ type: "number", description: "Latitude of the place." });
    // The definition keeps it; the argument is required, so a call without it is refused either way.
    expect(def.parameters[0]?.schema.default).toBe(40.7487727);
    expect(validateArguments(def, { lat: 59.91, end_date: "01-02-2024" }).ok).toBe(true);
    expect(validateArguments(def, { end_date: "01-02-2024" }).ok).toBe(false);
    // A default whose description restates the name counts as undescribed, so it stays.
    const restated = tool([
      { name: "departure_date", in: "query", required: true, description: "Departure date", schema: { type: "string", default: "2021-12-26" } },
    ]);
    expect(properties(restated).departure_date).toEqual({ type: "string", default: "2021-12-26" });
    expect(compactView(def, COMPACT_LIMITS, { without: ["described-defaults-dropped"] }).tool.function.parameters).toMatchObject({
      properties: { lat: { default: 40.7487727 } },
    });
  });

  it("restating-descriptions-dropped: a tool's or a parameter's description that only restates its name is not shown; the definition keeps it", () => {
    const param = (name: string, description: string, type = "string") => ({ name, in: "query", required: true, description, schema: { type } });
    const anime = (parameters: unknown[], description = "Get Genres"): ToolDefinition =>
      ToolDefinition.parse({
        name: "get_genres_for_anime_db",
        method: "GET",
        serverUrl: "https://anime.example.com",
        path: "/genres",
        operation: "GET /genres",
        description,
        parameters,
      });
    const def = anime([
      param("city", "The city."),
      param("user_id", "User ID"),
      param("movie_id", "The ID of the movie"),
      param("page", "Page number", "integer"),
      param("CITY", "name of a city"),
      param("lat", "Latitude of the place."),
      param("region", "The region's code, e.g. FR-IDF."),
      param("profile_id", "profile_id"),
    ]);
    const view = compactView(def);
    expect(view.rules).toContain("restating-descriptions-dropped");
    expect(view.tool.function).not.toHaveProperty("description");
    const props = properties(def, view);
    for (const name of ["city", "user_id", "movie_id", "page", "profile_id"]) expect(props[name], name).not.toHaveProperty("description");
    // Words the name does not have keep the description: "name" (not an id), a term, an example.
    expect(props.CITY?.description).toBe("name of a city");
    expect(props.lat?.description).toBe("Latitude of the place.");
    expect(props.region?.description).toBe("The region's code, e.g. FR-IDF.");
    expect(view.tool.function.parameters?.required).toHaveLength(8);
    expect(def.description).toBe("Get Genres");
    expect(def.parameters[0]?.description).toBe("The city.");
    // A tool description that says more stays; named-only parameters are still named without one.
    expect(compactView(anime(def.parameters, "Lists the genres, with how many titles each has.")).tool.function.description).toBe(
      "Lists the genres, with how many titles each has.",
    );
    const optional = ["a1", "a2", "a3", "a4"].map((name) => ({ name, in: "query", description: name.toUpperCase(), schema: { type: "string" } }));
    const noted = compactView(anime([...optional, { name: "sort", in: "query", description: "Sort order of the genres.", schema: { type: "string" } }]));
    // A restating description does not count as documentation: "sort" is shown before them.
    expect(Object.keys(properties(def, noted))).toEqual(["a1", "a2", "sort"]);
    expect(properties(def, noted).a1).toEqual({ type: "string" });
    expect(noted.tool.function.description).toBe("More optional parameters: a3, a4.");
    expect(compactView(def, COMPACT_LIMITS, { without: ["restating-descriptions-dropped"] }).tool.function.description).toBe("Get Genres");
  });

  it("empty-parameters-omitted: no parameters object without parameters, no empty required list", () => {
    const bare = compactView(tool([], { description: "Latest news." }));
    expect(bare.rules).toContain("empty-parameters-omitted");
    expect(bare.tool).toEqual({ type: "function", function: { name: "t", description: "Latest news." } });
    const optionalOnly = compactView(tool([{ name: "q", in: "query", schema: { type: "string" } }], { description: "Search." }));
    expect(optionalOnly.tool.function.parameters).toEqual({ type: "object", properties: { q: { type: "string" } } });
    const withRequired = compactView(tool([{ name: "q", in: "query", required: true, schema: { type: "string" } }], { description: "Search." }));
    expect(withRequired.rules).not.toContain("empty-parameters-omitted");
    expect(withRequired.tool.function.parameters?.required).toEqual(["q"]);
  });

  it("never drops a required parameter: path parameters count as required, in both views", () => {
    const def = tool([
      { name: "id", in: "path", schema: { type: "integer" } },
      { name: "name", in: "body", required: true, schema: { type: "string" } },
      { name: "note", in: "body", schema: { type: "string" } },
    ]);
    for (const view of [compactView(def), requiredOnlyView(def)]) {
      expect(view.tool.function.parameters?.required).toEqual(["id", "name"]);
      expect(Object.keys(properties(def, view))).toEqual(expect.arrayContaining(["id", "name"]));
    }
    const minimal = requiredOnlyView(def);
    expect(minimal.rules).toContain("optional-parameters-left-out");
    expect(Object.keys(properties(def, minimal))).toEqual(["id", "name"]);
  });
});

/**
 * What a model does with a view: fills every property it is shown, from the shown schema, and
 * for a summarised enum takes one of the examples the summary names (nested ones too).
 */
function valueFor(schema: Schema): unknown {
  const example = /One of [\d,]+ values, e\.g\. ("[^"]*"|[^,]+),/.exec(String(schema.description ?? ""))?.[1];
  if (example !== undefined) return JSON.parse(example);
  if (schema.type === "object" && typeof schema.properties === "object" && schema.properties !== null) {
    return Object.fromEntries(Object.entries(schema.properties as Record<string, Schema>).map(([name, sub]) => [name, valueFor(sub)]));
  }
  return sample(schema as never, { skipReadOnly: true });
}

function callFromView(view: ReturnType<typeof compactView>): Record<string, unknown> {
  return valueFor((view.tool.function.parameters ?? { type: "object", properties: {} }) as Schema) as Record<string, unknown>;
}

describe("a call built from the compact view validates against the full definition", () => {
  it("with a 3,000-value enum and a $ref (the real safe-call validation)", () => {
    const def = tool([
      { name: "country", in: "query", required: true, schema: { type: "string", enum: COUNTRIES } },
      {
        name: "place",
        in: "body",
        required: true,
        schema: {
          $ref: "#/$defs/Place",
          $defs: {
            Place: {
              type: "object",
              required: ["city", "country"],
              properties: { city: { type: "string", minLength: 1 }, country: { type: "string", enum: COUNTRIES } },
            },
          },
        },
      },
      { name: "days", in: "query", schema: { type: "integer", minimum: 1, maximum: 14, examples: [3] } },
    ]);
    const view = compactView(def);
    expect(view.rules).toEqual(expect.arrayContaining(["long-enum-summarised", "refs-inlined"]));
    const place = properties(def, view).place as Schema;
    // The model sees the $ref's required fields, so it sends them.
    expect(place.required).toEqual(["city", "country"]);
    const args = callFromView(view);
    expect(args.country).toBe("C0000");
    expect(validateArguments(def, args)).toEqual({ ok: true, values: args });
    // The full list is still what counts: a value that is not in it is refused.
    const refused = validateArguments(def, { ...args, country: "ZZ" });
    expect(refused).toMatchObject({ ok: false, argument: "country" });
    // What goes back to the model names the problem without quoting all 3,000 values.
    expect(!refused.ok && refused.message).toMatch(/does not match any of \["C0000",.*…\]/);
    expect(!refused.ok && refused.message.length).toBeLessThan(800);
    expect(validateArguments(def, { ...args, place: { city: "Oslo", country: "nowhere" } }).ok).toBe(false);
  });

  it("for every RestBench TMDB operation, and the required-only view too", () => {
    const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
    return importOpenApi(document, { serverUrl: "https://api.themoviedb.org/3" }).then(({ tools }) => {
      expect(tools.length).toBeGreaterThan(50);
      let checked = 0;
      for (const def of tools) {
        // Only where a call built the same way from the full definition validates (a few TMDB
        // schemas accept no value at all, e.g. type string with integer enum values).
        if (!validateArguments(def, callFromView({ tool: openAiTool(def), rules: [] })).ok) continue;
        checked += 1;
        for (const view of [compactView(def), requiredOnlyView(def)]) {
          const result = validateArguments(def, callFromView(view));
          expect(result.ok ? "ok" : `${def.name}: ${result.message.slice(0, 300)}`).toBe("ok");
        }
      }
      expect(checked).toBeGreaterThan(45);
    });
  });
});
