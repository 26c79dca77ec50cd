import { beforeAll, describe, expect, it } from "vitest";
import { executeProgram, loadQuickJs, type ProgramResult, type QuickJsEngine, type RunOptions } from "../../functions/sandbox/index";
import { ENDLESS_WORKLOADS } from "../helpers/cpu-workloads";

let engine: QuickJsEngine;

beforeAll(async () => {
  engine = await loadQuickJs();
  // Warm the wasm code up (V8 tiers hot wasm functions up after a while), as a busy isolate is.
  await executeProgram("let s = 0; for (let i = 0; i < 3e6; i++) s += i; return s;", {
    engine,
    tools: [],
    callTool: async () => undefined,
    stretchBudget: 1e6,
    totalBudget: 1e6,
  });
});

function options(extra: Partial<RunOptions> = {}, handler: (name: string, args: unknown) => unknown = () => ({ ok: true })) {
  const calls: string[] = [];
  const base: RunOptions = {
    engine,
    tools: ["a", "b"],
    callTool: async (name, args) => {
      calls.push(name);
      return handler(name, args);
    },
  };
  return { calls, options: { ...base, ...extra } };
}

async function timed(source: string, runOptions: RunOptions): Promise<{ result: ProgramResult; ms: number }> {
  const started = performance.now();
  const result = await executeProgram(source, runOptions);
  return { result, ms: performance.now() - started };
}

function kind(result: ProgramResult): string {
  return result.ok ? "ok" : result.error.kind;
}

describe("sandbox limits: CPU, counted not clocked", () => {
  it("stops while(true){} with cpu_budget, the host seeing it end within 2 s", async () => {
    const { result, ms } = await timed("while (true) {}", options().options);
    expect(kind(result)).toBe("cpu_budget");
    expect(ms).toBeLessThan(2_000);
  });

  it("stops every kind of endless computation with cpu_budget (interrupt checks or fuel), counting checks as it goes", async () => {
    for (const [name, source] of Object.entries(ENDLESS_WORKLOADS)) {
      const { result } = await timed(source, options({ stretchBudget: 100, totalBudget: 100 }).options);
      expect(kind(result), name).toBe("cpu_budget");
      expect(result.stats.interruptChecks, name).toBeGreaterThan(0);
    }
  });

  it("cannot be caught by the program", async () => {
    const { result, ms } = await timed("for (;;) { try { while (true) {} } catch (e) { console.log('caught', e); } }", options().options);
    expect(kind(result)).toBe("cpu_budget");
    expect(result.logs).toEqual([]);
    expect(ms).toBeLessThan(2_000);
  });

  it("stops catastrophic regex backtracking", async () => {
    const { result, ms } = await timed("return /(a+)+$/.test('a'.repeat(40) + 'b');", options().options);
    expect(kind(result)).toBe("cpu_budget");
    expect(ms).toBeLessThan(5_000);
  });

  it("resets the budget per stretch: loops between awaited tool calls pass, one long stretch fails", async () => {
    const loop = "{ let s = 0; for (let i = 0; i < 200000; i++) s += i; }";
    // Measure what one loop costs, then give each stretch room for one loop but not three.
    const probe = await executeProgram(loop, options({ stretchBudget: 1e6, totalBudget: 1e6 }).options);
    const perLoop = probe.stats.interruptChecks;
    expect(perLoop).toBeGreaterThan(10);
    const budget = { stretchBudget: Math.ceil(perLoop * 1.6), totalBudget: perLoop * 100 };

    const { options: split, calls } = options(budget);
    const ok = await executeProgram(`${loop}\nawait tools.a({});\n${loop}\nawait tools.b({});\n${loop}\nreturn 'done';`, split);
    expect(ok).toMatchObject({ ok: true, answer: "done" });
    expect(calls).toEqual(["a", "b"]);
    expect(ok.stats.interruptChecks).toBeGreaterThan(budget.stretchBudget);

    const long = await executeProgram(`${loop}\n${loop}\n${loop}\nreturn 'done';`, options(budget).options);
    expect(long).toMatchObject({ ok: false, error: { kind: "cpu_budget" } });
  });

  it("bounds the whole run with a total budget even when every stretch is short", async () => {
    const loop = "{ let s = 0; for (let i = 0; i < 100000; i++) s += i; }";
    const { options: budgeted, calls } = options({ stretchBudget: 1e6, totalBudget: 200 });
    const result = await executeProgram(`for (;;) {\n${loop}\nawait tools.a({});\n}`, budgeted);
    expect(result).toMatchObject({ ok: false, error: { kind: "cpu_budget" } });
    if (result.ok) return;
    expect(result.error.message).toContain("in total");
    expect(calls.length).toBeGreaterThan(1);
  });

  it("stops a flood of promise jobs", async () => {
    const { result, ms } = await timed("const spin = (): Promise<void> => Promise.resolve().then(spin);\nawait spin();", options().options);
    expect(["cpu_budget", "memory"]).toContain(kind(result));
    expect(ms).toBeLessThan(5_000);
  });
});

