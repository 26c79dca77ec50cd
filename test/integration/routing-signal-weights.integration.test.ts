import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalibrationReport } from "../../functions/routing/routing-calibration";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { calibrated, taughtTenant } from "../helpers/calibration";
import { createScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

/**
 * Each tenant's own traffic decides how much each routing signal counts (routing-calibration.ts):
 * its remembered tasks are replayed with each signal at every weight of a small grid, off the
 * request path (the tenant object's alarm), and a signal whose replay hurts is muted.
 */

// An embeddings model that reads only a few concept words: each maps to one dimension, so what
// the encoder "understands" is written down here (the last dimension keeps no vector at zero).
const CONCEPTS: Record<string, number> = { apple: 0, orchard: 0, banana: 1, tropical: 1, cherry: 2, stone: 2, grape: 3, vine: 3, lure: 9, omega: 9 };
function conceptEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  vector[dimensions - 1] = 0.01;
  for (const word of text.toLowerCase().split(/[^a-z]+/)) {
    const at = CONCEPTS[word];
    if (at !== undefined) vector[at] = (vector[at] ?? 0) + 1;
  }
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

const tool = (name: string, description: string) => ({ name, method: "GET", url: `https://${name.toLowerCase()}.example.com/run`, description });

// Helped: requests that share no word with their tool; only the encoder links "orchard" to the apples.
const FRUIT = ["apple", "banana", "cherry", "grape"];
const PARAPHRASE = ["orchard", "tropical", "stone", "vine"];
const fruitTools = FRUIT.map((fruit) => tool(`sort${fruit[0]?.toUpperCase()}${fruit.slice(1)}`, `Sort the ${fruit} crates.`));
const fruitTasks = PARAPHRASE.flatMap((word, i) =>
  ["today", "tomorrow", "tonight", "now"].map((when) => ({
    id: `fruit-${i}-${when}`,
    task: `${word} delivery status ${when}`,
    tools: [fruitTools[i]?.name ?? ""],
  })),
);

// Hurt: the words rank each request's tool fifth (after one strong match and three look-alikes);
// the encoder reads "lure" as "omega" and lifts six other look-alikes over it.
const LEAD_WORDS = "alpha beta gamma delta epsilon eta theta iota kappa lambda";
const lookAlikes = ["Aa", "Bb", "Cc", "Dd"].map((suffix) => tool(`item${suffix}`, "Zeta records."));
const lures = ["Ee", "Ff", "Gg", "Hh", "Ii", "Jj"].map((suffix) => tool(`item${suffix}`, "Zeta records omega."));
const lureTools = [tool("leadTool", `${LEAD_WORDS}.`), ...lookAlikes, ...lures];
const lureTasks = Array.from({ length: 16 }, (_, i) => ({ id: `lure-${i}`, task: `zeta ${LEAD_WORDS} lure ${i + 1}`, tools: ["itemDd"] }));

let service: TestService;
beforeAll(async () => {
  const model = createScriptedModel({ embed: conceptEmbedding });
  service = await startService({
    bindings: { EMBEDDING_MODEL: "scripted-embeddings" },
    outbound: async (request) => (new URL(request.url).hostname === "model.atc.test" ? model.handle(request) : new Response("no", { status: 404 })),
  });
});
afterAll(async () => service.dispose());

const route = (key: string, body: Record<string, unknown>) => service.json<RouteAnswer>("POST", "/v1/route", { key, body });

const taught = (name: string, tools: object[], tasks: { id: string; task: string; tools: string[] }[]) =>
  taughtTenant(service, name, tools, tasks, { routedFirst: true });

describe("embeddings count as much as the tenant's own replayed tasks show", () => {
  it("keeps embeddings where they found what the words did not, and mutes them where they pushed the right tool out", async () => {
    const helped = await taught("weights-helped", fruitTools, fruitTasks);
    expect(helped.report.replays.embeddings.judged).toBe(16);
    expect(helped.report.weights.embeddings).toBeGreaterThan(0);
    const paraphrase = await route(helped.key, { task: "orchard delivery status next week", k: 3 });
    expect(paraphrase.body.via).toBe("retrieval+embeddings");
    expect(paraphrase.body.candidates[0]?.name).toBe("sortApple");

    const hurt = await taught("weights-hurt", lureTools, lureTasks);
    expect(hurt.report.replays.embeddings.judged).toBe(16);
    // The words alone held each task's tool in the first 5; every embeddings weight pushed it out.
    expect(hurt.report.replays.embeddings.hits[0]).toBe(16);
    expect(hurt.report.weights.embeddings).toBe(0);
    const muted = await route(hurt.key, { task: `zeta ${LEAD_WORDS} lure 99`, k: 5 });
    expect(muted.body.via).toBe("retrieval");
    expect(muted.body.candidates.map((c) => c.name)).toContain("itemDd");
  }, 120_000);
});

// History against the words (as routing-history-calibration.integration.test.ts): tasks that
// started with the forecast although they name the weather, and pairs of one request that started
// with different tools, whose votes are wrong.
const weatherTools = [
  tool("getWeather", "Current weather: the weather now in a city."),
  tool("getForecast", "Forecast of the weather for the coming days."),
  tool("getQuote", "Stock price quote of a company."),
  tool("getNews", "News articles about a company."),
];
const weatherTasks = ["weather in Paris", "weather in Paris"].map((task, i) => ({ id: `weather-${i}`, task, tools: ["getForecast"] }));
const stockTasks = ["ACME", "Initech", "Globex"].flatMap((company) => [
  { id: `quote-${company}`, task: `stock price of ${company}`, tools: ["getQuote"] },
  { id: `news-${company}`, task: `stock price of ${company}`, tools: ["getNews"] },
]);

describe("the calibration runs off the request path", () => {
  it("answers a request from the last weights made while the alarm recalibrates, and keeps them across an eviction", async () => {
    const name = "weights-background";
    const { key } = await createTenant(service, name);
    const object = await tenantObject(service, name);
    await object.holdRoutingPreparation(true);
    expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", tools: weatherTools } })).status).toBe(200);
    expect((await service.json("POST", "/v1/graph/trajectories", { key, body: { trajectories: [...weatherTasks, ...stockTasks] } })).status).toBe(200);
    const first = async () => (await route(key, { task: "weather in Paris tomorrow", k: 3 })).body.candidates[0]?.name;

    // Never calibrated: the request replays nothing and routes with the defaults (history leads).
    expect(await first()).toBe("getForecast");
    const pending = await service.json<CalibrationReport>("GET", "/v1/routing/calibration", { key });
    expect(pending.body).toMatchObject({ stale: true, madeAt: null, weights: { history: 1 } });
    expect(await object.alarmAt()).not.toBeNull();

    // The alarm replays the tasks: the words were right more often, so the best match stays first.
    await object.holdRoutingPreparation(false);
    const made = await calibrated(service, name, key);
    expect(made.weights.history).toBe(0);
    expect(await first()).toBe("getWeather");

    // New tasks make it stale: requests keep the last weights until the alarm has made new ones.
    await object.holdRoutingPreparation(true);
    // Two more tasks where history was right: 4 of its votes right against the words' 3. A memory of 8 is judged
    // again after 4 changes: two tasks that share no word with any other (no vote judges them) make up the rest.
    const moreWeather = [
      ...Array.from({ length: 2 }, (_, i) => ({ id: `weather-more-${i}`, task: "weather in Paris", tools: ["getForecast"] })),
      { id: "tides", task: "tide tables Brest", tools: ["getNews"] },
      { id: "pollen", task: "pollen levels Lyon", tools: ["getQuote"] },
    ];
    expect((await service.json("POST", "/v1/graph/trajectories", { key, body: { trajectories: moreWeather } })).status).toBe(200);
    expect(await first()).toBe("getWeather");
    expect((await service.json<CalibrationReport>("GET", "/v1/routing/calibration", { key })).body).toMatchObject({ stale: true, weights: { history: 0 } });
    await object.holdRoutingPreparation(false);
    expect((await calibrated(service, name, key)).weights.history).toBe(1);
    expect(await first()).toBe("getForecast");

    // The weights are stored: after an eviction they are used at once, and made again in the background.
    await object.simulateEviction();
    await object.holdRoutingPreparation(true);
    expect(await first()).toBe("getForecast");
    expect((await service.json<CalibrationReport>("GET", "/v1/routing/calibration", { key })).body.weights.history).toBe(1);
    await object.holdRoutingPreparation(false);
  }, 120_000);
});
