import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { schemaToTs } from "../../functions/chain/typed-api";
import { ResponseSchema, responseSchemaToJsonSchema, schemaTransform } from "../../functions/probing/schema-transform";

interface Endpoint {
  name: string;
  response?: unknown;
  responses?: unknown;
  _responses_json?: unknown;
}

function endpoints(domain: string): Endpoint[] {
  const path = fileURLToPath(new URL(`../../kv-seed/world/autotools/tools/${domain}.tools.json`, import.meta.url));
  return (JSON.parse(readFileSync(path, "utf8")) as { endpoints: Endpoint[] }).endpoints;
}

/** The authors' transformation; sometimes stored as JSON text, sometimes as the value. */
function authors(endpoint: Endpoint): unknown {
  const value = endpoint._responses_json;
  return typeof value === "string" ? JSON.parse(value) : value;
}

const recorded = ["food", "game", "weather", "tmdb"].flatMap((domain) =>
  endpoints(domain)
    .filter((e) => e.response !== undefined)
    .map((e) => ({ domain, endpoint: e })),
);

describe("Algorithm 2 (schema transformation) reproduces the authors' output", () => {
  it("covers every recorded response in autotools (51: food 22, game 18, weather 11; tmdb has none)", () => {
    expect(recorded.length).toBe(51);
    expect(recorded.filter((r) => r.domain === "tmdb")).toHaveLength(0);
  });

  it.each(recorded.map((r) => [`${r.domain}/${r.endpoint.name}`, r.endpoint] as const))("%s", (_name, endpoint) => {
    expect(endpoint._responses_json).toBeDefined();
    expect(schemaTransform(endpoint.response)).toStrictEqual(authors(endpoint));
  });

  it("reproduces the tmdb file too: its 54 OpenAPI response objects, transformed the same way", () => {
    const tmdb = endpoints("tmdb");
    expect(tmdb).toHaveLength(54);
    for (const e of tmdb) expect(schemaTransform(e.responses), e.name).toStrictEqual(authors(e));
  });

  it("meets nulls in the recorded data, where the authors write NoneType", () => {
    const withNoneType = recorded.filter(({ endpoint }) => JSON.stringify(authors(endpoint)).includes('"NoneType"'));
    expect(withNoneType.length).toBeGreaterThanOrEqual(10);
    for (const { endpoint } of withNoneType) expect(JSON.stringify(endpoint.response)).toContain("null");
  });

  it("keeps the authors' key order", () => {
    for (const { endpoint } of recorded) expect(JSON.stringify(schemaTransform(endpoint.response))).toBe(JSON.stringify(authors(endpoint)));
  });
});

describe("Algorithm 2 decisions", () => {
  it("writes atomic values as the authors' type names", () => {
    expect(schemaTransform({ s: "x", i: 3, f: 0.5, b: true, neg: -2, big: 2 ** 53 })).toStrictEqual({
      s: "str",
      i: "int",
      f: "float",
      b: "bool",
      neg: "int",
      big: "int",
    });
  });

  it("writes null as NoneType, Python's name for its type, as the authors do", () => {
    expect(schemaTransform({ a: null })).toStrictEqual({ a: "NoneType" });
    expect(schemaTransform(null)).toBe("NoneType");
  });

  it("keeps an empty list as [] and an empty object as {}", () => {
    expect(schemaTransform({ meta: [], o: {} })).toStrictEqual({ meta: [], o: {} });
    expect(schemaTransform([])).toStrictEqual([]);
  });

  it("describes a list, mixed or not, by its first item only", () => {
    expect(schemaTransform([1, "a", null])).toStrictEqual(["int"]);
    expect(schemaTransform([{ amount: 1 }, { amount: 0.5, extra: true }])).toStrictEqual([{ amount: "int" }]);
    expect(schemaTransform([[], [1]])).toStrictEqual([[]]);
    expect(schemaTransform([null, 1])).toStrictEqual(["NoneType"]);
  });

  it("reads a whole-number float as int: JSON.parse cannot tell 1.0 from 1", () => {
    expect(schemaTransform(JSON.parse('{"a": 1.0, "b": 1.5}'))).toStrictEqual({ a: "int", b: "float" });
  });

  it("keeps a __proto__ key as a plain key and cuts hostile depth", () => {
    const schema = schemaTransform(JSON.parse('{"__proto__": {"x": 1}}'));
    expect(Object.keys(schema as object)).toEqual(["__proto__"]);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(JSON.stringify(schemaTransform(deep, { maxDepth: 3 }))).toBe('{"d":{"d":{"d":{}}}}');
  });

  it("validates with the zod schema", () => {
    for (const { endpoint } of recorded) expect(ResponseSchema.safeParse(schemaTransform(endpoint.response)).success).toBe(true);
    expect(ResponseSchema.safeParse({ a: "string" }).success).toBe(false);
    expect(ResponseSchema.safeParse({ a: [1] }).success).toBe(false);
    expect(ResponseSchema.safeParse({ a: null }).success).toBe(false);
  });
});

describe("responseSchemaToJsonSchema", () => {
  it("maps the compact names to JSON Schema types", () => {
    expect(responseSchemaToJsonSchema({ s: "str", i: "int", f: "float", b: "bool", l: ["str"], e: [], n: "NoneType" })).toStrictEqual({
      type: "object",
      properties: {
        s: { type: "string" },
        i: { type: "integer" },
        f: { type: "number" },
        b: { type: "boolean" },
        l: { type: "array", items: { type: "string" } },
        e: { type: "array", items: {} },
        n: { description: "null in the probed response; type unknown" },
      },
    });
    expect(responseSchemaToJsonSchema([{ id: "int" }])).toStrictEqual({ type: "array", items: { type: "object", properties: { id: { type: "integer" } } } });
    expect(responseSchemaToJsonSchema("str")).toStrictEqual({ type: "string" });
  });

  it("renders in the typed API as TypeScript types", () => {
    const food = endpoints("food").find((e) => e.name === "GET_ingredient_information");
    const ts = schemaToTs(responseSchemaToJsonSchema(schemaTransform(food?.response)));
    expect(ts).toContain("id?: number");
    expect(ts).toContain("possibleUnits?: string[]");
    expect(ts).toContain("estimatedCost?: { value?: number; unit?: string }");
    expect(ts).toContain("meta?: unknown[]");
    expect(schemaToTs(responseSchemaToJsonSchema({ n: "NoneType" }))).toBe("{ n?: unknown }");
  });
});
