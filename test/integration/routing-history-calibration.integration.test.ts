import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, type TestService } from "../helpers/service";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

/**
 * Whether similar earlier tasks may overrule the task's words at the first step is decided per
 * tenant, from its own remembered tasks (history-calibration.ts): where history's vote was right
 * more often than the words' best match, it leads; where the words were, the best match stays
 * first and history only widens the rest.
 */

const tools = [
  { name: "getWeather", method: "GET", url: "https://weather.example.com/now", description: "Current weather: the weather now in a city." },
  { name: "getForecast", method: "GET", url: "https://weather.example.com/forecast", description: "Forecast of the weather for the coming days." },
  { name: "getQuote", method: "GET", url: "https://market.example.com/quote", description: "Stock price quote of a company." },
  { name: "getNews", method: "GET", url: "https://market.example.com/news", description: "News articles about a company." },
];

// Tasks that started with the forecast although their words name the current weather: history is right, the words are not.
const weatherTasks = ["weather in Paris", "weather in Paris"].map((task, i) => ({ id: `weather-${i}`, task, tools: ["getForecast"] }));
// Pairs of the same request that started with different tools: what the others vote for is wrong, the words mostly right.
const stockTasks = ["ACME", "Initech", "Globex"].flatMap((company) => [
  { id: `quote-${company}`, task: `stock price of ${company}`, tools: ["getQuote"] },
  { id: `news-${company}`, task: `stock price of ${company}`, tools: ["getNews"] },
]);

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

async function tenantWith(name: string, trajectories: { id: string; task: string; tools: string[] }[]): Promise<string> {
  const tenant = await createTenant(service, name);
  expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools } })).status).toBe(200);
  expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } })).status).toBe(200);
  return tenant.key;
}

async function firstStep(key: string, task: string): Promise<RouteAnswer> {
  const res = await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k: 3 } });
  expect(res.status).toBe(200);
  return res.body;
}

describe("history leads the first step where the tenant's own tasks show it picks better", () => {
  it("lets history overrule the words on one tenant and keeps the best match first on another", async () => {
    const historyRight = await tenantWith("calibration-history", weatherTasks);
    const wordsRight = await tenantWith("calibration-words", [...weatherTasks, ...stockTasks]);
    const task = "weather in Paris tomorrow";

    // Where history was right (2 of 2 voted tasks, the words 0), its vote leads.
    const led = await firstStep(historyRight, task);
    expect(led.candidates[0]?.name).toBe("getForecast");
    expect(led.candidates[0]?.why?.history).toBeDefined();

    // Where the words were right more often (3 of 8 against history's 2), the best match stays
    // first, and the tool history voted for is still offered.
    const kept = await firstStep(wordsRight, task);
    expect(kept.candidates[0]?.name).toBe("getWeather");
    expect(kept.candidates.map((c) => c.name)).toContain("getForecast");
  }, 60_000);
});

describe("the first step offers what similar tasks used after their first tool", () => {
  it("ranks the tool similar tasks went on to, which the task's words do not name, among the first k", async () => {
    const catalog = [
      ...tools,
      { name: "getAirQuality", method: "GET", url: "https://air.example.com/index", description: "Pollution index of a place." },
      { name: "getPollen", method: "GET", url: "https://air.example.com/pollen", description: "Pollen count in a region." },
      { name: "getTides", method: "GET", url: "https://sea.example.com/tides", description: "Tide times of a harbour." },
      { name: "getSunrise", method: "GET", url: "https://sky.example.com/sun", description: "Sunrise and sunset times." },
    ];
    const tenant = await createTenant(service, "used-votes");
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: catalog } })).status).toBe(200);
    const trajectories = ["Rome", "Oslo"].map((city) => ({
      id: `walk-${city}`,
      task: `weather in ${city} for a walk`,
      tools: ["getWeather", "getAirQuality"],
    }));
    expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } })).status).toBe(200);
    const answer = await firstStep(tenant.key, "weather in Paris for a walk");
    const names = answer.candidates.map((c) => c.name);
    expect(names[0]).toBe("getWeather");
    expect(names).toContain("getAirQuality");
    expect(answer.candidates.find((c) => c.name === "getAirQuality")?.why?.history?.tasks).toBe(2);
  }, 60_000);
});
