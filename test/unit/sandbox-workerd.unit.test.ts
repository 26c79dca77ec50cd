import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandboxWorker, type SandboxWorker } from "../helpers/sandbox-worker";

/**
 * functions/sandbox inside workerd, bundled by wrangler itself (as a deploy bundles it): the wasm
 * comes in as a compiled module through `./workerd-wasm`, tools reach the outside through
 * workerd's own fetch, and runaway programs must leave the process answering. Its figures
 * (interrupt checks per 100 ms, start to first tool call): `npm run bench -- sandbox-calibration`.
 */

let worker: SandboxWorker | undefined;

beforeAll(async () => {
  worker = await startSandboxWorker();
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
});

function started(): SandboxWorker {
  if (worker === undefined) throw new Error("the sandbox worker did not start");
  return worker;
}

const execute: SandboxWorker["execute"] = (source, options) => started().execute(source, options);
const ping = (): Promise<string> => started().ping();

describe("functions/sandbox inside workerd", () => {
  it("runs a TypeScript tool chain whose tools use workerd's fetch", async () => {
    const { reply } = await execute(
      "```ts\nconst a: { text: string } = await tools.echo({ text: 'hi' });\nconst b = await tools.remote({ said: a.text });\nreturn b;\n```",
    );
    expect(reply.result).toMatchObject({ ok: true, answer: { remote: { said: "hi" } } });
    expect(started().outbound).toEqual(['POST http://tools.test/remote {"said":"hi"}']);
  });

  // The bomb before the CPU-bound programs, while the isolate's JIT is cold (README, "Tests").
  it("turns an allocation bomb into a memory error and keeps answering", async () => {
    const { reply } = await execute("const a = [];\nwhile (true) a.push(new Array(1e6).fill(1));");
    expect(reply.result.error?.kind).toBe("memory");
    expect(await ping()).toBe("pong");
    const { reply: next } = await execute("return await tools.echo({ n: 1 });");
    expect(next.result).toMatchObject({ ok: true, answer: { n: 1 } });
  });

  it("stops while(true){} and keeps answering", async () => {
    const { reply, ms } = await execute("while (true) {}");
    expect(reply.result.error?.kind).toBe("cpu_budget");
    expect(ms).toBeLessThan(5_000);
    expect(await ping()).toBe("pong");
  });

  it("survives native recursion deeper than the host stack", async () => {
    const { reply } = await execute("return eval('('.repeat(20000) + '1' + ')'.repeat(20000));");
    expect(reply.result.error?.kind).toBe("stack_overflow");
    const { reply: recursion } = await execute("function r(): number { return r() + 1; }\nreturn r();");
    expect(recursion.result.error?.kind).toBe("stack_overflow");
    expect(await ping()).toBe("pong");
  });

  it("recycles an instance per isolation key, each program in a fresh context that reaches its tools", async () => {
    const first = await execute("(globalThis as any).mark = 'tenant A';\nreturn await tools.echo({ n: 1 });", { isolationKey: "tenant-1" });
    const again = await execute("const n = await tools.echo({ n: 2 });\nreturn [typeof (globalThis as any).mark, n];", { isolationKey: "tenant-1" });
    expect(first.reply.result).toMatchObject({ ok: true, answer: { n: 1 } });
    expect(again.reply.result).toMatchObject({ ok: true, answer: ["undefined", { n: 2 }] });
    expect(again.reply.firstCallMs).not.toBeNull();
  });
});
