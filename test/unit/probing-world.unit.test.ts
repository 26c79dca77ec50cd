import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { probeTools, type DirectCallResult, type ProbeDependencies } from "../../functions/probing/chain-of-probing";
import { schemaTransform } from "../../functions/probing/schema-transform";
import { mountAutotools, mountOpenApi, SimulatedWorld } from "../../functions/simulated-world/index";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";

function data(path: string): unknown {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../kv-seed/world/${path}`, import.meta.url)), "utf8"));
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

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (tools: unknown) => Promise<unknown>;

/** Runs a documented example program with `tools` bound to the world. */
function runExample(program: string, call: (name: string, args: Record<string, unknown>) => Promise<DirectCallResult>): Promise<unknown> {
  const tools = new Proxy(
    {},
    {
      get: (_t, name) => async (args: Record<string, unknown>) => {
        const result = await call(String(name), args);
        if (!result.ok) throw new Error(`${String(name)} failed: ${result.error ?? ""}`);
        return result.body;
      },
    },
  );
  return new AsyncFunction("tools", program)(tools);
}

async function tmdbWorld() {
  const document = data("restbench-tmdb/openapi.json") as object;
  const { tools } = await importOpenApi(document, { serverUrl: "http://world.test/tmdb" });
  // No seeded ids: an id is accepted only once a tool has handed it out, as with a real API.
  const world = new SimulatedWorld([mountOpenApi("/tmdb", document, { seed: "none" })]);
  return { tools, call: worldCaller(world, tools) };
}

describe("zero-token probing against the simulated world", () => {
  it("probes all 54 RestBench TMDB tools without a model: 21 alone, 33 by chain of probing", async () => {
    const { tools, call } = await tmdbWorld();
    expect(tools).toHaveLength(54);
    const report = await probeTools(
      tools.map((definition) => ({ definition, hash: "h" })),
      new Map(),
      { ...noModel(), callTool: call },
    );
    expect(report).toMatchObject({ probed: 54, failed: 0, modelCalls: 0, usage: { totalTokens: 0 } });
    const how = (h: string) => report.results.filter((r) => r.status === "probed" && r.how === h).length;
    expect(how("direct")).toBe(21);
    expect(how("helper_chain")).toBe(33);
    expect(report.toolCalls).toBeLessThan(2 * 54);

    const byName = new Map(report.results.flatMap((r) => (r.status === "probed" ? [[r.tool, r] as const] : [])));
    expect(byName.get("getPersonPersonId")).toMatchObject({ how: "helper_chain", helpers: ["getSearchPerson"] });
    expect(byName.get("getPersonPersonId")?.protocol.example.program).toContain("person_id: searchPersonResult.results[0].id");
    expect(byName.get("getReviewReviewId")?.protocol.example.program).toContain("review_id: movieMovieIdReviewsResult.results[0].id");
    expect(byName.get("getSearchPerson")?.protocol.example.arguments).toMatchObject({ query: "Tom Hanks" });

    // Every documented example runs, and returns what the protocol's schema describes.
    for (const r of byName.values()) {
      const answer = await runExample(r.protocol.example.program, call);
      expect(schemaTransform(answer), r.tool).toEqual(r.protocol.responseSchema);
    }
  });

  it("probes only the 21 self-sufficient TMDB tools when the chain is disabled", async () => {
    const { tools, call } = await tmdbWorld();
    const report = await probeTools(
      tools.map((definition) => ({ definition, hash: "h" })),
      new Map(),
      { ...noModel(), callTool: call },
      { useModel: false, iterations: 0 },
    );
    expect(report).toMatchObject({ probed: 21, failed: 33, iterations: 0 });
    const failed = report.results.find((r) => r.tool === "getPersonPersonId");
    expect(failed?.status === "failed" ? failed.error : "").toContain("HTTP 404");
  });

  it("probes the autotools food and weather tools (33) without a model", async () => {
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
    );
    expect(report).toMatchObject({ probed: 33, failed: 0, modelCalls: 0 });
    const ingredient = report.results.find((r) => r.tool === "GET_ingredient_information");
    expect(ingredient).toMatchObject({ status: "probed", how: "helper_chain" });
    // The world replays the recorded responses, so the probed schemas are the authors' own.
    const recorded = (data("autotools/tools/food.tools.json") as { endpoints: { name: string; _responses_json: string }[] }).endpoints;
    for (const endpoint of recorded) {
      const r = report.results.find((x) => x.tool === endpoint.name);
      expect(r?.status === "probed" ? r.protocol.responseSchema : undefined, endpoint.name).toEqual(JSON.parse(endpoint._responses_json));
    }
  });
});
