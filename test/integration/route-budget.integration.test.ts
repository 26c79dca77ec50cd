import { tenantObject } from "../helpers/tenant-object";
import { getEncoding } from "js-tiktoken";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signatureTokens } from "../../functions/chain/tool-cost";
import { TOOL_VIEWS_VERSION, toolViews } from "../../functions/toolnet/answer-budget";
import { COMPACT_LIMITS, compactView } from "../../functions/toolnet/compact-view";
import { ToolDefinition } from "../../functions/tools/definition";
import { createTenant, startService, type TestService } from "../helpers/service";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

const encoding = getEncoding("o200k_base");
const tokens = (text: string): number => encoding.encode(text).length;

let service: TestService;
let tenant: { id: string; key: string };

const CODES = Array.from({ length: 3_000 }, (_, i) => `station-${String(i).padStart(4, "0")}`);
const LONG_DESCRIPTION = `Weather forecast for a city or a weather station anywhere in the world. ${"Every station reports temperature, wind, rain, snow, pressure and humidity by the hour, with daily summaries. ".repeat(30)}`;

const weatherTools = Array.from({ length: 12 }, (_, i) => ({
  name: `weatherForecast${i}`,
  method: "GET",
  url: `https://weather${i}.example.com/forecast`,
  description: `Weather forecast for a city from provider ${i}: temperature, wind and rain.`,
  parameters: [
    { name: "city", in: "query", required: true, type: "string", description: "The city." },
    { name: "days", in: "query", type: "integer", description: "Days ahead." },
  ],
}));
const stationTool = {
  name: "stationWeatherForecast",
  method: "GET",
  url: "https://stations.example.com/forecast",
  description: LONG_DESCRIPTION,
  parameters: [
    { name: "station", in: "query", required: true, description: "Station code.", schema: { type: "string", enum: CODES } },
    { name: "city", in: "query", type: "string", description: "The city, for weather forecast of a city." },
  ],
};
const bulkTool = {
  name: "bulkForecastOrder",
  method: "POST",
  url: "https://bulk.example.com/orders",
  description: "Order bulk forecast reports for many stations.",
  parameters: Array.from({ length: 40 }, (_, i) => ({ name: `station_quantity_${i}`, in: "body", required: true, type: "integer" })),
};

beforeAll(async () => {
  service = await startService();
  tenant = await createTenant(service, "budget-co");
  const imported = await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: { format: "list", source: "weather", tools: [...weatherTools, stationTool, bulkTool] },
  });
  expect(imported.status).toBe(200);
});
afterAll(async () => service.dispose());

const route = (body: Record<string, unknown>) => service.json<RouteAnswer>("POST", "/v1/route", { key: tenant.key, body });

/** The answer's reported counts are the tokenizer's count of exactly what it returned (0 for a part it did not). */
function expectExactCounts(answer: RouteAnswer): void {
  expect(answer.tokens.prompt).toBe(answer.prompt === undefined ? 0 : tokens(answer.prompt));
  expect(answer.tokens.tools).toBe(answer.tools === undefined ? 0 : tokens(JSON.stringify(answer.tools)));
  expect(answer.tokens.total).toBe(answer.tokens.prompt + answer.tokens.tools);
  expect(answer.tokens.total).toBeLessThanOrEqual(answer.tokens.budget);
}

/** The answer's `tools` array; the test fails when it is missing. */
function toolsOf(answer: RouteAnswer): NonNullable<RouteAnswer["tools"]> {
  if (answer.tools === undefined) throw new Error("the answer has no tools array");
  return answer.tools;
}