describe("sandbox limits: memory and stack", () => {
  it("turns an allocation bomb into a memory error, and the next program runs fine", async () => {
    const { result, ms } = await timed("const a = [];\nwhile (true) a.push(new Array(1e6).fill(1));", options().options);
    expect(kind(result)).toBe("memory");
    expect(ms).toBeLessThan(5_000);
    const next = await executeProgram("const a = await tools.a({});\nreturn a;", options().options);
    expect(next).toMatchObject({ ok: true, answer: { ok: true } });
  });

  it("bounds a heap made of many small objects (QuickJS's own limit cannot see them)", async () => {
    const { result } = await timed("const a = [];\nwhile (true) a.push({ a: 1, b: [1, 2, 3] });", options({ memoryLimitBytes: 16 * 1024 * 1024 }).options);
    expect(kind(result)).toBe("memory");
  });

  it("reports a memory error the program caught and rethrew as such", async () => {
    // Unlimited fuel: the bomb must reach the memory ceiling, not the CPU budget.
    const result = await executeProgram(
      "try { const s = []; while (true) s.push('x'.repeat(1e6) + s.length); } catch (e) { throw e; }",
      options({ stretchFuel: 1e12, totalFuel: 1e12 }).options,
    );
    expect(kind(result)).toBe("memory");
  });

  it("stops infinite recursion with stack_overflow and the line", async () => {
    const result = await executeProgram("function down(n: number): number {\n  return down(n + 1) + 1;\n}\nreturn down(0);", options().options);
    expect(result).toMatchObject({ ok: false, error: { kind: "stack_overflow", line: 2 } });
  });

  it("stops async recursion", async () => {
    const result = await executeProgram(
      "async function down(n: number): Promise<number> { return (await down(n + 1)) + 1; }\nreturn await down(0);",
      options().options,
    );
    expect(kind(result)).toBe("stack_overflow");
  });

  it("survives native recursion that overflows the host stack, and the next program runs fine", async () => {
    const parser = await executeProgram("return eval('('.repeat(20000) + '1' + ')'.repeat(20000));", options().options);
    expect(kind(parser)).toBe("stack_overflow");
    const json = await executeProgram(
      "let o: any = {}; let c = o;\nfor (let i = 0; i < 100000; i++) { c.a = {}; c = c.a; }\nreturn JSON.stringify(o).length;",
      options().options,
    );
    expect(kind(json)).toBe("stack_overflow");
    const next = await executeProgram("return [await tools.a({}), 1 + 1];", options().options);
    expect(next).toMatchObject({ ok: true, answer: [{ ok: true }, 2] });
  });
});

