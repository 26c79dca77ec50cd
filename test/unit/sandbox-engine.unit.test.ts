import { describe, expect, it } from "vitest";
import { loadQuickJs } from "../../functions/sandbox/engine";
import { runProgram } from "../../functions/sandbox/run-program";

/**
 * A metered-looking module that can never be instantiated: it imports the fuel meter
 * (atc.refuel) and a function no emscripten build provides, so instantiation fails with a
 * LinkError, as it would when the platform cannot set up a new instance.
 */
function unlinkableModule(): Promise<WebAssembly.Module> {
  const name = (text: string) => [text.length, ...new TextEncoder().encode(text)];
  const types = [0x02, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x00];
  const imports = [0x02, ...name("atc"), ...name("refuel"), 0x00, 0x00, ...name("env"), ...name("atc_missing_import"), 0x00, 0x01];
  const bytes = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, types.length, ...types, 0x02, imports.length, ...imports];
  // Node's WebAssembly compiles bytes; the Workers types leave that out.
  const compiler = WebAssembly as unknown as { compile(bytes: Uint8Array): Promise<WebAssembly.Module> };
  return compiler.compile(new Uint8Array(bytes));
}

/** Settles with what `promise` did, or "still pending" after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | "still pending"> {
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise<"still pending">((resolve) => setTimeout(() => resolve("still pending"), ms)),
  ]);
}

describe("sandbox engine: a QuickJS instance that cannot be made", () => {
  it("fails instead of leaving the program waiting for ever", async () => {
    const engine = await loadQuickJs(await unlinkableModule());
    const made = await within(engine.instantiate(1024 * 1024), 5_000);
    expect(made).not.toBe("still pending");
    expect(made).toHaveProperty("error");
    expect(String((made as { error: unknown }).error)).toMatch(/atc_missing_import|LinkError|import/i);
  });

  it("makes the run fail with a clear message, at once", async () => {
    const engine = await loadQuickJs(await unlinkableModule());
    const outcome = await within(runProgram("return 1;", { engine, tools: [], callTool: async () => undefined, timeoutMs: 30_000 }), 5_000);
    expect(outcome).not.toBe("still pending");
    const result = (outcome as { value: Awaited<ReturnType<typeof runProgram>> }).value;
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe("runtime");
      expect(result.error.message).toMatch(/the sandbox could not start/);
    }
  });
});