describe("POST /v1/route within a token budget", () => {
  it("answers k = 8 within the service default, a 3,000-value enum summarised, the full definition kept in the registry", async () => {
    const res = await route({ task: "weather forecast for a city station", k: 8 });
    expect(res.status).toBe(200);
    expectExactCounts(res.body);
    expect(res.body.tokens.budget).toBe(2_000);
    expect(res.body.tools).toHaveLength(8);
    expect(res.body).not.toHaveProperty("prompt"); // by default: the tools array only
    const station = toolsOf(res.body).find((t) => t.function.name === "stationWeatherForecast");
    expect(station).toBeDefined();
    const parameters = station?.function.parameters as { required: string[]; properties: Record<string, Record<string, unknown> | undefined> } | undefined;
    expect(parameters?.required).toEqual(["station"]);
    expect(parameters?.properties.station?.enum).toBeUndefined();
    expect(String(parameters?.properties.station?.description)).toContain("One of 3,000 values");
    expect(station?.function.description?.length).toBeLessThanOrEqual(200);
    // Before compact views this one tool's entry alone was well over the whole budget.
    expect(tokens(JSON.stringify(CODES))).toBeGreaterThan(2_000);

    const full = await service.json<{ definition: { description: string; parameters: { schema: { enum?: string[] } }[] } }>(
      "GET",
      "/v1/tools/stationWeatherForecast",
      { key: tenant.key },
    );
    expect(full.body.definition.description).toBe(LONG_DESCRIPTION);
    expect(full.body.definition.parameters[0]?.schema.enum).toHaveLength(3_000);
  });

  it("at a tight budget names what it left out, with each one's cost", async () => {
    const all = await route({ task: "weather forecast for a city", k: 8, maxTokens: 100_000 });
    const res = await route({ task: "weather forecast for a city", k: 8, maxTokens: 300 });
    expect(res.status).toBe(200);
    expectExactCounts(res.body);
    expect(res.body.tokens.budget).toBe(300);
    const shown = toolsOf(res.body).map((t) => t.function.name);
    const left = res.body.overBudget.map((o) => o.name);
    expect(left.length).toBeGreaterThan(0);
    expect([...shown, ...left].sort()).toEqual(
      toolsOf(all.body)
        .map((t) => t.function.name)
        .sort(),
    );
    for (const item of res.body.overBudget) {
      expect(item.tokens).toBeGreaterThan(0);
      expect(item.message).toContain(item.name);
    }
  });

  it("returns the parts `include` names, and its budget counts exactly those", async () => {
    const task = "weather forecast for a city";
    const toolsOnly = await route({ task, k: 8, maxTokens: 600 });
    const both = await route({ task, k: 8, maxTokens: 600, include: ["tools", "prompt"] });
    const promptOnly = await route({ task, k: 8, maxTokens: 600, include: ["prompt"] });
    for (const res of [toolsOnly, both, promptOnly]) {
      expect(res.status).toBe(200);
      expectExactCounts(res.body);
    }
    expect(toolsOnly.body.tokens.prompt).toBe(0);
    expect(String(both.body.prompt)).toMatch(/^First step: the \d+ tools in `tools`, best first, weights/);
    // The same budget shows at least as many tools when it need not pay for the prompt block.
    expect(toolsOf(toolsOnly.body).length).toBeGreaterThanOrEqual(toolsOf(both.body).length);
    // Alone, the prompt is the eq. 4 list: every tool shown is named on its line, with its weight.
    expect(promptOnly.body).not.toHaveProperty("tools");
    const lines = String(promptOnly.body.prompt).split("\n");
    expect(lines[0]).toBe("Tools you can start with, sorted by weight:");
    for (const [i, c] of promptOnly.body.candidates.entries()) expect(lines[i + 1]).toBe(`${i + 1}. ${c.name} (weight ${c.weight}): ${c.description}`);
  });

  it("uses the tenant's default parts, which a request can override; a bad setting is refused and changes nothing", async () => {
    const task = "weather forecast for a city";
    const put = await service.json("PUT", "/v1/settings/routing", { key: tenant.key, body: { maxTokens: 2_000, include: ["tools", "prompt"] } });
    expect(put.status).toBe(200);
    const byDefault = await route({ task, k: 3 });
    expect(byDefault.body.prompt).toMatch(/^First step: the 3 tools in `tools`/);
    expectExactCounts(byDefault.body);
    const overridden = await route({ task, k: 3, include: ["tools"] });
    expect(overridden.body).not.toHaveProperty("prompt");
    const bad = await service.json<{ errors: { path: string }[] }>("PUT", "/v1/settings/routing", { key: tenant.key, body: { maxTokens: 2_000, include: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]?.path).toBe("include");
    expect((await service.json("GET", "/v1/settings/routing", { key: tenant.key })).body).toEqual({ maxTokens: 2_000, include: ["tools", "prompt"] });
    await service.json("PUT", "/v1/settings/routing", { key: tenant.key, body: { maxTokens: 2_000 } });
    expect((await route({ task, k: 3 })).body).not.toHaveProperty("prompt");
  });

  it("refuses a bad `include` with a problem naming it", async () => {
    const cases: [unknown, RegExp][] = [
      [[], /at least one part/],
      [["tools", "tools"], /each part once/],
      [["markdown"], /tools|prompt/],
      ["tools", /array/],
    ];
    for (const [include, message] of cases) {
      const res = await service.json<{ status: number; errors: { path: string; message: string }[] }>("POST", "/v1/route", {
        key: tenant.key,
        body: { task: "weather", include },
      });
      expect(res.status, JSON.stringify(include)).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body.errors[0]?.path).toMatch(/^include/);
      expect(res.body.errors[0]?.message).toMatch(message);
    }
  });

  it("reports a tool whose required parameters alone exceed the budget", async () => {
    const res = await route({ task: "bulk forecast order for stations", k: 3, maxTokens: 250 });
    expect(res.status).toBe(200);
    expectExactCounts(res.body);
    const bulk = res.body.overBudget.find((o) => o.name === "bulkForecastOrder");
    expect(bulk?.reason).toBe("required-parameters-exceed-budget");
    expect(bulk?.requiredOnlyTokens).toBeGreaterThan(250);
    expect(bulk?.message).toContain("required parameters alone");
  });

  it("uses the tenant's default budget, which a request can override; bad budgets are refused and change nothing", async () => {
    expect((await service.json("GET", "/v1/settings/routing", { key: tenant.key })).body).toEqual({ maxTokens: 2_000, include: ["tools"] });
    const put = await service.json("PUT", "/v1/settings/routing", { key: tenant.key, body: { maxTokens: 400 } });
    expect(put.status).toBe(200);
    const byDefault = await route({ task: "weather forecast for a city", k: 8 });
    expect(byDefault.body.tokens.budget).toBe(400);
    expectExactCounts(byDefault.body);
    const overridden = await route({ task: "weather forecast for a city", k: 8, maxTokens: 5_000 });
    expect(overridden.body.tokens.budget).toBe(5_000);

    const tooSmall = await service.json<{ type: string; detail: string }>("POST", "/v1/route", {
      key: tenant.key,
      body: { task: "weather", maxTokens: 5, include: ["tools", "prompt"] },
    });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.detail).toMatch(/maxTokens 5 is below what any answer here costs: .* take \d+ tokens/);
    // The tools array alone costs only its brackets when nothing fits: every tool is named in overBudget.
    const nothingFits = await route({ task: "weather forecast for a city", k: 3, maxTokens: 5 });
    expect(nothingFits.status).toBe(200);
    expect(nothingFits.body.tools).toEqual([]);
    expect(nothingFits.body.overBudget).toHaveLength(3);
    const badSetting = await service.json("PUT", "/v1/settings/routing", { key: tenant.key, body: { maxTokens: 5 } });
    expect(badSetting.status).toBe(400);
    expect((await service.json("GET", "/v1/settings/routing", { key: tenant.key })).body).toEqual({ maxTokens: 400, include: ["tools"] });
    await service.json("PUT", "/v1/settings/routing", { key: tenant.key, body: { maxTokens: 2_000 } });
  });

  it("recomputes a stored view when the shown description changes (a probed or optimised one)", async () => {
    const tool = await service.json<{ hash: string }>("GET", "/v1/tools/weatherForecast3", { key: tenant.key });
    const object = await tenantObject(service, tenant.id);
    await object.store("protocols").record({
      tool: "weatherForecast3",
      hash: tool.body.hash,
      kvKey: "protocol/test/weatherForecast3/x",
      source: "optimize",
      score: 1,
      jobId: null,
      description: "Hourly city forecast, optimised wording.",
    });
    const res = await route({ task: "weather forecast for a city provider 3", k: 12 });
    const entry = toolsOf(res.body).find((t) => t.function.name === "weatherForecast3");
    expect(entry?.function.description).toBe("Hourly city forecast, optimised wording.");
    expectExactCounts(res.body);
  });

  it("recomputes views stored by older compaction rules (version 3, before restating-descriptions-dropped) on first use", async () => {
    const name = "weatherForecast5";
    const { body } = await service.json<{ definition: unknown }>("GET", `/v1/tools/${name}`, { key: tenant.key });
    const definition = ToolDefinition.parse(body.definition);
    const current = toolViews(definition).compact;
    // Version 3's rules showed "The city." for `city`; the current ones drop it (it restates the name).
    const older = compactView(definition, COMPACT_LIMITS, { without: ["restating-descriptions-dropped", "described-defaults-dropped"] }).tool;
    expect(JSON.stringify(older)).toContain("The city.");
    expect(JSON.stringify(current)).not.toContain("The city.");
    const object = await tenantObject(service, tenant.id);
    await object.storeToolViewAs(name, 3, older, tokens(JSON.stringify(older)));
    const res = await route({ task: "weather forecast for a city provider 5", k: 12 });
    expect(toolsOf(res.body).find((t) => t.function.name === name)).toEqual(current);
    expectExactCounts(res.body);
    expect(await object.storedToolView(name)).toEqual({ version: TOOL_VIEWS_VERSION, compact: current });
  });

  it("recomputes views stored for another definition of the tool (read with the registry's current hash) on first use", async () => {
    const name = "weatherForecast6";
    const { body } = await service.json<{ definition: unknown }>("GET", `/v1/tools/${name}`, { key: tenant.key });
    const current = toolViews(ToolDefinition.parse(body.definition)).compact;
    const object = await tenantObject(service, tenant.id);
    const stale = { type: "function", function: { name, description: "What an older definition showed.", parameters: { type: "object", properties: {} } } };
    await object.storeToolViewForOlderDefinition(name, stale);
    const res = await route({ task: "weather forecast for a city provider 6", k: 12 });
    expect(toolsOf(res.body).find((t) => t.function.name === name)).toEqual(current);
    expectExactCounts(res.body);
    expect(await object.storedToolView(name)).toEqual({ version: TOOL_VIEWS_VERSION, compact: current });
  });

  it("shows a protocol's description while it is current for the tool's definition, across later versions and tool changes", async () => {
    const name = "weatherForecast7";
    const shown = async () =>
      toolsOf((await route({ task: "weather forecast for a city provider 7", k: 12 })).body).find((t) => t.function.name === name)?.function.description;
    const registered = "Weather forecast for a city from provider 7: temperature, wind and rain.";
    expect(await shown()).toBe(registered);
    const object = await tenantObject(service, tenant.id);
    const record = async (description: string, version: string) => {
      const { body } = await service.json<{ hash: string }>("GET", `/v1/tools/${name}`, { key: tenant.key });
      await object
        .store("protocols")
        .record({ tool: name, hash: body.hash, kvKey: `protocol/test/${name}/${version}`, source: "optimize", score: 1, jobId: null, description });
    };
    await record("Provider 7's forecast, first wording.", "a");
    expect(await shown()).toBe("Provider 7's forecast, first wording.");
    await record("Provider 7's forecast, second wording.", "b");
    expect(await shown()).toBe("Provider 7's forecast, second wording.");
    // A changed definition: the protocol was made for the old one, so the registered text is shown.
    const changed = { ...weatherTools[7], description: "Weather forecast for a city from provider 7, now with UV index." };
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "weather", tools: [changed] } })).status).toBe(
      200,
    );
    expect(await shown()).toBe("Weather forecast for a city from provider 7, now with UV index.");
    await record("Provider 7's forecast with UV, optimised.", "c");
    expect(await shown()).toBe("Provider 7's forecast with UV, optimised.");
  });

  it("lists each candidate with its one-line description as it is now, after a re-import, a protocol and a deletion (none remembered stale)", async () => {
    const own = await createTenant(service, "candidate-lines-co");
    const name = "weatherForecast4";
    const importTools = (source: string, tools: unknown[]) =>
      service.json("POST", "/v1/tools/import", { key: own.key, body: { format: "list", source, tools } });
    expect((await importTools("weather", weatherTools)).status).toBe(200);
    const line = async (): Promise<string | undefined> => {
      const res = await service.json<RouteAnswer>("POST", "/v1/route", { key: own.key, body: { task: "weather forecast for a city provider 4", k: 12 } });
      expect(res.status).toBe(200);
      return res.body.candidates.find((c) => c.name === name)?.description;
    };
    expect(await line()).toBe("Weather forecast for a city from provider 4: temperature, wind and rain.");
    // Shown twice: the second answer reads it from memory.
    expect(await line()).toBe("Weather forecast for a city from provider 4: temperature, wind and rain.");
    const changed = { ...weatherTools[4], description: "Provider 4's forecast,\n  now   hourly." };
    expect((await importTools("weather", [changed])).status).toBe(200);
    expect(await line()).toBe("Provider 4's forecast, now hourly.");
    const { body } = await service.json<{ hash: string }>("GET", `/v1/tools/${name}`, { key: own.key });
    const object = await tenantObject(service, own.id);
    await object.store("protocols").record({
      tool: name,
      hash: body.hash,
      kvKey: `protocol/test/${name}/lines`,
      source: "optimize",
      score: 1,
      jobId: null,
      description: "Optimised: hourly forecast.",
    });
    expect(await line()).toBe("Optimised: hourly forecast.");
    expect((await service.json("DELETE", `/v1/tools/${name}`, { key: own.key })).status).toBe(204);
    expect(await line()).toBeUndefined();
  });

  it("remakes on first use a tool's views stored without their one-line description (rows older than migration 19)", async () => {
    const name = "weatherForecast9";
    const object = await tenantObject(service, tenant.id);
    await object.dropToolViewLine(name);
    expect(await object.storedToolViewLine(name)).toBeNull();
    const res = await route({ task: "weather forecast for a city provider 9", k: 12 });
    expect(res.body.candidates.find((c) => c.name === name)?.description).toBe("Weather forecast for a city from provider 9: temperature, wind and rain.");
    expect(await object.storedToolViewLine(name)).toBe("Weather forecast for a city from provider 9: temperature, wind and rain.");
  });

  it("a run's candidate set spends each tool's stored run-prompt figure, and routing its stored view's", async () => {
    const routing = (await tenantObject(service, tenant.id)).store("routing");
    const set = await routing.candidates("weather forecast for a city", { seeds: 3, maxTools: 6, tokenBudget: 100_000 });
    expect(set.candidates.length).toBeGreaterThan(1);
    let runTokens = 0;
    for (const { tool } of set.candidates) {
      const { body } = await service.json<{ definition: unknown }>("GET", `/v1/tools/${tool}`, { key: tenant.key });
      const definition = ToolDefinition.parse(body.definition);
      // weatherForecast3 has an optimised description (test above): both figures are of it as shown.
      const shown = tool === "weatherForecast3" ? { ...definition, summary: undefined, description: "Hourly city forecast, optimised wording." } : definition;
      runTokens += signatureTokens(shown);
      expect(signatureTokens(shown)).not.toBe(toolViews(shown).compactTokens);
    }
    // The typed signature the run prompt shows, not the routing view (a different text).
    expect(set.tokens).toBe(runTokens);
  });
});