describe("sandbox limits: waiting", () => {
  it("detects a promise that never settles at once, without waiting for the deadline", async () => {
    const { result, ms } = await timed("await new Promise(() => {});\nreturn 1;", options({ timeoutMs: 20_000 }).options);
    expect(result).toMatchObject({
      ok: false,
      error: { kind: "never_settles", message: expect.stringContaining("the program is waiting on a promise that never settles") },
    });
    expect(ms).toBeLessThan(1_000);
  });

  it("detects it after the last tool call has come back", async () => {
    const { options: waiting, calls } = options({ timeoutMs: 20_000 });
    const { result, ms } = await timed("const r = await tools.a({});\nawait new Promise((resolve) => { if (r.never) resolve(1); });", waiting);
    expect(kind(result)).toBe("never_settles");
    expect(calls).toEqual(["a"]);
    expect(ms).toBeLessThan(1_000);
  });

  it("times out on the host's clock while a tool call hangs, and aborts the call", async () => {
    let aborted = false;
    const hanging: RunOptions = {
      engine,
      tools: ["slow"],
      timeoutMs: 200,
      callTool: (_name, _args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    };
    const { result, ms } = await timed("return await tools.slow({});", hanging);
    expect(kind(result)).toBe("timeout");
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(2_000);
    expect(aborted).toBe(true);
  });
});

describe("sandbox limits: calls and sizes", () => {
  it("stops 10,000 sequential calls at the limit; the host callback runs at most limit times", async () => {
    const { options: limited, calls } = options();
    const result = await executeProgram("for (let i = 0; i < 10000; i++) {\n  try { await tools.a({ i }); } catch (e) {}\n}\nreturn 'finished';", limited);
    expect(kind(result)).toBe("too_many_calls");
    expect(calls.length).toBe(50);
    expect(result.stats.toolCalls).toBe(50);
  });

  it("stops 10,000 parallel calls at the limit", async () => {
    const { options: limited, calls } = options({ maxToolCalls: 20 });
    const result = await executeProgram("return await Promise.all(Array.from({ length: 10000 }, (_, i) => tools.a({ i })));", limited);
    expect(kind(result)).toBe("too_many_calls");
    expect(calls.length).toBe(20);
  });

  it("bounds the total bytes of tool results", async () => {
    const big = "x".repeat(1024 * 1024);
    const { options: sized, calls } = options({ maxResultBytes: 3 * 1024 * 1024 }, () => big);
    const result = await executeProgram("const parts = [];\nfor (let i = 0; i < 10; i++) parts.push((await tools.a({})).length);\nreturn parts;", sized);
    expect(kind(result)).toBe("output_too_large");
    // Each result is 1 MiB + 2 bytes of JSON: the third crosses 3 MiB and is never delivered.
    expect(calls.length).toBe(3);
  });

  it("bounds the size of the answer", async () => {
    const result = await executeProgram("return 'x'.repeat(2 * 1024 * 1024);", options().options);
    expect(kind(result)).toBe("output_too_large");
  });

  it("refuses oversized or non-JSON arguments inside the program", async () => {
    const { options: sized, calls } = options({ maxArgumentBytes: 1000 });
    const result = await executeProgram(
      [
        "const errors = [];",
        "try { await tools.a({ text: 'x'.repeat(5000) }); } catch (e) { errors.push(e.name + ': ' + e.message); }",
        "try { await tools.a({ n: 10n }); } catch (e) { errors.push(e.name); }",
        "return errors;",
      ].join("\n"),
      sized,
    );
    expect(result).toMatchObject({ ok: true, answer: ["RangeError: tools.a: the arguments exceed 1000 bytes of JSON", "TypeError"] });
    expect(calls).toEqual([]);
  });

  it("bounds console output: lines, bytes and the length of one line", async () => {
    const result = await executeProgram(
      "console.log('y'.repeat(1e6));\nfor (let i = 0; i < 20000; i++) console.log('line ' + i + ' ' + 'x'.repeat(500));\nreturn 1;",
      options().options,
    );
    expect(result).toMatchObject({ ok: true, answer: 1 });
    const first = result.logs[0] ?? "";
    expect(first.length).toBeLessThanOrEqual(2_001);
    expect(result.logs.length).toBeLessThanOrEqual(201);
    expect(result.logs.join("").length).toBeLessThanOrEqual(64 * 1024 + 100);
    expect(result.logs.at(-1)).toBe("[log truncated: at most 200 lines and 65536 bytes are kept]");
  });
});
