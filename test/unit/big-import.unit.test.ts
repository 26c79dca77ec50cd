import { describe, expect, it, vi } from "vitest";
import { MAX_REPORT_WARNINGS, runImportJob } from "../../functions/jobs/import-job";
import { DocumentUnitSplitter, type DocumentUnit } from "../../functions/tools/big-import/document-units";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { generatedDocument } from "../helpers/generated-openapi";
import { MemoryImportStore, MemoryJobProgress, unboundedJobSettings } from "../helpers/memory-import-store";

/**
 * Background import of big documents (functions/jobs/import-job.ts) in Node, over an in-memory
 * store with the object's contract: the document is cut into units without being parsed whole,
 * imported batch by batch with the same tools a synchronous import makes, and a job evicted
 * mid-batch resumes after its last committed batch without writing any tool twice.
 */

const SETTINGS = unboundedJobSettings(150);

function chunked(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) chunks.push(bytes.slice(offset, offset + size));
  return chunks;
}

function split(text: string, size: number): DocumentUnit[] {
  const units: DocumentUnit[] = [];
  const splitter = new DocumentUnitSplitter((unit) => units.push(unit));
  for (const chunk of chunked(text, size)) splitter.write(chunk);
  splitter.end();
  return units;
}

describe("cutting a document into units", () => {
  const document = {
    openapi: "3.1.0",
    info: { title: 'Q "quoted" } ] {', version: "1" },
    paths: { "/a/{id}": { get: { responses: {} } }, "/ü~b": { post: { responses: {} } } },
    components: { schemas: { "a/b": { type: "string" }, 'é"x': { type: "integer" } }, securitySchemes: {} },
    "x-flag": true,
  };

  it("gives every path item, component and top-level field as its own JSON, whatever the chunk size", () => {
    const text = JSON.stringify(document, null, 1);
    for (const size of [1, 2, 7, 64, 100_000]) {
      const units = split(text, size);
      expect(units.map((u) => [u.kind, u.pointer, u.key])).toEqual([
        ["head", "/openapi", "openapi"],
        ["head", "/info", "info"],
        ["path", "/paths/~1a~1{id}", "/a/{id}"],
        ["path", "/paths/~1ü~0b", "/ü~b"],
        ["component", "/components/schemas/a~1b", "a/b"],
        ["component", '/components/schemas/é"x', 'é"x'],
        ["head", "/x-flag", "x-flag"],
      ]);
      expect(units.map((u) => JSON.parse(u.text) as unknown)).toEqual([
        "3.1.0",
        document.info,
        document.paths["/a/{id}"],
        document.paths["/ü~b"],
        { type: "string" },
        { type: "integer" },
        true,
      ]);
    }
  });

  it("refuses a document cut short or not an object", () => {
    expect(() => split('{"openapi": "3.0.0", "paths": {', 5)).toThrow(/cut short/);
    expect(() => split("[1, 2]", 5)).toThrow(/not one JSON object/);
    expect(() => split("openapi: 3.0.0\npaths: {}\n", 5)).toThrow(/not one JSON object/);
    expect(() => split('{"openapi": "3.0.0"} {}', 5)).toThrow(/continues after/);
    expect(split('\ufeff {"openapi": "3.0.0"}\n', 3).map((u) => u.pointer)).toEqual(["/openapi"]);
  });
});