describe("route answers sent as text", () => {
  it("are byte for byte the object answer's JSON, whether the views are read from storage, remembered, or recomputed", async () => {
    const own = await createTenant(service, "answer-bytes-co");
    // Descriptions an answer's text must carry exactly: quotes and a `"tools":` of their own, a NUL, non-ASCII, marks.
    const tricky = [
      {
        name: "quotedTools",
        description: `Lists "tools":"${String.fromCharCode(0)}tools${String.fromCharCode(0)}" for a city's weather forecast \\u0000 verbatim.`,
      },
      { name: "cafeForecast", description: "Weather forecast for a café in 東京 or Zürich, e\u0301 accents and 🚀 launches." },
    ].map((tool) => ({
      ...tool,
      method: "GET",
      url: `https://${tool.name.toLowerCase()}.example.com/`,
      parameters: [{ name: "city", in: "query", required: true, type: "string", description: "City «name»." }],
    }));
    const imported = await service.json("POST", "/v1/tools/import", {
      key: own.key,
      body: { format: "list", source: "weather", tools: [...weatherTools, stationTool, bulkTool, ...tricky] },
    });
    expect(imported.status).toBe(200);
    const object = await tenantObject(service, own.id);
    const routing = object.store("routing");
    const requests = [
      "weather forecast for a city",
      "forecast for a café or a station",
      "order bulk forecast reports",
      "city's weather tools verbatim",
    ].flatMap((task) =>
      [{}, { include: ["tools", "prompt"] }, { include: ["prompt"] }, { maxTokens: 400 }, { previousTool: "weatherForecast2" }].map((extra) => ({
        task,
        k: 8,
        ...extra,
      })),
    );
    const bodies = async (): Promise<string[]> => {
      const texts: string[] = [];
      for (const body of requests) {
        const res = await service.fetch("/v1/route", {
          method: "POST",
          headers: { authorization: `Bearer ${own.key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
        texts.push(await res.text());
      }
      return texts;
    };
    const fromStorage = await bodies();
    expect(fromStorage.some((text) => text.includes('"name":"quotedTools"'))).toBe(true);
    expect(await bodies()).toEqual(fromStorage);
    // The object answer (views parsed), serialised here: the same text.
    for (const [i, body] of requests.entries()) {
      const answer = await routing.route(body.task, body.previousTool ?? null, body.k, undefined, {
        ...("include" in body ? { include: body.include as ("tools" | "prompt")[] } : {}),
        ...("maxTokens" in body ? { maxTokens: body.maxTokens } : {}),
      });
      expect(answer.ok && JSON.stringify(answer.value), JSON.stringify(body)).toBe(fromStorage[i]);
    }
    await object.simulateEviction();
    expect(await bodies()).toEqual(fromStorage);
    // Views stored by older rules are recomputed on first use: the answers do not change.
    for (const name of ["weatherForecast0", "quotedTools", "cafeForecast"]) {
      const stored = await object.storedToolView(name);
      await object.storeToolViewAs(name, TOOL_VIEWS_VERSION - 1, stored?.compact, 1);
    }
    expect(await bodies()).toEqual(fromStorage);
  });
});
