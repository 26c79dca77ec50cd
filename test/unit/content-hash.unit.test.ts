import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { contentHash } from "../../functions/tools/content-hash";
import type { ToolDefinition } from "../../functions/tools/definition";

type DefinitionInput = z.input<typeof ToolDefinition>;

const base: DefinitionInput = {
  name: "getMovieReviews",
  method: "GET",
  serverUrl: "https://api.themoviedb.org/3",
  path: "/movie/{movie_id}/reviews",
  operation: "GET /movie/{movie_id}/reviews",
  description: "Reviews of a movie.",
  parameters: [
    { name: "movie_id", in: "path", required: true, schema: { type: "integer" } },
    { name: "page", in: "query", schema: { type: "integer", default: 1, minimum: 1 } },
  ],
  responseSchema: { type: "object", properties: { results: { type: "array" } } },
  auth: { scheme: "apiKey", in: "query", name: "api_key" },
};

/** The same value with every object's keys in reverse order, at every depth. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

describe("contentHash", () => {
  it("is the sha256 hex of the RFC 8785 canonical JSON, defaults filled", async () => {
    const minimal: DefinitionInput = { name: "a", method: "GET", serverUrl: "https://e.example", path: "/x", operation: "GET /x" };
    // Written by hand: keys sorted, defaults (description, parameters, tags) present, no spaces.
    const canonical = '{"description":"","method":"GET","name":"a","operation":"GET /x","parameters":[],"path":"/x","serverUrl":"https://e.example","tags":[]}';
    expect(await contentHash(minimal)).toBe(createHash("sha256").update(canonical).digest("hex"));
  });

  it("is stable: same definition, key order, explicit or omitted defaults", async () => {
    const hash = await contentHash(base);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await contentHash(structuredClone(base))).toBe(hash);
    expect(await contentHash(reverseKeys(base) as DefinitionInput)).toBe(hash);
    const explicitDefaults: DefinitionInput = {
      ...base,
      tags: [],
      parameters: [
        { name: "movie_id", in: "path", required: true, schema: { type: "integer" } },
        { name: "page", in: "query", required: false, schema: { minimum: 1, default: 1, type: "integer" } },
      ],
      auth: { scheme: "apiKey", in: "query", name: "api_key" },
      summary: undefined,
    };
    expect(await contentHash(explicitDefaults)).toBe(hash);
    const noParams: DefinitionInput = { ...base, parameters: undefined, description: undefined };
    expect(await contentHash(noParams)).toBe(await contentHash({ ...base, parameters: [], description: "" }));
  });

  it("changes with any change of what the tool is", async () => {
    const variants: DefinitionInput[] = [
      base,
      { ...base, method: "POST" },
      { ...base, path: "/movie/{movie_id}/review" },
      { ...base, serverUrl: "https://api.themoviedb.org/4" },
      { ...base, description: "Reviews of a movie!" },
      { ...base, parameters: [{ name: "movie_id", in: "path", required: true, schema: { type: "integer" } }] },
      { ...base, parameters: [{ name: "movie_id", in: "path", required: true, schema: { type: "string" } }, ...(base.parameters ?? []).slice(1)] },
      {
        ...base,
        parameters: [
          ...(base.parameters ?? []).slice(0, 1),
          { name: "page", in: "query", required: true, schema: { type: "integer", default: 1, minimum: 1 } },
        ],
      },
      { ...base, parameters: [...(base.parameters ?? []).slice(0, 1), { name: "page", in: "header", schema: { type: "integer", default: 1, minimum: 1 } }] },
      { ...base, responseSchema: { type: "object", properties: { results: { type: "object" } } } },
      { ...base, responseExample: { results: [] } },
      { ...base, auth: { scheme: "bearer" } },
      { ...base, tags: ["movies"] },
    ];
    const hashes = await Promise.all(variants.map((v) => contentHash(v)));
    expect(new Set(hashes).size).toBe(variants.length);
  });

  it("rejects something that is not a tool definition", async () => {
    await expect(contentHash({ ...base, name: "not an identifier" })).rejects.toThrow();
    await expect(contentHash({ ...base, extra: true } as DefinitionInput)).rejects.toThrow();
  });
});
