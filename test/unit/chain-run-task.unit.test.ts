import { beforeAll, describe, expect, it } from "vitest";
import { RunInterrupted, runTask, type AttemptExecution, type RunDependencies, type RunEvent, type RunTaskInput } from "../../functions/chain/run-task";
import type { ChatMessage } from "../../functions/llm/client";
import { executeProgram, loadQuickJs, type QuickJsEngine } from "../../functions/sandbox/index";
import type { ProgramError } from "../../functions/sandbox/types";
import { callKey, type ReplayRecord, type TraceEntry } from "../../functions/sandbox/wire";
import { ToolDefinition } from "../../functions/tools/definition";
import { moduleReach } from "../../scripts/module-reach.mjs";

/**
 * The Automatic Tool Chain loop (chain/run-task.ts) with its platform replaced by fakes: a
 * scripted model, and either scripted executions or the QuickJS sandbox running in Node behind
 * a fake tool gateway. No workerd, no network.
 */

function tool(name: string, method: "GET" | "POST", description: string, responseSchema?: Record<string, unknown>) {
  return ToolDefinition.parse({
    name,
    method,
    serverUrl: "https://api.example.com",
    path: `/${name}`,
    operation: `${method} /${name}`,
    description,
    parameters: [{ name: "id", in: method === "GET" ? "query" : "body", required: true, schema: { type: "integer" } }],
    ...(responseSchema === undefined ? {} : { responseSchema }),
  });
}

const searchMovie = tool("searchMovie", "GET", "Search movies by title; returns matching ids.", {
  type: "object",
  properties: { results: { type: "array", items: { type: "object", properties: { id: { type: "integer" } } } } },
});
const getMovie = tool("getMovie", "GET", `Get a movie's details. ${"Release dates are per country. ".repeat(30)}The title is under \`original_title\`.`, {
  type: "object",
  properties: { original_title: { type: "string" } },
});
const createList = tool("createList", "POST", "Create a list of movies; returns its id.");

interface ChatCall {
  purpose: string;
  messages: ChatMessage[];
}

/** A model that answers from a script, one answer per purpose in order, and records every call. */
function scriptedModel(script: Partial<Record<"generate" | "revise" | "attribute", string[]>>) {
  const calls: ChatCall[] = [];
  const left = { generate: [...(script.generate ?? [])], revise: [...(script.revise ?? [])], attribute: [...(script.attribute ?? [])] };
  const chat: RunDependencies["chat"] = async (messages, purpose) => {
    calls.push({ purpose, messages });
    const content = left[purpose].shift();
    if (content === undefined) throw new Error(`unscripted ${purpose} call`);
    return { content, usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 }, durationMs: 5 };
  };
  return { chat, calls };
}

function text(message: ChatMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : "";
}

function entry(index: number, name: string, fields: Partial<TraceEntry> = {}): TraceEntry {
  return {
    index,
    tool: name,
    arguments: { id: index },
    method: "GET",
    sent: true,
    replayed: false,
    ok: true,
    status: 200,
    durationMs: 1,
    bytes: 10,
    truncated: false,
    ...fields,
  };
}

function executions(...results: AttemptExecution[]) {
  const programs: string[] = [];
  const replays: ReplayRecord[][] = [];
  const execute: RunDependencies["execute"] = async (program, replay) => {
    programs.push(program);
    replays.push(replay);
    const next = results.shift();
    if (next === undefined) throw new Error("unscripted execution");
    return next;
  };
  return { execute, programs, replays };
}

const ok = (answer: unknown, trace: TraceEntry[] = []): AttemptExecution => ({ ok: true, answer, logs: [], trace, durationMs: 3 });
const failed = (error: ProgramError, trace: TraceEntry[] = []): AttemptExecution => ({ ok: false, error, logs: [], trace, durationMs: 3 });

function input(overrides: Partial<RunTaskInput> = {}): RunTaskInput {
  return {
    task: "What is the original title of movie 1?",
    tools: [searchMovie, getMovie, createList],
    overrides: new Map(),
    maxAttempts: 3,
    feedbackTokenBudget: 2_000,
    ...overrides,
  };
}