describe("a background import", () => {
  const document = generatedDocument(700);
  const text = JSON.stringify(document);
  const operations = 700 * 3;

  it("makes the same tools as a synchronous import of the whole document", async () => {
    const store = new MemoryImportStore();
    store.uploads.set("u1", chunked(text, 65_536));
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "job1", request: { uploadId: "u1", source: "gen", bytes: text.length } }, SETTINGS);
    expect(jobs.status).toBe("succeeded");
    const whole = await importOpenApi(text);
    expect(whole.tools).toHaveLength(operations);
    const background = [...store.tools.values()].map((t) => t.definition);
    expect(background.map((t) => t.name).sort()).toEqual(whole.tools.map((t) => t.name).sort());
    expect(new Map(background.map((t) => [t.name, t]))).toEqual(new Map(whole.tools.map((t) => [t.name, t])));
    expect(jobs.result).toMatchObject({ created: expect.any(Array), removed: [] });
    expect((jobs.result as { created: string[] }).created).toHaveLength(operations);
  });

  it("resumed after an eviction mid-batch, ends with one tool per operation and writes none twice", async () => {
    const store = new MemoryImportStore();
    store.uploads.set("u2", chunked(text, 100_000));
    store.failCommitAt = 5;
    const first = new MemoryJobProgress();
    const job = { id: "job2", request: { uploadId: "u2", source: "gen", bytes: text.length } };
    await expect(runImportJob(store, first, job, SETTINGS)).rejects.toThrow("evicted mid-batch");
    const midway = first.progressLog.at(-1) as { operations: { done: number; total: number } };
    expect(midway.operations.total).toBe(operations);
    expect(midway.operations.done).toBeGreaterThan(0);
    expect(midway.operations.done).toBeLessThan(operations);
    const before = store.tools.size;
    expect(before).toBe(midway.operations.done);

    // A new run, as the next alarm after an eviction: nothing in memory but the store.
    const second = new MemoryJobProgress();
    await runImportJob(store, second, job, SETTINGS);
    expect(second.status).toBe("succeeded");
    expect(store.tools.size).toBe(operations);
    expect(store.writes).toHaveLength(operations);
    expect(new Set(store.writes).size).toBe(operations);
    const report = second.result as { created: string[] };
    expect(report.created).toHaveLength(operations);
  });

  it("cuts batches by their measured work, known before they run: operations reaching big schemas go in small batches, small ones in large", async () => {
    const weighted = generatedDocument(60) as { components: { schemas: Record<string, { description?: string }> } };
    // Every third resource's schema is big, as Microsoft Graph's reach the base entity's ≈ 1,000 subtypes.
    for (let i = 0; i < 60; i += 3) (weighted.components.schemas[`Thing${i}`] as { description?: string }).description = "x".repeat(40_000);
    const weightedText = JSON.stringify(weighted);
    const store = new MemoryImportStore();
    store.uploads.set("w1", chunked(weightedText, 65_536));
    const jobs = new MemoryJobProgress();
    const job = { id: "jobw", request: { uploadId: "w1", source: "gen", bytes: weightedText.length } };
    await runImportJob(store, jobs, job, { ...SETTINGS, batchOperations: 150, batchChars: 100_000 });
    expect(jobs.status).toBe("succeeded");
    expect(store.tools.size).toBe(180);
    const done = jobs.progressLog.flatMap((p) =>
      (p as { phase?: string }).phase === "importing" ? [(p as { operations: { done: number } }).operations.done] : [],
    );
    const batches = done.map((n, i) => n - (done[i - 1] ?? 0));
    // By count alone, 150 and 30 operations. Measured: 40 path items reach a 40 KB schema, at most two of them a batch.
    expect(batches.length).toBeGreaterThanOrEqual(20);
    expect(Math.max(...batches)).toBeLessThan(150);
  });

  it("leaves out of each batch the top-level extension fields holding references, with the same tools as a synchronous import", async () => {
    // GitHub's `x-webhooks` (474 KB of references) walked and copied in every batch was ≈ 0.8 s of each.
    const hooked = {
      ...generatedDocument(30),
      "x-webhooks": { ping: { post: { requestBody: { $ref: "#/components/schemas/Thing1" } } } },
      "x-flag": { on: true },
    };
    const hookedText = JSON.stringify(hooked);
    const store = new MemoryImportStore();
    store.uploads.set("x1", chunked(hookedText, 65_536));
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "jobx", request: { uploadId: "x1", source: "gen", bytes: hookedText.length } }, { ...SETTINGS, batchOperations: 20 });
    expect(jobs.status).toBe("succeeded");
    const whole = await importOpenApi(hookedText);
    const background = [...store.tools.values()].map((t) => t.definition);
    expect(new Map(background.map((t) => [t.name, t]))).toEqual(new Map(whole.tools.map((t) => [t.name, t])));
  });

  it("hands the object back after its time slice and continues in the next", async () => {
    const store = new MemoryImportStore();
    store.uploads.set("u3", chunked(text, 100_000));
    const jobs = new MemoryJobProgress();
    const job = { id: "job3", request: { uploadId: "u3", source: "gen", bytes: text.length } };
    const settings = { ...SETTINGS, sliceMs: 1 };
    for (let run = 0; run < 100 && jobs.status === "running"; run += 1) await runImportJob(store, jobs, job, settings);
    expect(jobs.status).toBe("succeeded");
    expect(jobs.slices).toBeGreaterThan(3);
    expect(store.tools.size).toBe(operations);
  });

  it("counts its work, not only the clock: with the clock standing still (as deployed), a slice that would overrun its pieces continues in the next, the cut too", async () => {
    const store = new MemoryImportStore();
    store.uploads.set("u7", chunked(text, 100_000));
    const jobs = new MemoryJobProgress();
    const job = { id: "job7", request: { uploadId: "u7", source: "gen", bytes: text.length } };
    // 8 KiB pieces of the cut, 60 operations a batch, 4 pieces a slice; the clock never moves.
    const settings = { ...SETTINGS, sliceMs: 60_000, slicePieces: 4, cutPieceBytes: 8 * 1024, batchOperations: 60 };
    const frozen = vi.spyOn(Date, "now").mockReturnValue(1_700_000_000_000);
    const piecesPerSlice: number[] = [];
    try {
      for (let run = 0; run < 1_000 && jobs.status === "running"; run += 1) {
        const before = store.cutPieces;
        await runImportJob(store, jobs, job, settings);
        piecesPerSlice.push(store.cutPieces - before);
      }
    } finally {
      frozen.mockRestore();
    }
    expect(jobs.status).toBe("succeeded");
    expect(store.tools.size).toBe(operations);
    // The cut alone needs more than one slice: text.length / 8 KiB pieces, at most 4 a slice.
    expect(Math.max(...piecesPerSlice)).toBeLessThanOrEqual(settings.slicePieces);
    expect(piecesPerSlice.filter((n) => n > 0).length).toBeGreaterThanOrEqual(Math.floor(text.length / settings.cutPieceBytes / settings.slicePieces));
    expect(jobs.progressLog.some((p) => p.phase === "cutting")).toBe(true);
    // Batches too: at most 4 a slice, so the 2,100 operations take at least 9 slices after the cut.
    const batchesPerSlice = jobs.progressLog.filter((p) => p.phase === "importing" && p.slice !== undefined).map((p) => (p.slice as { pieces: number }).pieces);
    expect(Math.max(...batchesPerSlice)).toBeLessThanOrEqual(settings.slicePieces);
    expect(jobs.slices).toBeGreaterThan(Math.ceil(operations / 60 / settings.slicePieces));
  });

  it("keeps at most 2,000 warnings in its report (one stored row), and says how many it left out", async () => {
    const noisy = JSON.stringify(generatedDocument(1_100, { cookieParameters: true }));
    const store = new MemoryImportStore();
    store.uploads.set("u6", chunked(noisy, 100_000));
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "job6", request: { uploadId: "u6", source: "gen", bytes: noisy.length } }, { ...SETTINGS, batchOperations: 1_000 });
    expect(jobs.status).toBe("succeeded");
    const report = jobs.result as { created: string[]; warnings: string[]; warningsOmitted: number };
    expect(report.created).toHaveLength(3_300);
    expect(report.warnings).toHaveLength(MAX_REPORT_WARNINGS);
    // Two operations per resource have the cookie parameter; repeated names add a few more.
    expect(report.warnings.length + report.warningsOmitted).toBeGreaterThanOrEqual(2_200);
  });

  it("fails with the importer's reason when the document is not OpenAPI", async () => {
    const store = new MemoryImportStore();
    const bad = JSON.stringify({ info: {}, paths: { "/a": { get: { responses: {} } } } });
    store.uploads.set("u4", chunked(bad, 10));
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "job4", request: { uploadId: "u4", source: "gen", bytes: bad.length } }, SETTINGS);
    expect(jobs.status).toBe("failed");
    expect(jobs.result).toMatchObject({ error: { code: "not_openapi" } });
  });

  it("imports Swagger 2.0, whose definitions are units too", async () => {
    const swagger = {
      swagger: "2.0",
      info: { title: "S", version: "1" },
      host: "api.example.com",
      schemes: ["https"],
      paths: { "/pets": { get: { operationId: "listPets", responses: { "200": { description: "ok", schema: { $ref: "#/definitions/Pet" } } } } } },
      definitions: { Pet: { type: "object", properties: { name: { type: "string" } } } },
    };
    const body = JSON.stringify(swagger);
    const store = new MemoryImportStore();
    store.uploads.set("u5", chunked(body, 16));
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "job5", request: { uploadId: "u5", source: "s", bytes: body.length } }, SETTINGS);
    expect(jobs.status).toBe("succeeded");
    const [tool] = [...store.tools.values()].map((t) => t.definition);
    expect(tool?.responseSchema).toEqual((await importOpenApi(body)).tools[0]?.responseSchema);
    expect(tool?.responseSchema).toMatchObject({ properties: { name: { type: "string" } } });
  });
});
