import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LearnedWordsView } from "../../functions/routing/learned-words";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { figure2Answer, RATES_HOST, RATES_TOOL, rates } from "../helpers/figure2-world";
import { waitForJob } from "../helpers/jobs";
import { createScriptedModel, type ScriptedChatRequest } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * Example requests teach the learned field (issue 45, item 1): after an import, the tenant's
 * model writes a few requests per new tool, and the queries of an applied Play2Prompt
 * optimisation do the same; both weigh below observed use. The model is the real `openai` client
 * against a scripted endpoint; Play2Prompt plays the paper's Figure 2 world.
 */

const TOOLS = [
  { name: "searchMovie", method: "GET", url: "https://api.example.com/search/movie", description: "Search for a movie by its title" },
  { name: "movieCredits", method: "GET", url: "https://api.example.com/movie/credits", description: "Get the cast and crew of a movie" },
  { name: "tvSeasons", method: "GET", url: "https://api.example.com/tv/seasons", description: "List the seasons of a TV show" },
  { name: "weatherToday", method: "GET", url: "https://api.example.com/weather/today", description: "Today's weather forecast for a city" },
];
/** The same tools after their API document changed (new definitions). */
const TOOLS_CHANGED = TOOLS.map((tool) => ({ ...tool, description: `${tool.description} (API version 2)` }));

/** What the scripted model writes per tool; searchMovie gets none. The movieCredits request shares no word with any tool's own text. */
const WRITTEN: Record<string, string[]> = {
  movieCredits: ["Who starred in that blockbuster flick"],
  tvSeasons: ["how many seasons does that series have"],
  weatherToday: ["do I need an umbrella"],
  [RATES_TOOL.name]: ["what was the euro worth last spring"],
  listPets: ["show me every animal in the shelter"],
};
/** A paraphrase sharing words only with movieCredits' example request. */
const PARAPHRASE = "which blockbuster flick";
/** A tool whose name makes the scripted model fail. */
const FAILING_TOOL = "brokenTool";

const WRITER = "You write example requests that users of an assistant might type";

function writeExamples(request: ScriptedChatRequest) {
  const asked = JSON.parse(request.lastUserMessage.replace(/^[^\n]*\n/, "")) as { name: string }[];
  if (asked.some((tool) => tool.name === FAILING_TOOL)) return { status: 500, body: { error: { message: "the model is down", type: "server_error" } } };
  const tools = asked.filter((tool) => WRITTEN[tool.name] !== undefined).map((tool) => ({ name: tool.name, requests: WRITTEN[tool.name] }));
  return { text: JSON.stringify({ tools }) };
}

const model = createScriptedModel({
  rules: [
    { name: "examples", system: WRITER, answer: writeExamples },
    { name: "figure2", answer: (request: ScriptedChatRequest) => ({ text: figure2Answer(request) }) },
  ],
});
const examplesAsked = (): number => model.chatRequests.filter((r) => r.rule === "examples").length;

let service: TestService;

async function outbound(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname === "model.atc.test") return model.handle(request);
  if (url.hostname === RATES_HOST) return rates(url);
  return Response.json({ results: [{ id: 1 }] });
}

async function importTools(key: string, tools: unknown[], source = "movies"): Promise<{ examplesJob?: string }> {
  const imported = await service.json<{ examplesJob?: string }>("POST", "/v1/tools/import", { key, body: { format: "list", source, tools } });
  expect(imported.status).toBe(200);
  return imported.body;
}

const examplesAtImport = async (key: string, on: boolean): Promise<void> => {
  expect((await service.json("PUT", "/v1/settings/learning", { key, body: { examplesAtImport: on } })).status).toBe(200);
};

/** The tool the paraphrase finds by words alone (mode graph: no similar tasks' votes); undefined when a fallback stands in. */
async function foundBy(key: string, task = PARAPHRASE): Promise<string | undefined> {
  const answer = (await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k: 1, mode: "graph" } })).body;
  return answer.fallback === undefined ? answer.candidates[0]?.name : undefined;
}

async function learnedWords(key: string, tool: string): Promise<LearnedWordsView> {
  const answer = await service.json<LearnedWordsView>("GET", `/v1/tools/${tool}/learned-words`, { key });
  expect(answer.status).toBe(200);
  return answer.body;
}

const NOTHING = { sources: 0, words: 0 };

interface ExamplesJob {
  status: string;
  result: { taught?: number; calls?: number; error?: string };
  usage: { totalTokens?: number };
  items: { tool: string; status: string }[];
}

beforeAll(async () => {
  service = await startService({ outbound });
});
afterAll(async () => service.dispose());