describe("runTask: the success path", () => {
  it("runs the program the model wrote (fence removed), returns its answer, trajectory and usage, and emits progress in order", async () => {
    const model = scriptedModel({ generate: ["Here it is:\n```ts\nconst m = await tools.getMovie({ id: 1 });\nreturn m.original_title;\n```\nDone."] });
    const run = executions(ok("Alien", [entry(0, "searchMovie", { ok: false, error: "searchMovie failed" }), entry(1, "getMovie")]));
    const events: RunEvent[] = [];
    const outcome = await runTask(input(), { chat: model.chat, execute: run.execute, emit: (e) => events.push(e) });

    expect(run.programs).toEqual(["const m = await tools.getMovie({ id: 1 });\nreturn m.original_title;"]);
    expect(outcome).toMatchObject({ status: "succeeded", answer: "Alien", finalProgram: run.programs[0], trajectory: ["getMovie"] });
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.modelCalls.map((c) => c.purpose)).toEqual(["generate"]);
    expect(outcome.usage).toEqual({ promptTokens: 100, completionTokens: 10, totalTokens: 110 });
    expect(events.map((e) => e.type)).toEqual(["attempt_started", "program", "tool_called", "tool_called", "answer"]);
    // The first prompt documents every candidate tool as a typed API.
    const prompt = text(model.calls[0]?.messages[1]);
    for (const name of ["searchMovie", "getMovie", "createList"]) expect(prompt).toContain(`${name}(args: {`);
    expect(prompt).toContain("Query: What is the original title of movie 1?");
  });
});

describe("runTask: other requests between a run's phases", () => {
  it("takes an event-loop turn before each model call, before each program runs and before it returns", async () => {
    const steps: string[] = [];
    const model = scriptedModel({ generate: ["return (await tools.getMovie({ id: 1 })).title;"], attribute: ["getMovie"], revise: ["return 1;"] });
    const run = executions(failed({ kind: "runtime", message: "TypeError: cannot read title" }), ok(1));
    const outcome = await runTask(input(), {
      chat: async (messages, purpose) => {
        steps.push(purpose);
        return model.chat(messages, purpose);
      },
      execute: async (program, replay) => {
        steps.push("execute");
        return run.execute(program, replay);
      },
      yieldTurn: async () => {
        steps.push("turn");
        await new Promise((resolve) => setTimeout(resolve, 0));
      },
    });

    expect(outcome.status).toBe("succeeded");
    expect(steps).toEqual(["turn", "generate", "turn", "execute", "turn", "attribute", "turn", "revise", "turn", "execute", "turn"]);
  });
});

