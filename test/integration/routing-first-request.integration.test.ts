import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashEmbedding, createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";
import { apiEvidenceCatalog } from "../helpers/api-evidence-catalog";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

/** Twenty tools of four small APIs; a task about invoices matches two of them by its words. */
const twentyTools = [
  { name: "listInvoices", method: "GET", url: "https://billing.example.com/invoices", description: "List invoices." },
  { name: "getInvoice", method: "GET", url: "https://billing.example.com/invoices/{invoice_id}", description: "One invoice by id." },
  { name: "refundPayment", method: "POST", url: "https://billing.example.com/refunds", description: "Refund a payment." },
  { name: "listPayments", method: "GET", url: "https://billing.example.com/payments", description: "List payments." },
  ...["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"].map((w) => ({
    name: `${w}Status`,
    method: "GET",
    url: `https://ops.example.com/${w}`,
    description: `Status of ${w}.`,
  })),
  ...["india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"].map((w) => ({
    name: `${w}Report`,
    method: "GET",
    url: `https://reports.example.com/${w}/{report_id}`,
    description: `Report on ${w}.`,
  })),
];

/** Tools that say what they do in words a request may not use. */
const paraphraseTools = [
  { name: "getWeather", method: "GET", url: "https://weather.example.com/now", description: "Provide you with the latest weather information." },
  { name: "findFlights", method: "GET", url: "https://travel.example.com/flights", description: "Search airline flights between two airports on a date." },
  { name: "bookHotel", method: "POST", url: "https://travel.example.com/hotels", description: "Reserve a hotel room in a city." },
];

/** A scripted embedding that knows one concept: weather words meet on one axis, other text as a hashed bag of words. */
const WEATHER_WORDS = /\b(weather|temperature|forecast|rain|sunny|afternoon)\b/i;
function conceptEmbedding(text: string, dimensions: number): number[] {
  const words = hashEmbedding(text, dimensions);
  const concept = WEATHER_WORDS.test(text) ? 1 : 0;
  const vector = words.map((v, i) => (i === 0 ? v * 0.2 + concept : v * 0.2));
  const norm = Math.hypot(...vector);
  return vector.map((v) => v / norm);
}

let service: TestService;
let model: ScriptedModel;

beforeAll(async () => {
  model = createScriptedModel({ embed: conceptEmbedding });
  service = await startService({
    outbound: async (request) => (new URL(request.url).hostname === "model.atc.test" ? model.handle(request) : new Response("no", { status: 404 })),
  });
});
afterAll(async () => service.dispose());

const route = (key: string, body: Record<string, unknown>) => service.json<RouteAnswer>("POST", "/v1/route", { key, body });
const importTools = async (key: string, tools: unknown[]) =>
  expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", tools } })).status).toBe(200);

