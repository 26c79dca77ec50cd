import { describe, expect, it } from "vitest";
import { isolateWorkerCode } from "../../functions/sandbox/host/isolate-code";

/** Every program isolate, in the service or on the program host, is made without network. */
describe("isolateWorkerCode", () => {
  const modules = { harness: "export default {}", quickjs: new ArrayBuffer(8) };

  it("gives the isolate no network (globalOutbound: null), whatever its bindings", () => {
    for (const env of [{}, { TOOLS: { call: () => undefined } }]) {
      const code = isolateWorkerCode(modules, { cpuMs: 1_000, subRequests: 10 }, env);
      expect(code.globalOutbound).toBeNull();
      expect(code.env).toBe(env);
    }
  });

  it("runs only the harness and QuickJS, with the limits it was given", () => {
    const code = isolateWorkerCode(modules, { cpuMs: 2_000, subRequests: 7 }, {});
    expect(code.mainModule).toBe("harness.js");
    expect(Object.keys(code.modules)).toEqual(["harness.js", "quickjs.wasm"]);
    expect(code.limits).toEqual({ cpuMs: 2_000, subRequests: 7 });
  });
});
