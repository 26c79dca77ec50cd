import { beforeAll, describe, expect, it } from "vitest";
import { executeProgram, loadQuickJs, runProgram, transpile, type QuickJsEngine, type RunOptions } from "../../functions/sandbox/index";
import { sandboxDiagnostics } from "../../functions/sandbox/diagnostics";

let engine: QuickJsEngine;

beforeAll(async () => {
  engine = await loadQuickJs();
});

interface Recorded {
  name: string;
  args: unknown;
  line: number | undefined;
}

/** Options with a host callback that records calls and answers from `handlers`. */
function host(handlers: Record<string, (args: unknown) => unknown>, extra: Partial<RunOptions> = {}) {
  const calls: Recorded[] = [];
  const options: RunOptions = {
    engine,
    tools: Object.keys(handlers),
    callTool: async (name, args, context) => {
      calls.push({ name, args, line: context.line });
      const handler = handlers[name];
      if (!handler) throw new Error(`no handler for ${name}`);
      return handler(args);
    },
    ...extra,
  };
  return { calls, options };
}

async function run(source: string, options: RunOptions) {
  return executeProgram(source, options);
}

describe("sandbox: programs and their answers", () => {
  it("runs a TypeScript program body with type annotations", async () => {
    const { options } = host({ add: (args) => ({ sum: (args as { a: number; b: number }).a + (args as { a: number; b: number }).b }) });
    const result = await run(
      [
        "interface Sum { sum: number }",
        "const first: Sum = await tools.add({ a: 1, b: 2 });",
        "const doubled = (n: number): number => n * 2;",
        "return { total: doubled(first.sum) } as const;",
      ].join("\n"),
      options,
    );
    expect(result).toMatchObject({ ok: true, answer: { total: 6 } });
  });

  it("runs a plain JavaScript program", async () => {
    const result = await run("const xs = [1, 2, 3];\nreturn xs.map((x) => x * x).reduce((a, b) => a + b, 0);", host({}).options);
    expect(result).toMatchObject({ ok: true, answer: 14 });
  });

  it("runs a full `async function main(tools)` declaration, with export and a self-invocation", async () => {
    const { options, calls } = host({ echo: (args) => args });
    const source = [
      "```ts",
      "import type { Tools } from './tools';",
      "export async function main(tools: Tools): Promise<string> {",
      "  const r = await tools.echo({ text: 'hi' });",
      "  return r.text + '!';",
      "}",
      "main(tools).then((answer) => {",
      "  console.log(answer);",
      "});",
      "```",
    ].join("\n");
    const result = await run(source, options);
    expect(result).toMatchObject({ ok: true, answer: "hi!" });
    expect(calls).toHaveLength(1);
  });

  it("accepts `export default async function` and answer(...)", async () => {
    const { options } = host({ lookup: () => ({ id: 7 }) });
    const result = await run("export default async function () {\n  const r = await tools.lookup({});\n  answer({ found: r.id });\n}", options);
    expect(result).toMatchObject({ ok: true, answer: { found: 7 } });
  });

  it.each([
    ["const main = async (t: any) => (await t.echo('arrow')).toUpperCase();", "ARROW"],
    ["async function main() {\n  return await tools.echo('logged');\n}\nconsole.log(await main());", "logged"],
    [
      "async function main() {\n  return await tools.echo('chained');\n}\nmain()\n  .then((r) => console.log(r))\n  .catch((e) => console.error(e));",
      "chained",
    ],
    ["async function run(t: any) { return t.echo('named'); }\nexport default run;", "named"],
    ["Here is the program:\n\n```typescript\nconst r = await tools.echo('fenced');\nreturn r;\n```\nIt echoes.", "fenced"],
  ])("accepts the program shape %#", async (source, expected) => {
    const { options, calls } = host({ echo: (args) => args });
    const result = await run(source, options);
    expect(result).toMatchObject({ ok: true, answer: expected });
    expect(calls).toHaveLength(1);
  });

  it("does not run main twice when the program calls it itself", async () => {
    const { options, calls } = host({ ping: () => "pong" });
    const result = await run("async function main() { return tools.ping({}); }\nconst answer = await main();\nreturn answer;", options);
    expect(result).toMatchObject({ ok: true, answer: "pong" });
    expect(calls).toHaveLength(1);
  });

  it("chains tools: the result of tools.a feeds tools.b, and calls are recorded in order with their lines", async () => {
    const { options, calls } = host({
      searchPerson: (args) => ({ results: [{ id: 42, name: (args as { query: string }).query }] }),
      personMovies: (args) => ({ cast: [{ title: `movie of ${(args as { personId: number }).personId}` }] }),
    });
    const result = await run(
      [
        "const people = await tools.searchPerson({ query: 'Sofia Coppola' });",
        "const id: number = people.results[0].id;",
        "const movies = await tools.personMovies({ personId: id });",
        "return movies.cast.map((m: { title: string }) => m.title);",
      ].join("\n"),
      options,
    );
    expect(result).toMatchObject({ ok: true, answer: ["movie of 42"] });
    expect(calls).toEqual([
      { name: "searchPerson", args: { query: "Sofia Coppola" }, line: 1 },
      { name: "personMovies", args: { personId: 42 }, line: 3 },
    ]);
    expect(result.calls).toEqual([
      { tool: "searchPerson", line: 1, ok: true },
      { tool: "personMovies", line: 3, ok: true },
    ]);
    expect(result.stats.toolCalls).toBe(2);
  });

  it("runs parallel tool calls with Promise.all", async () => {
    const { options } = host({ square: (args) => (args as number) ** 2 });
    const result = await run("return await Promise.all([1, 2, 3].map((n) => tools.square(n)));", options);
    expect(result).toMatchObject({ ok: true, answer: [1, 4, 9] });
  });

  it("captures console output into the result", async () => {
    const result = await run("console.log('hello', { a: 1 }, [2]);\nconsole.warn('careful');\nreturn 1;", host({}).options);
    expect(result.logs).toEqual(['hello {"a":1} [2]', "[warn] careful"]);
  });

  it("answers undefined when the program returns nothing", async () => {
    const result = await run("const x = 1;", host({}).options);
    expect(result).toMatchObject({ ok: true, answer: undefined });
  });
});

