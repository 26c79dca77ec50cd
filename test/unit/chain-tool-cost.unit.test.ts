import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toolPromptTokens } from "../../functions/chain/tool-cost";
import { countTokens } from "../../functions/text/token-count";
import { renderToolSignature, renderToolsApi } from "../../functions/chain/typed-api";
import { ToolDefinition } from "../../functions/tools/definition";
import { importOpenApi } from "../../functions/tools/openapi-import";

const def = ToolDefinition.parse({
  name: "getPersonMovieCredits",
  method: "GET",
  serverUrl: "https://api.example.com",
  path: "/person/{person_id}/movie_credits",
  operation: "GET /person/{person_id}/movie_credits",
  description: "Get the movie credits for a person.",
  parameters: [{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }],
  responseSchema: {
    type: "object",
    properties: { cast: { type: "array", items: { type: "object", properties: { id: { type: "integer" }, title: { type: "string" } } } } },
  },
});

describe("what a tool costs in a run prompt", () => {
  it("counts with the real tokenizer (o200k_base)", () => {
    // Counts of js-tiktoken's o200k_base encoder; a characters/4 estimate would say 3 and 24.
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("declare const tools: { getPersonMovieCredits(args: { person_id: number }): Promise<unknown>; };")).toBe(22);
  });

  it("prices exactly the signature the run prompt shows, with its description override", () => {
    expect(toolPromptTokens(def, "h1")).toBe(countTokens(renderToolSignature(def)));
    expect(renderToolsApi([def])).toContain(renderToolSignature(def));
    const description = "Every film a person acted in or worked on, with their role and the film's id; use the id with movie tools.";
    expect(toolPromptTokens(def, "h1", { description })).toBe(countTokens(renderToolSignature(def, { description })));
    expect(toolPromptTokens(def, "h1", { description })).toBeGreaterThan(toolPromptTokens(def, "h1"));
  });

  it("costs a real spec's tools a fraction of their whole stored definitions", async () => {
    const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object;
    const { tools } = await importOpenApi(document);
    const shown = tools.reduce((sum, t) => sum + toolPromptTokens(t, t.name), 0);
    const stored = tools.reduce((sum, t) => sum + countTokens(JSON.stringify(t)), 0);
    expect(shown).toBeLessThan(stored / 3);
  });
});