describe("routing that is right from a tenant's first request", () => {
  it("answers k = 10 on a tenant of 20 tools when the task's words match two, the matches first", async () => {
    const tenant = await createTenant(service, "twenty-tools");
    await importTools(tenant.key, twentyTools);
    const answer = await route(tenant.key, { task: "invoices", k: 10 });
    expect(answer.status).toBe(200);
    const names = answer.body.candidates.map((c) => c.name);
    expect(names).toHaveLength(10);
    expect(new Set(names.slice(0, 2))).toEqual(new Set(["listInvoices", "getInvoice"]));
    expect(answer.body.fallback).toBeUndefined();
    // Every tool when k passes the tenant's size.
    expect((await route(tenant.key, { task: "invoices", k: 25 })).body.candidates).toHaveLength(20);
  });

  it("finds a paraphrased request's tool through the tenant's embeddings model, and not without it", async () => {
    const own = await createTenant(service, "paraphrase-embedder");
    const lexical = await createTenant(service, "paraphrase-lexical");
    expect((await service.json("PUT", "/v1/settings/model", { key: own.key, body: { embeddingModel: "scripted-embeddings" } })).status).toBe(200);
    await importTools(own.key, paraphraseTools);
    await importTools(lexical.key, paraphraseTools);
    const task = "What's the expected temperature in Rome this afternoon?";
    const embedded = await route(own.key, { task, k: 3 });
    expect(embedded.body.via).toBe("retrieval+embeddings");
    expect(embedded.body.fallback).toBeUndefined();
    expect(embedded.body.candidates[0]?.name).toBe("getWeather");
    expect(embedded.body.candidates[0]?.why?.relevance?.rank).toBe(1);
    // Without the embeddings path no tool matches the task as written: a stand-in ranking answers, and says so.
    const plain = await route(lexical.key, { task, k: 3 });
    expect(plain.body.via).toBe("retrieval");
    expect(plain.body.fallback).toBeDefined();
    expect(plain.body.candidates).toHaveLength(3);
  });

  it("fills one tenant's answers from its own learning only: another tenant's answers do not change", async () => {
    const learner = await createTenant(service, "fill-learner");
    const bystander = await createTenant(service, "fill-bystander");
    for (const t of [learner, bystander]) await importTools(t.key, twentyTools);
    const before = await route(bystander.key, { task: "invoices", k: 10 });
    const trajectories = [1, 2, 3].map((i) => ({ id: `p${i}`, tools: ["papaReport", "kiloReport"] }));
    expect((await service.json("POST", "/v1/graph/trajectories", { key: learner.key, body: { trajectories } })).status).toBe(200);
    const learned = await route(learner.key, { task: "invoices", k: 10 });
    // The learner's answer is filled with what its runs start with ...
    expect(learned.body.candidates.map((c) => c.name)).toContain("papaReport");
    // ... the bystander's is exactly as before.
    const after = await route(bystander.key, { task: "invoices", k: 10 });
    expect(after.body.candidates).toEqual(before.body.candidates);
    expect(after.body.candidates.map((c) => c.name)).not.toContain("papaReport");
  });

  it("lowers a tool needing a number the task does not say, and follows a change of its parameters at once", async () => {
    const tenant = await createTenant(service, "said-numbers");
    const season = (required: boolean) => ({
      name: "tvSeasonDetails",
      method: "GET",
      url: "https://seasons.example.com/season",
      description: "Season details of a tv show: episodes and air dates.",
      parameters: [{ name: "season_number", in: "query", required, type: "integer", description: "Which season." }],
    });
    const others = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"].map((w) => ({
      name: `${w}ShowFacts`,
      method: "GET",
      url: `https://${w}.example.com/facts`,
      description: `Facts about a tv show season: ${w}.`,
    }));
    const top3 = async () => (await route(tenant.key, { task: "season details and episodes of a tv show", k: 3 })).body.candidates.map((c) => c.name);
    await importTools(tenant.key, [season(true), ...others]);
    // The best match by its words, but it needs a season the task does not say: ten places lower.
    expect(await top3()).not.toContain("tvSeasonDetails");
    await importTools(tenant.key, [season(false)]);
    expect((await top3())[0]).toBe("tvSeasonDetails");
    await importTools(tenant.key, [season(true)]);
    expect(await top3()).not.toContain("tvSeasonDetails");
  });

  it("gives a two-need task both needs in the top 5, first step and later step, where one query gives one need's look-alikes", async () => {
    const tenant = await createTenant(service, "two-needs");
    const charts = ["bar", "line", "pie", "scatter", "area", "radar"].map((kind) => ({
      name: `${kind}Chart`,
      method: "POST",
      url: `https://charts.example.com/${kind}`,
      description: `Draw a ${kind} chart of ranking data: chart title, chart colours, chart size.`,
    }));
    const pdf = { name: "exportPdf", method: "POST", url: "https://documents.example.com/pdf", description: "Save a document as PDF." };
    await importTools(tenant.key, [...charts, pdf, ...paraphraseTools]);
    const task = "Draw a bar chart of the reading ranking with a chart title, chart colours and a chart size, and save it as PDF.";
    const top5 = (await route(tenant.key, { task, k: 5 })).body.candidates.map((c) => c.name);
    expect(top5[0]).toBe("barChart");
    expect(top5).toContain("exportPdf");
    const later = (await route(tenant.key, { task, previousTool: "barChart", k: 5 })).body.candidates.map((c) => c.name);
    expect(later).toContain("exportPdf");
  });

  it("finds a task's tool through its API's other operations, where a bigger API's one stray match ranked above it", async () => {
    const tenant = await createTenant(service, "api-evidence");
    const embedder = await createTenant(service, "api-evidence-embedder");
    expect((await service.json("PUT", "/v1/settings/model", { key: embedder.key, body: { embeddingModel: "scripted-embeddings" } })).status).toBe(200);
    const op = (api: string, name: string, description: string) => ({ name, method: "GET", url: `https://${api}.example.com/${name}`, description });
    const catalog = apiEvidenceCatalog(op);
    const task = "Inception: who is in the cast, and what do reviews say?";
    // Lexical alone, and fused with the tenant's embeddings (the lexical matches lead in the order API evidence gives them).
    for (const { key, via } of [
      { key: tenant.key, via: "retrieval" },
      { key: embedder.key, via: "retrieval+embeddings" },
    ]) {
      await importTools(key, catalog);
      const answer = (await route(key, { task, k: 3 })).body;
      expect(answer.via).toBe(via);
      const top3 = answer.candidates.map((c) => c.name);
      expect(top3).toContain("movieCredits");
      expect(top3).toContain("movieReviews");
      expect(top3).not.toContain("productReviews");
    }
    // A chat's later step ranks by the task's words alone: there the theatre's and the shop's matches keep their places.
    const later = (await route(tenant.key, { task, previousTool: "searchMovie", k: 10 })).body.candidates;
    expect(later.find((c) => c.name === "productReviews")?.why?.relevance?.rank).toBe(2);
    // A run's candidate set weighs it too.
    const routing = (await tenantObject(service, tenant.id)).store("routing");
    const set = await routing.candidates(task, { seeds: 3, maxTools: 3, tokenBudget: 100_000 });
    expect(set.candidates.map((c) => c.tool)).toContain("movieCredits");
  });

  it("does not offer the previous tool's unobserved self-loop first in graph mode", async () => {
    const tenant = await createTenant(service, "self-loop");
    await importTools(tenant.key, twentyTools);
    await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories: [{ id: "t1", tools: ["listInvoices", "getInvoice"] }] } });
    for (let i = 0; i < 5; i += 1) await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: ["listInvoices"], scores: [3] } });
    await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: ["getInvoice"], scores: [-1] } });
    const graph = await route(tenant.key, { task: "invoices", previousTool: "listInvoices", k: 3, mode: "graph" });
    expect(graph.status).toBe(200);
    expect(graph.body.candidates[0]?.name).toBe("getInvoice");
    expect(graph.body.candidates[0]?.name).not.toBe("listInvoices");
  });
});
