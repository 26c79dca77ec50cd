import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderToolSignature } from "../../functions/chain/typed-api";
import { observeValues } from "../../functions/probing/instance-discovery";
import { chainExample, directExample, documentProtocol, ProbedProtocol, protocolOverrides, renderPaperProtocol } from "../../functions/probing/protocol";
import { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";

interface Endpoint {
  name: string;
  response?: unknown;
  _responses_json?: unknown;
}

const foodFile = JSON.parse(readFileSync(fileURLToPath(new URL("../../kv-seed/world/autotools/tools/food.tools.json", import.meta.url)), "utf8")) as {
  endpoints: Endpoint[];
};
const food = importToolList(foodFile).tools;

function foodTool(name: string): { def: ToolDefinition; endpoint: Endpoint } {
  const def = food.find((d) => d.name === name);
  const endpoint = foodFile.endpoints.find((e) => e.name === name);
  if (def === undefined || endpoint === undefined) throw new Error(`no ${name}`);
  return { def, endpoint };
}

const usage = { toolCalls: 1, modelCalls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };

function documented(def: ToolDefinition, response: unknown, extra: Partial<Parameters<typeof documentProtocol>[0]> = {}): ProbedProtocol {
  return documentProtocol({
    definition: def,
    definitionHash: "a".repeat(64),
    response,
    example: directExample(def, { ingredient_id: 9266 }),
    how: "direct",
    helpers: [],
    usage,
    probedAt: "2025-01-01T00:00:00.000Z",
    samples: observeValues(response),
    ...extra,
  });
}

describe("protocol documenting", () => {
  it("documents d = ((q, C), s, t): schema by Algorithm 2, JSON Schema, example, parameters", () => {
    const { def, endpoint } = foodTool("GET_ingredient_information");
    const protocol = documented(def, endpoint.response);
    expect(protocol.name).toBe("GET_ingredient_information");
    expect(protocol.responseSchema).toEqual(JSON.parse(String(endpoint._responses_json)));
    expect(protocol.jsonSchema).toMatchObject({
      type: "object",
      properties: { id: { type: "integer" }, estimatedCost: { type: "object", properties: { value: { type: "number" } } } },
    });
    expect(protocol.parameters).toBe(def.parameters);
    expect(protocol).toMatchObject({ description: def.description, descriptionSource: "registered", how: "direct", helpers: [] });
    expect(protocol.samples.slice(0, 2)).toEqual([
      { path: "id", value: 9266 },
      { path: "original", value: "pineapples" },
    ]);
    // It is plain data: it survives JSON storage and validates.
    expect(ProbedProtocol.parse(JSON.parse(JSON.stringify(protocol)))).toEqual(protocol);
  });

  it("takes a model-written description only when the tool has none", () => {
    const bare = ToolDefinition.parse({ name: "getThing", method: "GET", serverUrl: "https://x.test", path: "/thing", operation: "GET /thing" });
    expect(documented(bare, { a: 1 }, { modelDescription: "Returns a thing." })).toMatchObject({ description: "Returns a thing.", descriptionSource: "model" });
    expect(documented(bare, { a: 1 })).not.toHaveProperty("description");
    const { def } = foodTool("GET_ingredient_information");
    expect(documented(def, { a: 1 }, { modelDescription: "ignored" }).description).toBe(def.description);
  });

  it("rejects malformed stored protocols", () => {
    const { def, endpoint } = foodTool("GET_ingredient_information");
    const protocol = documented(def, endpoint.response);
    expect(ProbedProtocol.safeParse({ ...protocol, how: "guess" }).success).toBe(false);
    expect(ProbedProtocol.safeParse({ ...protocol, responseSchema: { id: "integer" } }).success).toBe(false);
    expect(ProbedProtocol.safeParse({ ...protocol, extra: 1 }).success).toBe(false);
  });

  it("renders the paper's A.6 protocol text, with the authors' own schema text", () => {
    const { def, endpoint } = foodTool("GET_ingredient_information");
    const text = renderPaperProtocol(def, documented(def, endpoint.response));
    const lines = text.split("\n");
    expect(lines.slice(0, 7)).toEqual([
      "API name: GET_ingredient_information",
      "### API url",
      "https://spoonacular-recipe-food-nutrition-v1.p.rapidapi.com/food/ingredients/{ingredient_id}/information",
      "### Request type",
      "GET",
      "### Description",
      def.description,
    ]);
    expect(text).toContain("### Parameter\n- ingredient_id: The id of the food (ingredient). (type: integer, required)");
    expect(text).toContain("- amount: The amount of that food. (type: integer)");
    expect(text).toContain("The '{variable}' in the url path should also be replaced with actual value.");
    // The specification is exactly the authors' json.dumps(schema, indent=4).
    const spec = text.slice(text.indexOf("### Execution result specification\n") + 35, text.indexOf("\n### Request body"));
    expect(spec).toBe(endpoint._responses_json);
    expect(text).toContain('### Request body\n"This API do not need the request body when calling."');
    expect(text).toContain("### Example\nQuery: ");
  });

  it("turns into typed-API overrides the typed API renders", () => {
    const { def, endpoint } = foodTool("GET_summarize_recipe");
    const protocol = documented({ ...def, responseSchema: undefined }, endpoint.response);
    const signature = renderToolSignature(def, protocolOverrides(protocol));
    expect(signature).toContain("Promise<{ id?: number; title?: string; summary?: string }>");
    expect(signature).toContain("Example — task:");
    // A registered description is not overridden.
    expect(protocolOverrides(protocol)).not.toHaveProperty("description");
  });
});

describe("synthesised examples", () => {
  const person = ToolDefinition.parse({
    name: "getPersonPersonId",
    method: "GET",
    serverUrl: "https://api.example.com",
    path: "/person/{person_id}",
    operation: "GET /person/{person_id}",
    description: "Get the primary person details by id. Supports append_to_response.",
    parameters: [{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }],
  });
  const search = ToolDefinition.parse({
    name: "getSearchPerson",
    method: "GET",
    serverUrl: "https://api.example.com",
    path: "/search/person",
    operation: "GET /search/person",
    description: "Search for people.",
    parameters: [{ name: "query", in: "query", required: true, schema: { type: "string" } }],
  });

  it("writes a direct example as one call, with a query from the description", () => {
    expect(directExample(person, { person_id: 31, "odd-name": "x" })).toEqual({
      query: 'Get the primary person details by id (with person_id 31, odd-name "x").',
      program: '// getPersonPersonId\nreturn await tools.getPersonPersonId({ person_id: 31, "odd-name": "x" });',
      arguments: { person_id: 31, "odd-name": "x" },
    });
  });

  it("writes a helper chain: the helper as it was probed, then the tool with the helper's value", () => {
    const helperProtocol = documentProtocol({
      definition: search,
      definitionHash: "h",
      response: { results: [{ id: 31 }] },
      example: directExample(search, { query: "Tom Hanks" }),
      how: "direct",
      helpers: [],
      usage,
      probedAt: "2025-01-01T00:00:00.000Z",
      samples: [],
    });
    const example = chainExample(
      person,
      { person_id: 31 },
      [{ parameter: "person_id", tool: "getSearchPerson", path: "results[0].id" }],
      new Map([["getSearchPerson", { definition: search, protocol: helperProtocol }]]),
    );
    expect(example.program).toBe(
      [
        "// getSearchPerson",
        'const searchPersonResult = await tools.getSearchPerson({ query: "Tom Hanks" });',
        "// getPersonPersonId",
        "return await tools.getPersonPersonId({ person_id: searchPersonResult.results[0].id });",
      ].join("\n"),
    );
    expect(example.query).toBe("Get the primary person details by id, for the person_id that getSearchPerson (search for people) returns.");
    const topLevelArray = chainExample(person, { person_id: 31 }, [{ parameter: "person_id", tool: "getSearchPerson", path: "[0].id" }], new Map());
    expect(topLevelArray.program).toContain("person_id: searchPersonResult[0].id");
  });
});
