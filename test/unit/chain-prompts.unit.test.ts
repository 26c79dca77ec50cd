import { describe, expect, it } from "vitest";
import { attributionMessages, generationMessages, revisionMessages } from "../../functions/chain/prompts";
import { ToolDefinition } from "../../functions/tools/definition";

const searchPerson = ToolDefinition.parse({
  name: "searchPerson",
  method: "GET",
  serverUrl: "https://api.example.com",
  path: "/search/person",
  operation: "GET /search/person",
  summary: "Search people by name.",
  description: `Search for people by name. ${"Matches are fuzzy and ranked by popularity. ".repeat(20)}`,
  parameters: [{ name: "query", in: "query", required: true, schema: { type: "string" } }],
  responseSchema: { type: "object", properties: { results: { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } } } },
});
const personMovies = ToolDefinition.parse({
  name: "personMovies",
  method: "GET",
  serverUrl: "https://api.example.com",
  path: "/person/{person_id}/movie_credits",
  operation: "GET /person/{person_id}/movie_credits",
  description: `The movies of a person. ${"Crew and cast are listed apart. ".repeat(25)}Cast entries carry \`character\`.`,
  parameters: [{ name: "person_id", in: "path", required: true, schema: { type: "integer" } }],
});
const tools = [searchPerson, personMovies];
const task = "Which movies did Sofia Coppola direct?";

function content(message: { content: string } | undefined): string {
  return message?.content ?? "";
}

describe("prompts: I_c, the first program", () => {
  it("is a system and a user message with the typed API of every tool, the contract and the query", () => {
    const messages = generationMessages(task, tools, new Map());
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    const user = content(messages[1]);
    expect(user).toContain("declare const tools: {");
    expect(user).toContain("searchPerson(args: {");
    expect(user).toContain("personMovies(args: {");
    expect(user).toContain("Promise<{ results?: { id?: number }[] }>");
    expect(user).toContain("await tools.<name>(");
    expect(user).toContain("return <final answer>");
    expect(user.endsWith(`\nQuery: ${task}\nYour output:\n\`\`\`ts\n[Program]\n\`\`\``)).toBe(true);
  });

  it("shows a probed description, response schema and example instead of the registered ones", () => {
    const overrides = new Map([
      [
        "personMovies",
        {
          description: "Lists a person's films (probed).",
          responseSchema: { type: "object", properties: { cast: { type: "array" } } },
          example: { query: "films of 1", program: "return await tools.personMovies({ person_id: 1 });" },
        },
      ],
    ]);
    const user = content(generationMessages(task, tools, overrides)[1]);
    expect(user).toContain("Lists a person's films (probed).");
    expect(user).not.toContain("The movies of a person.");
    expect(user).toContain("Promise<{ cast?: unknown[] }>");
    expect(user).toContain("return await tools.personMovies({ person_id: 1 });");
  });
});

describe("prompts: the revision (eq. 2)", () => {
  const attempts = [
    {
      program: "return (await tools.searchPerson({ query: 'x' })).results[0].name;",
      error: "runtime: TypeError: name is undefined",
      attributedTool: "searchPerson",
    },
    { program: "return (await tools.personMovies({ person_id: 1 })).cast;", error: "runtime: ToolError: tool personMovies failed", attributedTool: undefined },
  ];

  it("repeats I_c, then adds every earlier attempt with its error and attribution, and the attributed tool's full protocol", () => {
    const messages = revisionMessages(task, tools, new Map(), attempts, personMovies, 4_000);
    expect(messages.slice(0, 2)).toEqual(generationMessages(task, tools, new Map()));
    expect(messages).toHaveLength(3);
    const revision = content(messages[2]);
    expect(revision).toContain("Attempt 1 (the error was attributed to searchPerson):");
    expect(revision).toContain(attempts[0]?.program);
    expect(revision).toContain("runtime: TypeError: name is undefined");
    expect(revision).toContain("Attempt 2:\n");
    expect(revision.indexOf("Attempt 1")).toBeLessThan(revision.indexOf("Attempt 2"));
    expect(revision).toContain("Here is the full protocol of personMovies");
    // Full: the whole description, which the first prompt cuts at 600 characters.
    expect(revision).toContain("Cast entries carry `character`.");
    expect(content(messages[1])).not.toContain("Cast entries carry `character`.");
    expect(revision).toContain("Output the whole corrected program.");
  });

  it("has no protocol section when no tool was attributed", () => {
    const revision = content(revisionMessages(task, tools, new Map(), attempts, undefined, 4_000)[2]);
    expect(revision).not.toContain("full protocol");
  });

  it("cuts long programs and errors to the feedback budget, sharing it between attempts", () => {
    const long = [{ program: "x".repeat(40_000), error: "y".repeat(40_000), attributedTool: undefined }];
    const small = content(revisionMessages(task, tools, new Map(), long, undefined, 1_000)[2]);
    const large = content(revisionMessages(task, tools, new Map(), long, undefined, 4_000)[2]);
    expect(small).toContain("truncated");
    expect(small.length).toBeLessThan(4_000 + 1_000);
    expect(large.length).toBeGreaterThan(small.length * 3);
    const four = content(revisionMessages(task, tools, new Map(), [...long, ...long, ...long, ...long], undefined, 4_000)[2]);
    expect(four.length).toBeLessThan(large.length * 1.3);
  });
});

describe("prompts: I_a, which tool failed", () => {
  it("shows the program, the task, one line per tool (summary first) and the error, and asks for a tool name", () => {
    const [message] = attributionMessages(task, tools, "const p = await tools.searchPerson({ query: 'x' });", "TypeError: boom", 2_000);
    const text = content(message);
    expect(text).toContain("const p = await tools.searchPerson({ query: 'x' });");
    expect(text).toContain(`"${task}"`);
    expect(text).toContain("- searchPerson: Search people by name.");
    expect(text).toMatch(/- personMovies: The movies of a person\. .{0,200}\n/);
    expect(text).not.toContain("Cast entries carry");
    expect(text).toContain("=====\nTypeError: boom\n=====");
    expect(text).toContain("Your output: [the tool name]");
  });

  it("cuts the program and the error to the budget", () => {
    const [message] = attributionMessages(task, tools, "p".repeat(50_000), "e".repeat(50_000), 500);
    expect(content(message).length).toBeLessThan(500 * 4 + 2_000);
    expect(content(message)).toContain("truncated");
  });
});