describe("sandbox: errors", () => {
  it("reports a syntax error with its line", async () => {
    const result = await run("const a = 1;\nconst b = ;\nreturn a;", host({}).options);
    expect(result).toMatchObject({ ok: false, error: { kind: "syntax", line: 2 } });
  });

  it("reports a syntax error QuickJS finds (not the transpiler) with its line", async () => {
    const result = await runProgram("const a = 1;\nlet a = 2;\nreturn a;", host({}).options);
    expect(result).toMatchObject({ ok: false, error: { kind: "syntax", line: 2 } });
  });

  it("includes the program's stack and line in a runtime error", async () => {
    const result = await run(
      ["function pick(data: { items?: string[] }) {", "  return data.items.length;", "}", "return pick({});"].join("\n"),
      host({}).options,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe("runtime");
    expect(result.error.line).toBe(2);
    expect(result.error.message).toMatch(/^TypeError: /);
    expect(result.error.message).toContain("program.js:2");
    expect(result.error.message).toContain("program.js:4");
    expect(result.error.stack).not.toContain("atc-sandbox.js");
  });

  it("attributes an uncaught failed tool call to the tool and its line", async () => {
    const { options } = host({
      first: () => ({ ok: 1 }),
      broken: () => {
        throw new Error("HTTP 500 from upstream");
      },
    });
    const result = await run("const a = await tools.first({});\n\nconst b = await tools.broken({ x: a.ok });\nreturn b;", options);
    expect(result).toMatchObject({ ok: false, error: { kind: "runtime", tool: "broken", line: 3 } });
    if (result.ok) return;
    expect(result.error.message).toContain("ToolError: tool broken failed: HTTP 500 from upstream");
    expect(result.calls).toEqual([
      { tool: "first", line: 1, ok: true },
      { tool: "broken", line: 3, ok: false, error: "HTTP 500 from upstream" },
    ]);
  });

  it("lets the program catch a failed tool call", async () => {
    const { options } = host({
      broken: () => {
        throw new Error("nope");
      },
    });
    const result = await run("try { await tools.broken({}); } catch (e) { return [e.name, e.tool, e.message]; }", options);
    expect(result).toMatchObject({ ok: true, answer: ["ToolError", "broken", "tool broken failed: nope"] });
  });

  it("refuses a tool outside the candidate set with a descriptive error", async () => {
    const { options, calls } = host({ allowed: () => 1 });
    const result = await run("const x = await tools.allowed({});\nreturn await tools.deleteEverything({});", options);
    expect(result).toMatchObject({ ok: false, error: { kind: "runtime", line: 2 } });
    if (result.ok) return;
    expect(result.error.message).toContain("tool deleteEverything is not in this run's candidate set (available: allowed)");
    expect(calls.map((c) => c.name)).toEqual(["allowed"]);
  });

  it("reports an answer that is not JSON", async () => {
    const result = await run("const a: Record<string, unknown> = {};\na.self = a;\nreturn a;", host({}).options);
    expect(result).toMatchObject({ ok: false, error: { kind: "runtime" } });
    if (result.ok) return;
    expect(result.error.message).toContain("the answer is not JSON");
  });

  it("reports a thrown non-Error value", async () => {
    const result = await run("throw { code: 42 };", host({}).options);
    expect(result).toMatchObject({ ok: false, error: { kind: "runtime", message: 'uncaught {"code":42}' } });
  });

  it("returns transpile errors with a line", () => {
    expect(transpile("const x: = 1")).toMatchObject({ ok: false, line: 1 });
  });
});

describe("sandbox: nothing but tools inside", () => {
  it("has no fetch, require, process, env, connect or WebAssembly", async () => {
    const result = await run(
      "return ['fetch', 'require', 'process', 'env', 'connect', 'WebAssembly', 'setTimeout', 'Deno', 'Bun', 'caches', 'crypto'].map((n) => typeof globalThis[n]);",
      host({}).options,
    );
    expect(result).toMatchObject({ ok: true, answer: Array(11).fill("undefined") });
  });

  it("fails a call to fetch with a clear error", async () => {
    const result = await run("return await fetch('https://example.com');", host({}).options);
    expect(result).toMatchObject({ ok: false, error: { kind: "runtime", line: 1 } });
    if (result.ok) return;
    expect(result.error.message).toMatch(/ReferenceError: 'fetch' is not defined/);
  });

  it("refuses dynamic import() with a clear error", async () => {
    const result = await run("const m = await import('node:fs');\nreturn m;", host({}).options);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain('cannot import "node:fs"');
  });

  it("refuses static imports before running anything", async () => {
    const result = await run("import fs from 'node:fs';\nreturn fs.readFileSync('/etc/passwd');", host({}).options);
    expect(result).toMatchObject({ ok: false, error: { kind: "syntax", line: 1 } });
  });

  it("has no require", async () => {
    const result = await run("const fs = require('fs');\nreturn 1;", host({}).options);
    expect(result).toMatchObject({ ok: false, error: { kind: "runtime" } });
    if (result.ok) return;
    expect(result.error.message).toContain("'require' is not defined");
  });

  it("exposes only standard globals plus tools, answer and console; no secrets", async () => {
    const result = await run(
      [
        "const seen: string[] = [];",
        "let scope: object | null = globalThis;",
        "while (scope) { seen.push(...Object.getOwnPropertyNames(scope)); scope = Object.getPrototypeOf(scope); }",
        "return { names: seen, text: JSON.stringify(Object.getOwnPropertyNames(globalThis).map((n) => { try { return String((globalThis as any)[n]); } catch { return ''; } })) };",
      ].join("\n"),
      host({ a: () => 1 }).options,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { names, text } = result.answer as { names: string[]; text: string };
    for (const absent of ["fetch", "require", "process", "env", "hostCall", "hostLog", "secrets", "Buffer", "module", "exports", "std", "os"]) {
      expect(names).not.toContain(absent);
    }
    expect(names).toEqual(expect.arrayContaining(["tools", "answer", "console", "JSON", "Promise"]));
    expect(text).not.toMatch(/secret|api[_-]?key|token/i);
  });

  it("does not let the program replace or extend tools", async () => {
    const result = await run(
      [
        "(tools as any).extra = () => 1;",
        "(globalThis as any).tools = {};",
        "delete (tools as any).a;",
        "return [Object.keys(tools), typeof (tools as any).extra, await tools.a({})];",
      ].join("\n"),
      host({ a: () => 1, b: () => 2 }).options,
    );
    expect(result).toMatchObject({ ok: true, answer: [["a", "b"], "function", 1] });
  });

  it("uses a fresh context per program: globals do not leak between runs", async () => {
    const first = await run("(globalThis as any).leaked = 'from run 1';\nreturn 1;", host({}).options);
    const second = await run("return typeof (globalThis as any).leaked;", host({}).options);
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({ ok: true, answer: "undefined" });
  });
});

describe("sandbox: WebAssembly instances", () => {
  it("recycles an instance only within one isolation key, with a fresh context each time", async () => {
    const before = { ...sandboxDiagnostics };
    const first = await run("(globalThis as any).mark = 'tenant A';\nreturn 1;", host({}, { isolationKey: "tenant-a" }).options);
    const again = await run("return typeof (globalThis as any).mark;", host({}, { isolationKey: "tenant-a" }).options);
    const other = await run("return typeof (globalThis as any).mark;", host({}, { isolationKey: "tenant-b" }).options);
    expect([first.ok, again, other]).toMatchObject([true, { ok: true, answer: "undefined" }, { ok: true, answer: "undefined" }]);
    expect(sandboxDiagnostics.instancesReused - before.instancesReused).toBe(1);
    expect(sandboxDiagnostics.instancesCreated - before.instancesCreated).toBe(2);
  });

  it("does not recycle an instance whose program exhausted its memory", async () => {
    // Fuel is not what this test is about: the bomb must reach the memory ceiling first.
    const bomb = await run(
      "const a = [];\nwhile (true) a.push('x'.repeat(1e6) + a.length);",
      host({}, { isolationKey: "tenant-c", stretchFuel: 1e12, totalFuel: 1e12 }).options,
    );
    expect(bomb).toMatchObject({ ok: false, error: { kind: "memory" } });
    const before = { ...sandboxDiagnostics };
    const next = await run("return 2;", host({}, { isolationKey: "tenant-c" }).options);
    expect(next).toMatchObject({ ok: true, answer: 2 });
    expect(sandboxDiagnostics.instancesReused - before.instancesReused).toBe(0);
  });
});

describe("sandbox: handles are released", () => {
  it("never failed to dispose a runtime of a program that kept within its memory (QuickJS asserts on leaked handles)", () => {
    expect(sandboxDiagnostics.runs).toBeGreaterThan(10);
    // The one allowed failure is the out-of-memory program above: QuickJS leaks objects on that path.
    expect(sandboxDiagnostics.disposeFailures).toBeLessThanOrEqual(1);
    expect(sandboxDiagnostics.abandonedInstances).toBe(0);
  });
});