describe("example requests teach the learned field", () => {
  let tenant: { id: string; key: string };
  let other: { id: string; key: string };

  it("after an import, the model's example requests let a paraphrase find the tool it did not find before; tokens are charged to that tenant only", async () => {
    tenant = await createTenant(service, "examples-a");
    other = await createTenant(service, "examples-b");
    // No model of its own and the setting unset: nothing is asked.
    expect((await importTools(tenant.key, TOOLS)).examplesJob).toBeUndefined();
    expect(await importTools(other.key, TOOLS)).not.toHaveProperty("examplesJob");
    expect(examplesAsked()).toBe(0);
    expect(await foundBy(tenant.key)).toBeUndefined();

    await examplesAtImport(tenant.key, true);
    const { examplesJob } = await importTools(tenant.key, TOOLS_CHANGED);
    const job = await waitForJob<ExamplesJob>(service, tenant.key, examplesJob ?? "none");
    expect(job.status, JSON.stringify(job.result)).toBe("succeeded");
    expect(job.result).toMatchObject({ taught: 3, calls: 1 });
    expect(examplesAsked()).toBe(1);

    expect(await foundBy(tenant.key)).toBe("movieCredits");
    const learned = await learnedWords(tenant.key, "movieCredits");
    expect(learned.terms.map((t) => t.term).sort()).toEqual(["blockbust", "flick", "star"]);
    expect(learned).toMatchObject({ sources: 1, fromUse: NOTHING, fromExamples: { sources: 1, words: 3 } });

    // The model's tokens count toward this tenant's day, and no other's.
    const quotas = async (key: string) => (await service.json<{ modelTokensToday: number }>("GET", "/v1/settings/quotas", { key })).body.modelTokensToday;
    expect(job.usage.totalTokens ?? 0).toBeGreaterThan(0);
    expect(await quotas(tenant.key)).toBe(job.usage.totalTokens);
    expect(await quotas(other.key)).toBe(0);
    expect(await foundBy(other.key)).toBeUndefined();
    expect(await learnedWords(other.key, "movieCredits")).toMatchObject({ sources: 0, terms: [], fromUse: NOTHING, fromExamples: NOTHING });
  });

  it("an example's words weigh less than the same words from a conversation", async () => {
    const headers = { "conversation-id": "chat-1" };
    await service.json("POST", "/v1/route", { key: tenant.key, headers, body: { task: WRITTEN.movieCredits?.[0], k: 5 } });
    await service.json("POST", "/v1/tools/searchMovie/call", { key: tenant.key, headers, body: { arguments: {} } });
    // A new task closes the first one: it is learned.
    await service.json("POST", "/v1/route", { key: tenant.key, headers, body: { task: "Today's weather forecast please", k: 5 } });
    const fromUse = await learnedWords(tenant.key, "searchMovie");
    expect(fromUse).toMatchObject({ fromUse: { sources: 1, words: 3 }, fromExamples: NOTHING });
    expect(fromUse.terms.every((t) => t.weight === 1)).toBe(true);
    expect((await learnedWords(tenant.key, "movieCredits")).terms.every((t) => t.weight === 0.5)).toBe(true);
    // The same words, once each: the conversation's tool comes first (at equal weights the tie would go to movieCredits).
    expect(await foundBy(tenant.key)).toBe("searchMovie");

    // The console's tool page says where the words came from.
    const signedIn = await service.fetch("/console/sign-in", {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ key: tenant.key }),
      headers: { origin: "http://atc.test", "content-type": "application/x-www-form-urlencoded" },
    });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const page = async (tool: string) => (await service.fetch(`/console/tools/${tool}`, { headers: { cookie }, redirect: "manual" })).text();
    expect(await page("movieCredits")).toContain("0 words from use, 3 from example requests");
    expect(await page("searchMovie")).toContain("3 words from use, 0 from example requests");
  });

  it("a deleted tool and a changed one lose their example words; another tenant's stay untouched", async () => {
    const tool = async (name: string) =>
      (await service.json<{ definition: Record<string, unknown> }>("GET", `/v1/tools/${name}`, { key: tenant.key })).body.definition;
    const credits = await tool("movieCredits");
    expect((await service.fetch("/v1/tools/movieCredits", { method: "DELETE", headers: { authorization: `Bearer ${tenant.key}` } })).status).toBe(204);
    expect((await service.json("PUT", "/v1/tools/movieCredits", { key: tenant.key, body: credits })).status).toBe(200);
    expect((await learnedWords(tenant.key, "movieCredits")).fromExamples).toEqual(NOTHING);
    expect(await foundBy(tenant.key)).toBe("searchMovie");

    expect((await learnedWords(tenant.key, "tvSeasons")).fromExamples.sources).toBe(1);
    const seasons = await tool("tvSeasons");
    expect((await service.json("PUT", "/v1/tools/tvSeasons", { key: tenant.key, body: { ...seasons, description: "The seasons of a show" } })).status).toBe(
      200,
    );
    expect(await learnedWords(tenant.key, "tvSeasons")).toMatchObject({ sources: 0, terms: [], fromExamples: NOTHING });
    // What use taught stays when examples go: searchMovie keeps its conversation's words.
    expect((await learnedWords(tenant.key, "searchMovie")).fromUse.sources).toBe(1);
  });

  it("an applied Play2Prompt optimisation's demonstration queries replace the tool's examples", async () => {
    const player = await createTenant(service, "examples-player");
    await examplesAtImport(player.key, true);
    const { examplesJob } = await importTools(player.key, [RATES_TOOL], "rates");
    expect((await waitForJob<ExamplesJob>(service, player.key, examplesJob ?? "none")).status).toBe("succeeded");
    const before = await learnedWords(player.key, RATES_TOOL.name);
    expect(before.terms.map((t) => t.term)).toContain("euro");

    const started = await service.json<{ jobId: string }>("POST", `/v1/tools/${RATES_TOOL.name}/optimize`, {
      key: player.key,
      body: { settings: { depth: 1, beamWidth: 2, expansionsPerNode: 2, refineSteps: 1 } },
    });
    expect(started.status).toBe(202);
    const optimized = await waitForJob<{ status: string; result: { improved: boolean; demonstrations: { query: string }[] } }>(
      service,
      player.key,
      started.body.jobId,
      180_000,
    );
    expect(optimized.result.improved).toBe(true);
    const after = await learnedWords(player.key, RATES_TOOL.name);
    const terms = after.terms.map((t) => t.term);
    expect(terms).toContain("rate");
    expect(terms).not.toContain("euro");
    expect(after).toMatchObject({ sources: 1, fromUse: NOTHING, fromExamples: { sources: 1 } });
  });

  it("a background import that ends queues the writing of its tools' examples", async () => {
    const shelter = await createTenant(service, "examples-background");
    await examplesAtImport(shelter.key, true);
    const document = {
      openapi: "3.0.3",
      info: { title: "Pets", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: { "/pets": { get: { operationId: "listPets", summary: "List the pets", responses: { "200": { description: "ok" } } } } },
    };
    const started = await service.json<{ jobId: string }>("POST", "/v1/tools/import", {
      key: shelter.key,
      body: { format: "openapi", document, background: true, source: "pets" },
    });
    expect(started.status).toBe(202);
    expect((await waitForJob(service, shelter.key, started.body.jobId)).status).toBe("succeeded");
    const jobs = (await service.json<{ jobs: { id: string; kind: string }[] }>("GET", "/v1/jobs", { key: shelter.key })).body.jobs;
    const examples = jobs.find((job) => job.kind === "examples");
    expect((await waitForJob<ExamplesJob>(service, shelter.key, examples?.id ?? "none")).result).toMatchObject({ taught: 1 });
    expect((await learnedWords(shelter.key, "listPets")).terms.map((t) => t.term)).toContain("shelter");
  });

  it("a failing model leaves the import done and the job saying why; a spent token budget queues nothing", async () => {
    const broken = await createTenant(service, "examples-broken");
    await examplesAtImport(broken.key, true);
    const failing = { name: FAILING_TOOL, method: "GET", url: "https://api.example.com/broken", description: "A tool" };
    const { examplesJob } = await importTools(broken.key, [failing], "broken");
    const job = await waitForJob<ExamplesJob>(service, broken.key, examplesJob ?? "none");
    expect(job.status).toBe("failed");
    expect(job.result.error).toMatch(/the model failed/);
    expect((await service.json("GET", `/v1/tools/${FAILING_TOOL}`, { key: broken.key })).status).toBe(200);

    expect((await service.json("PUT", "/v1/settings/quotas", { key: tenant.key, body: { modelTokensPerDay: 1 } })).status).toBe(200);
    const asked = examplesAsked();
    expect((await importTools(tenant.key, TOOLS)).examplesJob).toBeUndefined();
    expect(examplesAsked()).toBe(asked);
  });
});

describe("without a model", () => {
  it("asks nothing, whatever the setting", async () => {
    const modelRequests: string[] = [];
    const bare = await startService({
      programHost: false,
      bindings: { MODEL_BASE_URL: "", MODEL_NAME: "", MODEL_API_KEY: "" },
      outbound: (request) => {
        if (new URL(request.url).hostname === "model.atc.test") modelRequests.push(request.url);
        return Response.json({});
      },
    });
    try {
      const { key } = await createTenant(bare, "no-model");
      expect((await bare.json("PUT", "/v1/settings/learning", { key, body: { examplesAtImport: true } })).status).toBe(200);
      const imported = await bare.json<{ created: string[] }>("POST", "/v1/tools/import", { key, body: { format: "list", source: "movies", tools: TOOLS } });
      expect(imported.status).toBe(200);
      expect(imported.body).not.toHaveProperty("examplesJob");
      const jobs = await bare.json<{ jobs: { kind: string }[] }>("GET", "/v1/jobs", { key });
      expect(jobs.body.jobs.filter((job) => job.kind === "examples")).toEqual([]);
      expect(modelRequests).toEqual([]);
    } finally {
      await bare.dispose();
    }
  });
});