describe("runTask: attributable reflection", () => {
  it("attributes a failed tool call to its tool and revises with that tool's full protocol, without asking the model", async () => {
    const model = scriptedModel({
      generate: ["return (await tools.getMovie({ id: 1 })).title;"],
      revise: ["```ts\nreturn (await tools.getMovie({ id: 1 })).original_title;\n```"],
    });
    const error: ProgramError = { kind: "runtime", message: "ToolError: tool getMovie failed: HTTP 404", line: 1, tool: "getMovie" };
    const run = executions(
      failed(error, [entry(0, "getMovie", { ok: false, status: 404, error: "getMovie failed: HTTP 404" })]),
      ok("Alien", [entry(0, "getMovie")]),
    );
    const events: RunEvent[] = [];
    const outcome = await runTask(input(), { chat: model.chat, execute: run.execute, emit: (e) => events.push(e) });

    expect(outcome.status).toBe("succeeded");
    expect(outcome.attempts.map((a) => [a.ok, a.attributedTool, a.attributedBy])).toEqual([
      [false, "getMovie", "failed_call"],
      [true, undefined, undefined],
    ]);
    expect(model.calls.map((c) => c.purpose)).toEqual(["generate", "revise"]);
    expect(events).toContainEqual({ type: "error", attempt: 1, error, attributedTool: "getMovie" });
    const revision = text(model.calls[1]?.messages.at(-1));
    expect(revision).toContain("Attempt 1 (the error was attributed to getMovie)");
    expect(revision).toContain("return (await tools.getMovie({ id: 1 })).title;");
    expect(revision).toContain("runtime: ToolError: tool getMovie failed: HTTP 404");
    expect(revision).toContain('last failed tool call: getMovie({"id":0}) → getMovie failed: HTTP 404');
    expect(revision).toContain("Here is the full protocol of getMovie");
    // The full protocol is the long description, not the 600-character cut of the first prompt.
    expect(revision).toContain("The title is under `original_title`.");
    expect(text(model.calls[0]?.messages[1])).not.toContain("The title is under `original_title`.");
  });

  it("asks the model which tool failed when the evidence does not say, and uses its answer", async () => {
    const program = "const id = 7;\nreturn String(undefinedThing.id);";
    const model = scriptedModel({ generate: [program], attribute: ["The bug is in searchMovie, it was never called."], revise: ["return 'Alien';"] });
    const run = executions(failed({ kind: "runtime", message: "ReferenceError: undefinedThing is not defined", line: 2 }), ok("Alien"));
    const outcome = await runTask(input(), { chat: model.chat, execute: run.execute });

    expect(model.calls.map((c) => c.purpose)).toEqual(["generate", "attribute", "revise"]);
    const question = text(model.calls[1]?.messages[0]);
    expect(question).toContain(program);
    expect(question).toContain("ReferenceError: undefinedThing is not defined");
    expect(outcome.attempts[0]).toMatchObject({ attributedTool: "searchMovie", attributedBy: "model" });
    expect(text(model.calls[2]?.messages.at(-1))).toContain("Here is the full protocol of searchMovie");
    expect(outcome.modelCalls.map((c) => [c.purpose, c.attempt])).toEqual([
      ["generate", 1],
      ["attribute", 1],
      ["revise", 2],
    ]);
    expect(outcome.usage.totalTokens).toBe(330);
  });

  it("revises without an attributed tool when the model names none, and never asks about a syntax error", async () => {
    const model = scriptedModel({ generate: ["return ("], revise: ["return x.y;", "return 1;"], attribute: ["I cannot tell."] });
    const run = executions(
      failed({ kind: "syntax", message: "SyntaxError: Unexpected token (1:8)", line: 1 }),
      failed({ kind: "runtime", message: "ReferenceError: x is not defined", line: 1 }),
      ok(1),
    );
    const outcome = await runTask(input(), { chat: model.chat, execute: run.execute });

    expect(model.calls.map((c) => c.purpose)).toEqual(["generate", "revise", "attribute", "revise"]);
    expect(outcome.attempts.map((a) => a.attributedTool)).toEqual([undefined, undefined, undefined]);
    const last = text(model.calls[3]?.messages.at(-1));
    expect(last).toContain("Attempt 1:");
    expect(last).toContain("Attempt 2:");
    expect(last).not.toContain("full protocol");
  });

  it("treats a program that ends without a return (undefined) as a failure to revise", async () => {
    const model = scriptedModel({ generate: ["await tools.getMovie({ id: 1 });"], attribute: ["no idea"], revise: ["return 0;"] });
    const run = executions(ok(undefined, [entry(0, "getMovie")]), ok(0));
    const outcome = await runTask(input(), { chat: model.chat, execute: run.execute });

    expect(outcome).toMatchObject({ status: "succeeded", answer: 0 });
    expect(outcome.error).toBeUndefined();
    expect(outcome.attempts.map((a) => a.ok)).toEqual([false, true]);
    expect(outcome.attempts[0]?.error?.message).toContain("without returning a final answer");
    expect(text(model.calls.at(-1)?.messages.at(-1))).toContain("without returning a final answer");
  });

  it.each<[string, unknown]>([
    ["null", null],
    ['""', ""],
    ["[]", []],
    ["{answer: null, note}", { answer: null, note: "The search found nothing named Nobody Atall." }],
  ])("ends no_answer, not succeeded, when the program returns %s, with one model call and an error naming the run", async (_label, answer) => {
    const model = scriptedModel({ generate: ["const found = await tools.searchMovie({ id: 1 });\nreturn found.results[0] ?? null;"] });
    const run = executions(ok(answer, [entry(0, "searchMovie")]));
    const outcome = await runTask(input({ runId: "run_abc" }), { chat: model.chat, execute: run.execute });

    expect(outcome.status).toBe("no_answer");
    expect(outcome.error?.code).toBe("no_answer");
    expect(outcome.error?.message).toContain("run_abc");
    expect(model.calls).toHaveLength(1);
    expect(outcome.attempts).toHaveLength(1);
  });
});

