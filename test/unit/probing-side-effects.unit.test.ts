import { describe, expect, it } from "vitest";
import { DEFAULT_SIDE_EFFECT_SETTINGS, SideEffectSettings, sideEffectMode } from "../../functions/probing/side-effects";
import { ToolDefinition } from "../../functions/tools/definition";

const tool = (method: string, serverUrl = "https://api.shop.example") => ({
  definition: ToolDefinition.parse({ name: `op${method}`, method, serverUrl, path: "/orders", operation: `${method} /orders` }),
  source: "shop",
});

describe("9. which operations probing and tool play may call", () => {
  it("calls safe methods, skips every other method of a real upstream by default", () => {
    for (const method of ["GET", "HEAD"]) expect(sideEffectMode(tool(method), DEFAULT_SIDE_EFFECT_SETTINGS).mode).toBe("real");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const mode = sideEffectMode(tool(method), DEFAULT_SIDE_EFFECT_SETTINGS);
      expect(mode.mode).toBe("skipped");
      expect(mode.mode === "skipped" ? mode.reason : "").toContain(method);
    }
  });

  it("allows real calls per tool or per source, simulated ones per tool, source or all", () => {
    const byTool = SideEffectSettings.parse({ realUnsafe: { tools: ["opPOST"] } });
    expect(sideEffectMode(tool("POST"), byTool).mode).toBe("real");
    expect(sideEffectMode(tool("DELETE"), byTool).mode).toBe("skipped");
    expect(sideEffectMode(tool("DELETE"), SideEffectSettings.parse({ realUnsafe: { sources: ["shop"] } })).mode).toBe("real");
    expect(sideEffectMode(tool("DELETE"), SideEffectSettings.parse({ simulatedUnsafe: { sources: ["shop"] } })).mode).toBe("simulated");
    expect(sideEffectMode(tool("PUT"), SideEffectSettings.parse({ simulatedUnsafe: { all: true } })).mode).toBe("simulated");
    // Real wins over simulated when both name the tool: the tenant allowed the real thing.
    expect(sideEffectMode(tool("POST"), SideEffectSettings.parse({ realUnsafe: { tools: ["opPOST"] }, simulatedUnsafe: { all: true } })).mode).toBe("real");
  });

  it("treats the deployment's own simulated world as a simulation already", () => {
    expect(sideEffectMode(tool("POST", "http://world.atc.test/shop"), DEFAULT_SIDE_EFFECT_SETTINGS, "http://world.atc.test").mode).toBe("real");
    expect(sideEffectMode(tool("POST", "http://world.atc.test.evil.example/shop"), DEFAULT_SIDE_EFFECT_SETTINGS, "http://world.atc.test").mode).toBe("skipped");
  });
});
