import { describe, expect, it } from "vitest";
import { parseFromHost, parseToHost } from "../../functions/sandbox/program-host/messages";

/** The program host's socket carries JSON text; anything else is refused on both sides. */
describe("program host messages", () => {
  const outcome = {
    result: { ok: true, answer: 1, logs: [], calls: [], stats: { toolCalls: 0, interruptChecks: 0, fuel: 0, durationMs: 1 } },
    trace: [],
    timing: { engineReadyMs: undefined },
  };

  const run = { type: "run", tenantId: "t", mode: "tenant", deadlineMs: 1_000, deadlineAt: 1_764_158_400_000, request: { program: "return 1;" } };

  it("reads the service's run and answers, and nothing else", () => {
    expect(parseToHost(JSON.stringify(run))).toMatchObject({ type: "run", deadlineMs: 1_000, deadlineAt: 1_764_158_400_000 });
    expect(parseToHost(JSON.stringify({ type: "answer", id: 3, answer: { ok: true, value: 1 } }))).toMatchObject({ type: "answer", id: 3 });
    for (const bad of [
      "",
      "not json",
      "[]",
      "null",
      JSON.stringify({ type: "run" }),
      JSON.stringify({ type: "answer", id: "3", answer: {} }),
      JSON.stringify({ type: "call", id: 1, name: "x" }),
    ]) {
      expect(parseToHost(bad), bad).toBeUndefined();
    }
    expect(parseToHost(new ArrayBuffer(4))).toBeUndefined();
  });

  it("refuses a run without a valid deadline, relative or absolute", () => {
    const { deadlineAt: _at, ...withoutAbsolute } = run;
    const { deadlineMs: _ms, ...withoutRelative } = run;
    for (const bad of [
      withoutAbsolute,
      withoutRelative,
      { ...run, deadlineAt: "1764158400000" },
      { ...run, deadlineAt: 0 },
      { ...run, deadlineAt: -5 },
      { ...run, deadlineMs: null },
    ]) {
      expect(parseToHost(JSON.stringify(bad)), JSON.stringify(bad)).toBeUndefined();
    }
    // JSON has no Infinity or NaN: they arrive as null, refused above.
  });

  it("reads the host's calls and result, and nothing else", () => {
    expect(parseFromHost(JSON.stringify({ type: "call", id: 1, name: "getGenreMovieList", args: {} }))).toMatchObject({
      type: "call",
      id: 1,
      name: "getGenreMovieList",
    });
    expect(parseFromHost(JSON.stringify({ type: "result", outcome }))?.type).toBe("result");
    for (const bad of [
      "{",
      JSON.stringify({ type: "result", outcome: { result: {} } }),
      JSON.stringify({ type: "result" }),
      JSON.stringify({ type: "call", id: 1 }),
      JSON.stringify({ type: "answer", id: 1, answer: {} }),
    ]) {
      expect(parseFromHost(bad), bad).toBeUndefined();
    }
  });
});