describe("runTask: a model that cannot do the task", () => {
  const demoRefusal =
    'throw new Error("The demo model (npm start -- --demo-model) cannot answer this task: it writes programs only for questions like count of movies acted in.");';

  it("is not revised when its program only throws: one model call, a top-level error with its words and the run's id", async () => {
    const model = scriptedModel({
      generate: [`\`\`\`ts\n${demoRefusal}\n\`\`\``],
      revise: [demoRefusal, demoRefusal],
      attribute: ["searchMovie", "searchMovie"],
    });
    const run = executions(
      failed({ kind: "runtime", message: "Error: The demo model (npm start -- --demo-model) cannot answer this task: it writes programs only for …", line: 1 }),
    );
    const outcome = await runTask(input({ runId: "run_refused" }), { chat: model.chat, execute: run.execute });

    expect(outcome.status).toBe("failed");
    expect(model.calls.map((c) => c.purpose)).toEqual(["generate"]);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.error?.code).toBe("model_declined");
    expect(outcome.error?.message).toContain("run_refused");
    expect(outcome.error?.message).toContain("cannot answer this task");
  });

  it("is not revised when it answers in sentences instead of a program", async () => {
    const words = "I'm sorry, but none of these tools can tell the weather on Mars.";
    const model = scriptedModel({ generate: [words], revise: [words, words], attribute: ["searchMovie", "searchMovie"] });
    const run = executions(failed({ kind: "syntax", message: "SyntaxError: unexpected token", line: 1 }));
    const outcome = await runTask(input(), { chat: model.chat, execute: run.execute });

    expect(model.calls).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "failed", error: { code: "model_declined" } });
    expect(outcome.error?.message).toContain("weather on Mars");
  });
});

describe("runTask: what a failed run keeps and says", () => {
  it("a failed run has a top-level error naming the run and the last attempt's error", async () => {
    const model = scriptedModel({
      generate: ["return tools.getMovie({ id: 1 }).x.y;"],
      revise: ["return tools.getMovie({ id: 2 }).x.y;"],
      attribute: ["getMovie"],
    });
    const typeError: ProgramError = { kind: "runtime", message: "TypeError: cannot read property 'y' of undefined", line: 1 };
    const run = executions(failed(typeError), failed(typeError));
    const outcome = await runTask(input({ maxAttempts: 2, runId: "run_xyz" }), { chat: model.chat, execute: run.execute });

    expect(outcome.status).toBe("failed");
    expect(outcome.error?.code).toBe("attempts_exhausted");
    expect(outcome.error?.message).toContain("run_xyz");
    expect(outcome.error?.message).toContain("TypeError");
  });

  it("keeps attempt 1 when the revise call then fails", async () => {
    const model = scriptedModel({ generate: ["return tools.getMovie({ id: 1 }).x.y;"], attribute: ["getMovie"] });
    const run = executions(failed({ kind: "runtime", message: "TypeError: boom", line: 1 }, [entry(0, "getMovie")]));
    const stopped = await runTask(input({ runId: "run_kept" }), { chat: model.chat, execute: run.execute }).catch((e: unknown) => e);

    expect(stopped).toBeInstanceOf(RunInterrupted);
    const { outcome } = stopped as RunInterrupted;
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]).toMatchObject({ attempt: 1, program: "return tools.getMovie({ id: 1 }).x.y;", error: { message: "TypeError: boom" } });
    expect(outcome.attempts[0]?.trace).toHaveLength(1);
    expect(outcome.modelCalls.map((c) => c.purpose)).toEqual(["generate"]);
    expect(outcome.error?.message).toContain("run_kept");
    expect(outcome.error?.message).toContain("unscripted revise call");
  });

  it("keeps attempt 1 when the attribution call fails", async () => {
    const model = scriptedModel({ generate: ["return x.y;"] });
    const run = executions(failed({ kind: "runtime", message: "ReferenceError: x is not defined", line: 1 }));
    const stopped = await runTask(input(), { chat: model.chat, execute: run.execute }).catch((e: unknown) => e);
    expect((stopped as RunInterrupted).outcome.attempts.map((a) => a.program)).toEqual(["return x.y;"]);
  });
});

