import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { probeTools, type DirectCallResult, type ProbeDependencies } from "../../functions/probing/chain-of-probing";
import { mountAutotools, mountOpenApi, SimulatedWorld } from "../../functions/simulated-world/index";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";

function data(path: string): unknown {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../../shared/data/${path}`, import.meta.url)), "utf8"));
}

/** A tool call straight into the simulated world: path parameters substituted, the rest as query. */
function worldCaller(world: SimulatedWorld, defs: ToolDefinition[]) {
  const byName = new Map(defs.map((d) => [d.name, d]));
  return async (name: string, args: Record<string, unknown>): Promise<DirectCallResult> => {
    const def = byName.get(name);
    if (def === undefined) return { ok: false, body: undefined, error: "unknown tool" };
    let path = def.path;
    const query = new URLSearchParams();
    for (const p of def.parameters) {
      const value = args[p.name];
      if (value === undefined) continue;
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(String(value)));
      else if (p.in === "query") query.set(p.name, String(value));
    }
    const qs = query.toString();
    const response = await world.handle(new Request(`${def.serverUrl}${path}${qs === "" ? "" : `?${qs}`}`, { method: def.method }));
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
    return response.ok ? { ok: true, status: response.status, body } : { ok: false, status: response.status, body, error: text.slice(0, 200) };
  };
}

function noModel(): Pick<ProbeDependencies, "chat" | "runProgram"> {
  return {
    chat: () => Promise.reject(new Error("no model in this test")),
    runProgram: () => Promise.reject(new Error("no sandbox in this test")),
  };
}

describe("zero-token probing against the simulated world", () => {
  it("TMDB (RestBench, 54 tools)", async () => {
    const { tools } = await importOpenApi(data("restbench-tmdb/openapi.json") as object, { serverUrl: "http://world.test/tmdb" });
    const world = new SimulatedWorld([mountOpenApi("/tmdb", data("restbench-tmdb/openapi.json"), { seed: "none" })]);
    const report = await probeTools(
      tools.map((definition) => ({ definition, hash: "h" })),
      new Map(),
      { ...noModel(), callTool: worldCaller(world, tools) },
      { useModel: false },
    );
    const summary = report.results.map((r) => (r.status === "probed" ? `${r.tool}: ${r.how} ${r.helpers.join(",")} ${JSON.stringify(r.protocol.example.arguments)}` : `${r.tool}: FAILED ${r.error.slice(0, 150)}`));
    console.log(summary.join("\n"));
    console.log(report.probed, report.failed, report.iterations, report.toolCalls);
    expect(report.modelCalls).toBe(0);
  });

  it("autotools food + weather", async () => {
    const food = importToolList(data("autotools/tools/food.tools.json")).tools.map((d) => ({ ...d, serverUrl: "http://world.test/food" }));
    const weather = importToolList(data("autotools/tools/weather.tools.json")).tools.map((d) => ({ ...d, serverUrl: "http://world.test/weather" }));
    const world = new SimulatedWorld([
      mountAutotools("/food", data("autotools/tools/food.tools.json"), { seed: "none" }),
      mountAutotools("/weather", data("autotools/tools/weather.tools.json"), { seed: "none" }),
    ]);
    const tools = [...food, ...weather];
    const report = await probeTools(
      tools.map((definition) => ({ definition, hash: "h" })),
      new Map(),
      { ...noModel(), callTool: worldCaller(world, tools) },
      { useModel: false },
    );
    const summary = report.results.map((r) => (r.status === "probed" ? `${r.tool}: ${r.how} ${r.helpers.join(",")} ${JSON.stringify(r.protocol.example.arguments)}` : `${r.tool}: FAILED ${r.error.slice(0, 150)}`));
    console.log(summary.join("\n"));
    console.log(report.probed, report.failed, report.iterations, report.toolCalls);
  });
});
