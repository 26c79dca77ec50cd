import { describe, expect, it, vi } from "vitest";
import { ToolDefinition } from "../../functions/tools/definition";
import { callTool, validateArguments } from "../../functions/tools/safe-call";

const movieCredits = ToolDefinition.parse({
  name: "movie_credits",
  method: "GET",
  serverUrl: "https://api.themoviedb.org/3",
  path: "/movie/{movie_id}/credits",
  operation: "GET /movie/{movie_id}/credits",
  parameters: [
    { name: "movie_id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
    { name: "language", in: "query", schema: { type: "string", enum: ["en-US", "fr-FR"] } },
    { name: "page", in: "query", schema: { type: "integer" } },
    { name: "include_adult", in: "query", schema: { type: "boolean" } },
    { name: "ids", in: "query", schema: { type: "array", items: { type: "integer" } } },
    { name: "label", in: "path", schema: { type: "string" } },
  ],
});

const createItem = ToolDefinition.parse({
  name: "create_item",
  method: "POST",
  serverUrl: "https://api.example.com",
  path: "/items",
  operation: "POST /items",
  parameters: [
    { name: "title", in: "body", required: true, schema: { type: "string", minLength: 1 } },
    { name: "count", in: "body", schema: { type: "integer" } },
    { name: "note", in: "body", schema: { type: "string", nullable: true } },
    { name: "tag", in: "body", schema: { type: "string" } },
    { name: "owner", in: "body", schema: { nullable: true, allOf: [{ type: "object", required: ["id"] }] } },
    { name: "ratio", in: "body", schema: { type: "number", minimum: 0, exclusiveMinimum: true } },
    { name: "trace", in: "header", schema: { type: "string" } },
  ],
});

describe("validateArguments", () => {
  it("accepts valid arguments and returns them", () => {
    expect(validateArguments(movieCredits, { movie_id: 550, language: "en-US", label: "x" })).toEqual({
      ok: true,
      values: { movie_id: 550, language: "en-US", label: "x" },
    });
  });

  it("names a missing required argument and what it expects", () => {
    const result = validateArguments(createItem, { count: 2 });
    expect(result).toMatchObject({ ok: false, kind: "invalid_arguments", argument: "title" });
    expect(!result.ok && result.message).toMatch(/missing required argument "title".*"type":"string"/);
  });

  it("treats path parameters as required even when the flag says optional", () => {
    // `label` is declared required:false but sits in the path.
    expect(validateArguments(movieCredits, { movie_id: 1 })).toMatchObject({ ok: false, argument: "label" });
  });

  it("rejects a wrong type, naming the argument and the expected type", () => {
    const result = validateArguments(movieCredits, { movie_id: "abc", label: "x" });
    expect(result).toMatchObject({ ok: false, kind: "invalid_arguments", argument: "movie_id" });
    expect(!result.ok && result.message).toContain('argument "movie_id"');
    expect(!result.ok && result.message).toContain("integer");
    expect(!result.ok && result.message).toContain('string "abc"');
  });

  it("rejects unknown argument names, naming them and listing the accepted ones", () => {
    const result = validateArguments(movieCredits, { movie_id: 1, label: "x", movieId: 2, lang: "en" });
    expect(result).toMatchObject({ ok: false, kind: "invalid_arguments", argument: "movieId" });
    const message = result.ok ? "" : result.message;
    expect(message).toContain('"movieId", "lang"');
    expect(message).toContain("accepted: movie_id, language, page, include_adult, ids, label");
    expect(message).toContain("required: movie_id, label");
  });

  it("ignores keys whose value is undefined", () => {
    expect(validateArguments(movieCredits, { movie_id: 1, label: "x", page: undefined, other: undefined })).toEqual({
      ok: true,
      values: { movie_id: 1, label: "x" },
    });
  });

  it("reports an enum violation with the allowed values and the given value", () => {
    const result = validateArguments(movieCredits, { movie_id: 1, label: "x", language: "de-DE" });
    expect(result).toMatchObject({ ok: false, argument: "language" });
    expect(!result.ok && result.message).toContain('["en-US","fr-FR"]');
    expect(!result.ok && result.message).toContain('"de-DE"');
  });

  it("reports schema constraints (minimum)", () => {
    const result = validateArguments(movieCredits, { movie_id: 0, label: "x" });
    expect(result).toMatchObject({ ok: false, argument: "movie_id" });
    expect(!result.ok && result.message).toContain("less than 1");
  });

  it("rejects a non-object arguments value", () => {
    const notAnObject: unknown = ["movie_id", 1];
    expect(validateArguments(movieCredits, notAnObject as Record<string, unknown>)).toMatchObject({ ok: false, kind: "invalid_arguments" });
  });

  describe("coercion (path/query/header only)", () => {
    it("turns a numeric string into an integer for a query/path parameter", () => {
      expect(validateArguments(movieCredits, { movie_id: "550", label: "x", page: "2" })).toEqual({
        ok: true,
        values: { movie_id: 550, label: "x", page: 2 },
      });
    });

    it("turns a number into a string for a string path parameter", () => {
      expect(validateArguments(movieCredits, { movie_id: 1, label: 42 })).toEqual({ ok: true, values: { movie_id: 1, label: "42" } });
    });

    it("turns 'true'/'false' into booleans and coerces array items", () => {
      expect(validateArguments(movieCredits, { movie_id: 1, label: "x", include_adult: "false", ids: ["3", "4"] })).toEqual({
        ok: true,
        values: { movie_id: 1, label: "x", include_adult: false, ids: [3, 4] },
      });
    });

    it("does not round a long numeric ID into a different number", () => {
      expect(validateArguments(movieCredits, { movie_id: "12345678901234567890", label: "x" })).toMatchObject({ ok: false, argument: "movie_id" });
    });

    it("does not coerce non-obvious strings", () => {
      for (const bad of ["1e", " 12", "0x10", "12abc", "", "1,000"]) {
        expect(validateArguments(movieCredits, { movie_id: bad, label: "x" })).toMatchObject({ ok: false, argument: "movie_id" });
      }
    });

    it("never coerces body parameters", () => {
      const result = validateArguments(createItem, { title: "t", count: "3" });
      expect(result).toMatchObject({ ok: false, kind: "invalid_arguments", argument: "count" });
      expect(validateArguments(createItem, { title: 5 })).toMatchObject({ ok: false, argument: "title" });
    });

    it("coerces header parameters", () => {
      expect(validateArguments(createItem, { title: "t", trace: 7 })).toEqual({ ok: true, values: { title: "t", trace: "7" } });
    });
  });

  describe("null and OpenAPI 3.0 idioms", () => {
    it("treats null as absent for an optional query parameter", () => {
      expect(validateArguments(movieCredits, { movie_id: 1, label: "x", page: null })).toEqual({ ok: true, values: { movie_id: 1, label: "x" } });
    });

    it("treats null as missing for a required path parameter", () => {
      expect(validateArguments(movieCredits, { movie_id: null, label: "x" })).toMatchObject({ ok: false, argument: "movie_id" });
    });

    it("accepts null for a body parameter marked nullable", () => {
      expect(validateArguments(createItem, { title: "t", note: null, owner: null })).toEqual({
        ok: true,
        values: { title: "t", note: null, owner: null },
      });
      // and still validates the non-null branch
      expect(validateArguments(createItem, { title: "t", owner: {} })).toMatchObject({ ok: false, argument: "owner" });
    });

    it("rejects null for a body parameter that is not nullable", () => {
      expect(validateArguments(createItem, { title: "t", tag: null })).toMatchObject({ ok: false, argument: "tag" });
    });

    it("reads draft-4 boolean exclusiveMinimum", () => {
      expect(validateArguments(createItem, { title: "t", ratio: 0 })).toMatchObject({ ok: false, argument: "ratio" });
      expect(validateArguments(createItem, { title: "t", ratio: 0.5 })).toMatchObject({ ok: true });
    });

    it("reports an unusable schema as a definition problem, not an argument problem", () => {
      const broken = ToolDefinition.parse({
        ...movieCredits,
        parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "((" } }],
      });
      expect(validateArguments(broken, { q: "x" })).toMatchObject({ ok: false, kind: "invalid_definition", argument: "q" });
    });
  });
});

describe("callTool validates before any network", () => {
  it("returns invalid_arguments and never calls fetch", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const result = await callTool(movieCredits, { movie_id: "abc", label: "x" }, { fetch });
    expect(fetch).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      ok: false,
      body: null,
      truncated: false,
      error: { kind: "invalid_arguments", argument: "movie_id" },
      request: { method: "GET" },
    });
  });

  it("sends the coerced value", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response("{}", { headers: { "Content-Type": "application/json" } }));
    const result = await callTool(movieCredits, { movie_id: "550", label: "x", ids: ["1", 2] }, { fetch });
    expect(result.ok).toBe(true);
    expect(fetch.mock.calls[0]?.[0]).toBe("https://api.themoviedb.org/3/movie/550/credits?ids=1&ids=2");
  });
});