describe("runTask: limits", () => {
  it("stops after maxAttempts programs, reports the last one, and does not ask for attribution after the last", async () => {
    const model = scriptedModel({ generate: ["return a;"], revise: ["return b;"], attribute: ["searchMovie"] });
    const stopped: ProgramError = { kind: "cpu_budget", limit: "stretchBudget", message: "the program used its CPU budget" };
    const run = executions(
      failed({ kind: "runtime", message: "ReferenceError: a is not defined", line: 1 }),
      failed(stopped, [entry(0, "searchMovie"), entry(1, "getMovie", { ok: false, error: "getMovie failed" })]),
    );
    const outcome = await runTask(input({ maxAttempts: 2 }), { chat: model.chat, execute: run.execute });

    expect(outcome.status).toBe("failed");
    expect(outcome.answer).toBeUndefined();
    expect(outcome.attempts).toHaveLength(2);
    expect(run.programs).toEqual(["return a;", "return b;"]);
    expect(outcome.finalProgram).toBe("return b;");
    expect(outcome.attempts[1]?.error).toEqual(stopped);
    expect(outcome.trajectory).toEqual(["searchMovie"]);
    expect(model.calls.map((c) => c.purpose)).toEqual(["generate", "attribute", "revise"]);
  });

  it("with one attempt allowed, makes exactly one model call and one execution", async () => {
    const model = scriptedModel({ generate: ["return a;"] });
    const run = executions(failed({ kind: "runtime", message: "ReferenceError: a is not defined", line: 1 }));
    const outcome = await runTask(input({ maxAttempts: 1 }), { chat: model.chat, execute: run.execute });
    expect(outcome).toMatchObject({ status: "failed", finalProgram: "return a;" });
    expect(model.calls).toHaveLength(1);
    expect(run.programs).toHaveLength(1);
  });

  it("cuts what it feeds back to the token budget", async () => {
    const huge = `TypeError: ${"x".repeat(20_000)}`;
    const model = scriptedModel({ generate: ["return tools.getMovie({ id: 1 }).title;"], revise: ["return 1;"] });
    const run = executions(failed({ kind: "runtime", message: huge, line: 1 }), ok(1));
    await runTask(input({ feedbackTokenBudget: 500 }), { chat: model.chat, execute: run.execute });
    const revision = text(model.calls[1]?.messages.at(-1));
    expect(revision).toContain("truncated");
    expect(revision.length).toBeLessThan(3_000);
  });

  it("lets a model failure reach the caller", async () => {
    const chat: RunDependencies["chat"] = async () => {
      throw new Error("model endpoint down");
    };
    await expect(runTask(input(), { chat, execute: executions().execute })).rejects.toThrow("model endpoint down");
  });
});

describe("runTask: side effects are not repeated", () => {
  it("hands later attempts the successful, really sent non-GET calls to replay, keyed like the gateway", async () => {
    const model = scriptedModel({ generate: ["p1"], revise: ["p2", "p3"], attribute: ["getMovie", "getMovie"] });
    const created = entry(1, "createList", { method: "POST", arguments: { name: "mine" }, result: { id: 9 }, status: 201 });
    const run = executions(
      failed({ kind: "runtime", message: "TypeError: boom", line: 3 }, [
        entry(0, "getMovie"),
        created,
        entry(2, "createList", { method: "POST", ok: false, arguments: { name: "other" } }),
      ]),
      failed({ kind: "runtime", message: "TypeError: boom", line: 3 }, [{ ...created, sent: false, replayed: true }]),
      ok("done"),
    );
    await runTask(input(), { chat: model.chat, execute: run.execute });

    const record = { key: callKey("createList", { name: "mine" }), value: { id: 9 }, status: 201 };
    expect(run.replays).toEqual([[], [record], [record]]);
    expect(callKey("createList", { b: 1, a: 2 })).toBe(callKey("createList", { a: 2, b: 1 }));
  });
});

