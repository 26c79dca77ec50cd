import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedDocument } from "../helpers/generated-openapi";
import { waitForJob } from "../helpers/jobs";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };

const tools = [
  { name: "findFlights", method: "GET", url: "https://travel.example.com/flights", description: "Search airline flights between two airports on a date." },
  { name: "bookHotel", method: "POST", url: "https://travel.example.com/hotels", description: "Reserve a hotel room in a city." },
  { name: "getWeather", method: "GET", url: "https://weather.example.com/now", description: "Current weather for a city." },
];

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({
    // Background imports in batches of about 60 operations, so a job has several.
    bindings: { EMBEDDING_MODEL: "scripted-embeddings", IMPORT_BATCH_OPERATIONS: "60" },
    outbound: async (request) => (new URL(request.url).hostname === "model.atc.test" ? model.handle(request) : new Response("no", { status: 404 })),
  });
  tenant = await createTenant(service, "embedder");
});
afterAll(async () => service.dispose());

describe("embeddings for the first routing step", () => {
  it("embeds tools once at registration, embeds only the task when routing, and fuses the rankings", async () => {
    const imported = await service.json<{ created: string[]; warnings: string[] }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "list", tools },
    });
    expect(imported.body.warnings).toEqual([]);
    expect(model.embeddingRequests).toHaveLength(1);
    expect(model.embeddingRequests[0]?.inputs).toHaveLength(3);

    const again = await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools } });
    expect(again.status).toBe(200);
    expect(model.embeddingRequests).toHaveLength(1); // unchanged tools are not embedded again

    const changed = [{ ...tools[0], description: "Find flights between airports." }, tools[1], tools[2]];
    await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: changed } });
    expect(model.embeddingRequests).toHaveLength(2);
    expect(model.embeddingRequests[1]?.inputs).toHaveLength(1);

    const routed = await service.json<{ via: string; candidates: { name: string }[] }>("POST", "/v1/route", {
      key: tenant.key,
      body: { task: "weather in the city today", k: 3 },
    });
    expect(routed.status).toBe(200);
    expect(routed.body.via).toBe("retrieval+embeddings");
    expect(routed.body.candidates[0]?.name).toBe("getWeather");
    expect(model.embeddingRequests).toHaveLength(3);
    expect(model.embeddingRequests[2]?.inputs).toEqual(["weather in the city today"]);
    expect(model.chatRequests).toHaveLength(0); // never a chat-model call on the routing path
  });

  it("keeps routing lexical when the embeddings endpoint fails at registration, with a warning", async () => {
    const other = await createTenant(service, "embedder-two");
    model.onEmbeddings({ name: "down", answer: { status: 500, body: { error: { message: "down" } } }, times: 3 });
    const imported = await service.json<{ created: string[]; warnings: string[] }>("POST", "/v1/tools/import", {
      key: other.key,
      body: { format: "list", tools },
    });
    expect(imported.status).toBe(200);
    expect(imported.body.created).toHaveLength(3);
    expect(imported.body.warnings.join(" ")).toMatch(/embeddings were not computed/);
  });

  it("embeds the tools of a background import batch by batch, each once, so later registrations embed only their own", async () => {
    const owner = await createTenant(service, "embedder-background");
    const before = model.embeddingRequests.length;
    const started = await service.json<{ jobId: string }>("POST", "/v1/tools/import", {
      key: owner.key,
      body: { format: "openapi", document: generatedDocument(40), background: true },
    });
    expect(started.status).toBe(202);
    const job = await waitForJob<{ status: string; result: { created: string[]; warnings: string[] } }>(service, owner.key, started.body.jobId);
    expect(job.status).toBe("succeeded");
    expect(job.result.created).toHaveLength(120);
    expect(job.result.warnings.join(" ")).not.toMatch(/embeddings/);
    const requests = model.embeddingRequests.slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests) expect((request.inputs ?? []).length).toBeLessThanOrEqual(61);
    const embedded = requests.flatMap((r) => (r.inputs ?? []).map((text) => text.split("\n")[0]));
    expect(embedded.sort()).toEqual([...job.result.created].sort());

    const added = await service.json<{ warnings: string[] }>("POST", "/v1/tools/import", { key: owner.key, body: { format: "list", tools: [tools[2]] } });
    expect(added.status).toBe(200);
    expect(model.embeddingRequests.slice(before + requests.length).map((r) => (r.inputs ?? []).length)).toEqual([1]);
  });

  it("reports a background batch whose embeddings failed with a warning, and a later registration embeds what is missing", async () => {
    const owner = await createTenant(service, "embedder-background-down");
    model.onEmbeddings({ name: "down", answer: { status: 500, body: { error: { message: "down" } } }, times: 3 });
    const started = await service.json<{ jobId: string }>("POST", "/v1/tools/import", {
      key: owner.key,
      body: { format: "openapi", document: generatedDocument(40), background: true },
    });
    const job = await waitForJob<{ status: string; result: { created: string[]; warnings: string[] } }>(service, owner.key, started.body.jobId);
    expect(job.status).toBe("succeeded");
    expect(job.result.created).toHaveLength(120);
    expect(job.result.warnings.join(" ")).toMatch(/tool embeddings were not computed/);
    const before = model.embeddingRequests.length;
    await service.json("POST", "/v1/tools/import", { key: owner.key, body: { format: "list", tools: [tools[2]] } });
    const swept = model.embeddingRequests.slice(before).flatMap((r) => (r.inputs ?? []).map((text) => text.split("\n")[0]));
    expect(swept).toEqual(expect.arrayContaining(["listThings0", "getWeather"]));
  });

  it("embeds, when a job resumes, the tools an earlier slice left without vectors (a batch evicted before its embedding, or whose embedding failed)", async () => {
    const sliced = createScriptedModel();
    // One batch per slice: every batch after the first runs in a resumed job.
    const oneBatchASlice = await startService({
      bindings: { EMBEDDING_MODEL: "scripted-embeddings", IMPORT_BATCH_OPERATIONS: "60", IMPORT_SLICE_MS: "1" },
      outbound: async (request) => (new URL(request.url).hostname === "model.atc.test" ? sliced.handle(request) : new Response("no", { status: 404 })),
    });
    try {
      const owner = await createTenant(oneBatchASlice, "embedder-resumed");
      sliced.onEmbeddings({ name: "down", answer: { status: 500, body: { error: { message: "down" } } }, times: 3 });
      const started = await oneBatchASlice.json<{ jobId: string }>("POST", "/v1/tools/import", {
        key: owner.key,
        body: { format: "openapi", document: generatedDocument(40), background: true },
      });
      const job = await waitForJob<{ status: string; result: { created: string[]; warnings: string[] } }>(oneBatchASlice, owner.key, started.body.jobId);
      expect(job.status).toBe("succeeded");
      expect(job.result.created).toHaveLength(120);
      // The first batch's embedding failed; the next slice embedded its tools before its own batch, with no registration.
      expect(job.result.warnings.join(" ")).toMatch(/tool embeddings were not computed/);
      const answered = sliced.embeddingRequests.filter((r) => r.rule !== "down");
      expect(answered.length).toBeLessThan(sliced.embeddingRequests.length);
      const embedded = answered.flatMap((r) => (r.inputs ?? []).map((text) => text.split("\n")[0]));
      expect(new Set(embedded)).toEqual(new Set(job.result.created));
    } finally {
      await oneBatchASlice.dispose();
    }
  });

  it("embeds the task when only the tenant's own settings name an embeddings model (no service-wide one)", async () => {
    const ownModel = createScriptedModel();
    const plain = await startService({
      outbound: async (request) => (new URL(request.url).hostname === "model.atc.test" ? ownModel.handle(request) : new Response("no", { status: 404 })),
    });
    try {
      const own = await createTenant(plain, "own-embedder");
      const lexical = await createTenant(plain, "lexical-only");
      const set = await plain.json("PUT", "/v1/settings/model", { key: own.key, body: { embeddingModel: "scripted-embeddings" } });
      expect(set.status).toBe(200);
      for (const t of [own, lexical]) expect((await plain.json("POST", "/v1/tools/import", { key: t.key, body: { format: "list", tools } })).status).toBe(200);
      expect(ownModel.embeddingRequests).toHaveLength(1);
      const routed = await plain.json<{ via: string; candidates: { name: string }[] }>("POST", "/v1/route", {
        key: own.key,
        body: { task: "weather in the city today", k: 3 },
      });
      expect(routed.body.via).toBe("retrieval+embeddings");
      expect(ownModel.embeddingRequests.at(-1)?.inputs).toEqual(["weather in the city today"]);
      const other = await plain.json<{ via: string }>("POST", "/v1/route", { key: lexical.key, body: { task: "weather in the city today", k: 3 } });
      expect(other.body.via).toBe("retrieval");
      expect(ownModel.embeddingRequests).toHaveLength(2);
    } finally {
      await plain.dispose();
    }
  });

  it("follows a change of the tenant's embeddings model on the very next route, after routes that read the setting", async () => {
    const ownModel = createScriptedModel();
    const plain = await startService({
      outbound: async (request) => (new URL(request.url).hostname === "model.atc.test" ? ownModel.handle(request) : new Response("no", { status: 404 })),
    });
    try {
      const tenant = await createTenant(plain, "switches-embedder");
      expect((await plain.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools } })).status).toBe(200);
      const route = async () =>
        (await plain.json<{ via: string }>("POST", "/v1/route", { key: tenant.key, body: { task: "weather in the city today", k: 3 } })).body.via;
      expect(await route()).toBe("retrieval");
      expect(await route()).toBe("retrieval");
      expect(ownModel.embeddingRequests).toHaveLength(0);
      expect((await plain.json("PUT", "/v1/settings/model", { key: tenant.key, body: { embeddingModel: "scripted-embeddings" } })).status).toBe(200);
      await route();
      expect(ownModel.embeddingRequests.at(-1)?.inputs).toEqual(["weather in the city today"]);
      const embedded = ownModel.embeddingRequests.length;
      expect((await plain.json("DELETE", "/v1/settings/model", { key: tenant.key })).status).toBeLessThan(300);
      expect(await route()).toBe("retrieval");
      expect(ownModel.embeddingRequests).toHaveLength(embedded);
    } finally {
      await plain.dispose();
    }
  });
});
