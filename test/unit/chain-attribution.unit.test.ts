import { describe, expect, it } from "vitest";
import { attributeFailure, parseAttributionAnswer, toolOnLine } from "../../functions/chain/attribution";
import type { TraceEntry } from "../../functions/sandbox/wire";

const known = new Set(["searchPerson", "personMovies", "getMovie", "getMovieCredits"]);

function call(tool: string, ok: boolean, error?: string): TraceEntry {
  return {
    index: 0,
    tool,
    arguments: {},
    sent: true,
    replayed: false,
    ok,
    durationMs: 1,
    bytes: 1,
    truncated: false,
    ...(error === undefined ? {} : { error }),
  };
}

const program = [
  "const people = await tools.searchPerson({ query: 'Sofia Coppola' });", // 1
  "const movies = await tools.personMovies({ personId: people.results[0].id });", // 2
  "const { cast } = await tools.getMovieCredits({ id: 1 });", // 3
  "const first = movies.cast[0];", // 4
  "return movies.total + people.total;", // 5
  "return cast.length;", // 6
  "return 42;", // 7
].join("\n");

describe("attribution: the tool a program line belongs to", () => {
  it("is the tool called on that line (the last one when there are several)", () => {
    expect(toolOnLine(program, 1, known)).toBe("searchPerson");
    expect(toolOnLine("const x = await tools.getMovie({ id: (await tools.searchPerson({})).id });", 1, known)).toBe("searchPerson");
  });

  it("is the tool whose result the line reads, through the variable it was assigned to", () => {
    expect(toolOnLine(program, 4, known)).toBe("personMovies");
  });

  it("is the first such variable on the line when the line reads several", () => {
    expect(toolOnLine(program, 5, known)).toBe("personMovies");
  });

  it("is unknown for destructured results, lines without tools, unknown tools and lines out of range", () => {
    expect(toolOnLine(program, 6, known)).toBeUndefined();
    expect(toolOnLine(program, 7, known)).toBeUndefined();
    expect(toolOnLine("const a = await tools.deleted({});\nreturn a.b;", 2, known)).toBeUndefined();
    expect(toolOnLine(program, 99, known)).toBeUndefined();
  });

  it("does not mistake a property of the same name for the variable", () => {
    expect(toolOnLine("const people = await tools.searchPerson({});\nreturn other.people.x;", 2, known)).toBeUndefined();
  });
});

describe("attribution: a failed attempt", () => {
  it("names the tool of an uncaught failed call", () => {
    expect(attributeFailure(program, { kind: "runtime", message: "ToolError: tool getMovie failed: 404", tool: "getMovie" }, [], known)).toEqual({
      tool: "getMovie",
      how: "failed_call",
    });
  });

  it("uses the last failed call of the trace when the error reports a tool failure", () => {
    const trace = [call("searchPerson", false, "searchPerson failed"), call("personMovies", true), call("getMovie", false, "getMovie failed")];
    expect(attributeFailure(program, { kind: "runtime", message: "Error: getMovie failed: HTTP 500" }, trace, known)).toEqual({
      tool: "getMovie",
      how: "failed_call",
    });
    expect(
      attributeFailure(program, { kind: "runtime", message: "TypeError: tool x is not in this run's candidate set" }, [call("x", false)], new Set(["x"])),
    ).toEqual({ tool: "x", how: "failed_call" });
  });

  it("does not blame a failed call for an error that is not a tool failure, and reads the line instead", () => {
    const trace = [call("getMovie", false, "getMovie failed")];
    expect(attributeFailure(program, { kind: "runtime", message: "TypeError: cannot read property '0' of undefined", line: 4 }, trace, known)).toEqual({
      tool: "personMovies",
      how: "program_line",
    });
    expect(attributeFailure(program, { kind: "timeout", message: "getMovie failed: deadline" }, trace, known)).toBeUndefined();
  });

  it("ignores a tool name it does not know and says undefined when nothing points at a tool", () => {
    expect(attributeFailure(program, { kind: "runtime", message: "ToolError", tool: "gone", line: 7 }, [], known)).toBeUndefined();
    expect(attributeFailure(program, { kind: "cpu_budget", message: "stopped" }, [call("searchPerson", true)], known)).toBeUndefined();
  });
});

describe("attribution: the model's answer to I_a", () => {
  const names = [...known];

  it("is the first known tool the answer mentions", () => {
    expect(parseAttributionAnswer("The error comes from personMovies; searchPerson was fine.", names)).toBe("personMovies");
    expect(parseAttributionAnswer("`searchPerson`", names)).toBe("searchPerson");
  });

  it("matches whole names: a tool whose name begins another's is not found inside it", () => {
    expect(parseAttributionAnswer("getMovieCredits returned no cast", names)).toBe("getMovieCredits");
    expect(parseAttributionAnswer("getMovie, then getMovieCredits", names)).toBe("getMovie");
  });

  it("is undefined when no known tool is named as a word", () => {
    expect(parseAttributionAnswer("I cannot tell which tool failed.", names)).toBeUndefined();
    expect(parseAttributionAnswer("searchPersonal", names)).toBeUndefined();
  });
});