describe("runTask with the QuickJS sandbox behind a fake tool gateway", () => {
  let engine: QuickJsEngine;
  beforeAll(async () => {
    engine = await loadQuickJs();
  });

  /** A stand-in for the program isolate: the real sandbox in Node, tools answered from a table. */
  function sandboxed(answers: Record<string, (args: Record<string, unknown>) => unknown>): RunDependencies["execute"] {
    return async (program, replay) => {
      const trace: TraceEntry[] = [];
      const result = await executeProgram(program, {
        engine,
        tools: Object.keys(answers),
        callTool: async (name, args, context) => {
          const earlier = replay.find((r) => r.key === callKey(name, args));
          const base = {
            index: context.index,
            tool: name,
            arguments: args,
            method: "GET",
            durationMs: 0,
            bytes: 0,
            truncated: false,
            ...(context.line === undefined ? {} : { line: context.line }),
          };
          if (earlier !== undefined) {
            trace.push({ ...base, sent: false, replayed: true, ok: true, result: earlier.value });
            return earlier.value;
          }
          const value = answers[name]?.(args as Record<string, unknown>);
          if (value instanceof Error) {
            trace.push({ ...base, sent: true, replayed: false, ok: false, status: 404, error: value.message });
            throw value;
          }
          trace.push({ ...base, sent: true, replayed: false, ok: true, status: 200, result: value });
          return value;
        },
      });
      return {
        ok: result.ok,
        ...(result.ok ? { answer: result.answer } : { error: result.error }),
        logs: result.logs,
        trace,
        durationMs: result.stats.durationMs,
      };
    };
  }

  it("a program that reads a field its tool's result does not have fails at that line, is attributed to the tool and revised", async () => {
    const first = [
      "const found = await tools.searchMovie({ id: 0 });",
      "const movie = await tools.getMovie({ id: found.results[0].id });",
      "return movie.details.title;",
    ].join("\n");
    const second = [
      "const found = await tools.searchMovie({ id: 0 });",
      "const movie = await tools.getMovie({ id: found.results[0].id });",
      "return movie.original_title;",
    ].join("\n");
    const model = scriptedModel({ generate: [first], revise: [second] });
    const execute = sandboxed({
      searchMovie: () => ({ results: [{ id: 348 }] }),
      getMovie: (args) => (args.id === 348 ? { original_title: "Alien" } : new Error("getMovie failed: not found")),
    });
    const outcome = await runTask(input(), { chat: model.chat, execute });

    expect(outcome.status).toBe("succeeded");
    expect(outcome.answer).toBe("Alien");
    expect(outcome.attempts[0]?.error).toMatchObject({ kind: "runtime", line: 3 });
    expect(outcome.attempts[0]).toMatchObject({ attributedTool: "getMovie", attributedBy: "program_line" });
    expect(model.calls.map((c) => c.purpose)).toEqual(["generate", "revise"]);
    expect(text(model.calls[1]?.messages.at(-1))).toContain("Here is the full protocol of getMovie");
    expect(outcome.trajectory).toEqual(["searchMovie", "getMovie"]);
  });

  it("an uncaught failed tool call is attributed to the tool that failed", async () => {
    const model = scriptedModel({ generate: ["const m = await tools.getMovie({ id: 1 });\nreturn m.original_title;"], revise: ["return 'unknown';"] });
    const execute = sandboxed({ searchMovie: () => ({ results: [] }), getMovie: () => new Error("getMovie failed: not found") });
    const outcome = await runTask(input(), { chat: model.chat, execute });

    expect(outcome.attempts[0]?.error).toMatchObject({ kind: "runtime", tool: "getMovie", line: 1 });
    expect(outcome.attempts[0]).toMatchObject({ attributedTool: "getMovie", attributedBy: "failed_call" });
    expect(outcome).toMatchObject({ status: "succeeded", answer: "unknown", trajectory: [] });
  });
});

describe("runTask is platform-free", () => {
  it("reaches no platform module and none of the platform side (isolate host, HTTP, tenants, tools, model client)", async () => {
    const reach = await moduleReach("functions/chain/run-task.ts");
    expect(reach.platform).toEqual([]);
    const platformSide = reach.own.filter((file) =>
      /functions\/(sandbox\/(host|isolate)|http|tenants|tools\/(?!definition)|llm\/(?!usage))|durable-objects/.test(file),
    );
    expect(platformSide).toEqual([]);
    // Everything it does reach is listed here; a new import makes this fail on purpose.
    expect(reach.inputs).toBeLessThanOrEqual(12);
  });
});
