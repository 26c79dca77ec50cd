import { describe, expect, it } from "vitest";
import { evaluatorMessages, parseEvaluatorAnswer, type EvaluationRequest } from "../../functions/chain/evaluator";
import { evaluationFromRun } from "../../functions/chain/run-learning";
import type { RunOutcome } from "../../functions/chain/run-task";

const request: EvaluationRequest = {
  task: "Which movies did Sofia Coppola direct?",
  steps: [
    { tool: "searchPerson", arguments: { query: "Sofia Coppola" }, ok: true, outcome: `{"results":[{"id":1769}]}${" ".repeat(1_000)}END` },
    { tool: "personMovies", arguments: { person_id: 1769 }, ok: false, outcome: "HTTP 500" },
  ],
  answer: ["Lost in Translation"],
  succeeded: true,
};

describe("evaluator: the prompt", () => {
  it("lists every call in order with its arguments, ok or FAILED, and a clipped outcome", () => {
    const [message, ...rest] = evaluatorMessages(request);
    expect(rest).toEqual([]);
    expect(message?.role).toBe("user");
    const text = typeof message?.content === "string" ? message.content : "";
    expect(text).toContain(`Task: ${request.task}`);
    expect(text).toContain('1. searchPerson({"query":"Sofia Coppola"}) → ok: {"results":[{"id":1769}]}');
    expect(text).toContain('2. personMovies({"person_id":1769}) → FAILED: HTTP 500');
    expect(text).not.toContain("END");
    expect(text).toContain('the run produced an answer — answer: ["Lost in Translation"]');
    expect(text).toContain("2 in all");
  });

  it("says when the run failed and shows no answer then", () => {
    const { answer: _answer, ...rest } = request;
    const [message] = evaluatorMessages({ ...rest, succeeded: false });
    const text = typeof message?.content === "string" ? message.content : "";
    expect(text).toContain("Outcome: the run failed\n");
    expect(text).not.toContain("answer:");
  });
});

describe("evaluator: reading the answer", () => {
  it("takes one integer in [-3, 3] per step, also from JSON inside prose", () => {
    expect(parseEvaluatorAnswer('{"scores": [3, -3]}', 2)).toEqual([3, -3]);
    expect(parseEvaluatorAnswer('Here you go:\n```json\n{"scores":[0,1]}\n```', 2)).toEqual([0, 1]);
  });

  it("refuses a wrong count, out-of-range or fractional scores, and anything that is not the JSON asked for", () => {
    expect(parseEvaluatorAnswer('{"scores": [3]}', 2)).toBeUndefined();
    expect(parseEvaluatorAnswer('{"scores": [3, 4]}', 2)).toBeUndefined();
    expect(parseEvaluatorAnswer('{"scores": [1.5, 0]}', 2)).toBeUndefined();
    expect(parseEvaluatorAnswer('{"scores": "3, 3"}', 2)).toBeUndefined();
    expect(parseEvaluatorAnswer("{scores: [1, 1]}", 2)).toBeUndefined();
    expect(parseEvaluatorAnswer("3, 3", 2)).toBeUndefined();
  });
});

describe("evaluator: the view of a run", () => {
  it("is the final attempt's sent or replayed calls, with results or errors as outcomes", () => {
    const base = { arguments: {}, durationMs: 1, bytes: 1, truncated: false };
    const outcome: RunOutcome = {
      status: "succeeded",
      answer: 7,
      attempts: [
        { attempt: 1, program: "a", ok: false, logs: [], durationMs: 1, trace: [{ ...base, index: 0, tool: "old", sent: true, replayed: false, ok: true }] },
        {
          attempt: 2,
          program: "b",
          ok: true,
          logs: [],
          durationMs: 1,
          trace: [
            { ...base, index: 0, tool: "created", sent: false, replayed: true, ok: true, result: { id: 9 } },
            { ...base, index: 1, tool: "refused", sent: false, replayed: false, ok: false, error: "not in this run's candidate set" },
            { ...base, index: 2, tool: "broken", sent: true, replayed: false, ok: false, error: "broken failed: HTTP 500" },
          ],
        },
      ],
      modelCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      trajectory: ["created"],
    };
    expect(evaluationFromRun("task", outcome)).toEqual({
      task: "task",
      steps: [
        { tool: "created", arguments: {}, ok: true, outcome: '{"id":9}' },
        { tool: "broken", arguments: {}, ok: false, outcome: "broken failed: HTTP 500" },
      ],
      succeeded: true,
      answer: 7,
    });
    expect(evaluationFromRun("task", { ...outcome, attempts: [] })).toBeUndefined();
  });
});
