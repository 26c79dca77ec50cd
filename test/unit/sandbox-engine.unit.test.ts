import { describe, expect, it } from "vitest";
import { loadQuickJs, unmetered, type QuickJsEngine } from "../../functions/sandbox/engine";
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

/**
 * The real engine, with each instance's fuel meter watched: counts the refuels answered by the
 * `unmetered` handler once a program's own meter has been installed (work done on a program's
 * behalf that no limit counts).
 */
async function watchedEngine(): Promise<{ engine: QuickJsEngine; unmeteredAfterProgram: () => number }> {
  const real = await loadQuickJs();
  let count = 0;
  const engine: QuickJsEngine = {
    async instantiate(heapBytes) {
      const instance = await real.instantiate(heapBytes);
      const slot = Object.getOwnPropertyDescriptor(instance, "refuel");
      if (slot?.get === undefined || slot.set === undefined) throw new Error("the instance's refuel is not an accessor");
      let programStarted = false;
      Object.defineProperty(instance, "refuel", {
        get: () => slot.get?.call(instance),
        set: (handler: (fuelLeft: number) => number) => {
          if (handler !== unmetered) programStarted = true;
          slot.set?.call(
            instance,
            handler === unmetered && programStarted
              ? (fuelLeft: number) => {
                  count++;
                  return unmetered(fuelLeft);
                }
              : handler,
          );
        },
      });
      return instance;
    },
  };
  return { engine, unmeteredAfterProgram: () => count };
}

describe("sandbox engine: no unmetered work for a program", () => {
  it("drops an instance whose program ran out of memory instead of freeing its heap unmetered", async () => {
    const { engine, unmeteredAfterProgram } = await watchedEngine();
    const bomb = await runProgram("const hoard = [];\nwhile (true) hoard.push(new Array(1e6).fill(1));\nreturn hoard.length;", {
      engine,
      tools: [],
      callTool: async () => undefined,
      timeoutMs: 30_000,
    });
    expect(bomb).toMatchObject({ ok: false, error: { kind: "memory" } });
    const churn = await runProgram("const kept = [];\nfor (let i = 0; i < 20000; i++) kept.push({ i, s: 'x' + i });\nreturn kept.length;", {
      engine,
      tools: [],
      callTool: async () => undefined,
      timeoutMs: 30_000,
    });
    expect(churn).toMatchObject({ ok: true, answer: 20000 });
    expect(unmeteredAfterProgram()).toBe(0);
  }, 60_000);
});
