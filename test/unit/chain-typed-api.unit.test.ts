import { describe, expect, it } from "vitest";
import { renderToolsApi, schemaToTs } from "../../functions/chain/typed-api";
import { ToolDefinition } from "../../functions/tools/definition";

const credits = ToolDefinition.parse({
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

describe("typed tool API", () => {
  it("renders schemas as TypeScript types", () => {
    expect(schemaToTs({ type: "array", items: { type: ["string", "null"] } })).toBe("(string | null)[]");
    expect(schemaToTs({ type: "object", properties: { a: { type: "integer" }, "b-c": { enum: ["x", "y"] } }, required: ["a"] })).toBe(
      '{ a: number; "b-c"?: "x" | "y" }',
    );
    expect(schemaToTs(undefined)).toBe("unknown");
  });

  it("renders each tool as a documented method with argument and response types", () => {
    const api = renderToolsApi([credits]);
    expect(api).toContain("declare const tools: {");
    expect(api).toContain("getPersonMovieCredits(args: {");
    expect(api).toContain("person_id: number;");
    expect(api).toContain("Promise<{ cast?: { id?: number; title?: string }[] }>");
    expect(api).toContain("GET /person/{person_id}/movie_credits");
  });

  it("uses a probed response schema and example when given", () => {
    const bare = ToolDefinition.parse({ ...credits, responseSchema: undefined });
    expect(renderToolsApi([bare])).toContain("response not documented");
    const api = renderToolsApi(
      [bare],
      new Map([
        [
          "getPersonMovieCredits",
          {
            responseSchema: { type: "object", properties: { id: { type: "integer" } } },
            example: { query: "films of 287", program: "return await tools.getPersonMovieCredits({ person_id: 287 });" },
          },
        ],
      ]),
    );
    expect(api).toContain("Promise<{ id?: number }>");
    expect(api).toContain("films of 287");
  });
});
