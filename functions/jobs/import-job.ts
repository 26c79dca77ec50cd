import { z } from "zod";
import type { JobRecord } from "../storage/tenant-jobs";
import type { BatchReport, ImportJobStore, PathUnit, StoredUnit } from "../storage/import-units";
import type { ToolUpsert, UpsertReport } from "../storage/tenant-registry";
import { assembleBatchDocument, collectRefUnits } from "../tools/big-import/batch-document";
import { UnitCache } from "../tools/big-import/unit-cache";
import { contentHash } from "../tools/content-hash";
import { importOpenApi, ToolImportError } from "../tools/openapi-import";
import { keepOtherSourcesTools } from "../tools/source-clash";
import { toolLimit } from "../tools/tool-limit";

/**
 * A background import of a big OpenAPI document (`kind: "import"`). Phase one cuts the uploaded
 * document into units (path items, components, top-level fields) in storage; phase two imports
 * path items in batches, each batch a small document of its own holding only the components it
 * reaches, so memory follows the batch, not the document. A batch's tools and the cursor are
 * committed together; a job resumed after an eviction continues after the last committed batch.
 * Each alarm works for a time slice, then hands the object back (alarms have a CPU limit).
 */

export type { BatchReport, ImportJobStore, PathUnit, StoredUnit } from "../storage/import-units";

export const ImportJobRequest = z.object({
  uploadId: z.string(),
  source: z.string(),
  serverUrl: z.string().optional(),
  /** Where the document was fetched from (an import by URL): relative server URLs resolve against it. */
  documentUrl: z.string().optional(),
  bytes: z.number().int().nonnegative(),
});
export type ImportJobRequest = z.infer<typeof ImportJobRequest>;

/** What the job writes back about itself (storage/tenant-jobs.ts). */
export interface ImportJobProgress {
  progress(id: string, progress: Record<string, unknown>, usage: Record<string, unknown>): void;
  finish(id: string, status: "succeeded" | "failed", result: unknown): void;
  continueLater(id: string): void;
}

export interface ImportJobSettings {
  /** Operations per batch: more is faster (components shared across a batch are read once), less holds less. */
  batchOperations: number;
  /** Work per alarm before handing the object back. */
  sliceMs: number;
  /** Characters of component text kept between batches. */
  cacheChars: number;
  maxTools: number;
}

export function importJobSettings(env: { IMPORT_BATCH_OPERATIONS?: string; IMPORT_SLICE_MS?: string; MAX_TOOLS_PER_TENANT?: string }): ImportJobSettings {
  const positive = (value: string | undefined, fallback: number): number => {
    const parsed = Number(value);
    return value !== undefined && value !== "" && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
  };
  return {
    batchOperations: positive(env.IMPORT_BATCH_OPERATIONS, 400),
    sliceMs: positive(env.IMPORT_SLICE_MS, 10_000),
    cacheChars: 8_000_000,
    maxTools: toolLimit(env),
  };
}

/** Embeds a batch's new and changed tools (services/tool-embeddings.ts); a warning when it could not. */
export type EmbedBatchTools = (tools: ToolUpsert[]) => Promise<{ warning?: string }>;

/** Embeds, at most `max`, the tenant's tools that have no current vector (services/tool-embeddings.ts); a warning when it could not. */
export type EmbedMissingTools = (max: number) => Promise<{ warning?: string }>;

/**
 * A resumed job first embeds what earlier slices left without vectors: a batch committed just
 * before an eviction was never embedded, nor one whose embedding failed. At most this many per
 * slice (a batch's worth is 400 by default), so a slice stays short.
 */
export const MAX_CATCH_UP_EMBEDDINGS = 1_000;

/** Runs the job for one time slice: cut the document if not yet done, then import batches until the slice ends or the document does. */
export async function runImportJob(
  store: ImportJobStore,
  jobs: ImportJobProgress,
  job: Pick<JobRecord, "id" | "request">,
  settings: ImportJobSettings,
  embedBatchTools?: EmbedBatchTools,
  embedMissingTools?: EmbedMissingTools,
): Promise<void> {
  const request = ImportJobRequest.parse(job.request);
  const started = Date.now();
  if (!store.isSplit(job.id)) {
    try {
      store.split(job.id, request.uploadId);
    } catch (error) {
      return fail(store, jobs, job.id, "unparseable", `The document could not be read as one JSON or YAML object: ${messageOf(error)}`);
    }
  }
  const total = store.totals(job.id);
  const done = store.committed(job.id);
  if (total.operations === 0) return fail(store, jobs, job.id, "no_operations", "The document has no operations: its `paths` is empty or missing.");
  const head = Object.fromEntries(store.head(job.id).map((unit) => [unit.key, JSON.parse(unit.text) as unknown]));
  const batch = new BatchImporter(store, job.id, head, settings.cacheChars);
  const names = new Set(done.names);
  let { batches, lastSeq, operations } = done;
  const counts = countsOf(done.reports);
  let embedding = embedBatchTools;
  if (done.batches > 0 && embedMissingTools !== undefined) {
    const caughtUp = await embedMissingTools(MAX_CATCH_UP_EMBEDDINGS);
    if (caughtUp.warning !== undefined) store.addWarnings(job.id, done.batches - 1, [caughtUp.warning]);
  }
  for (;;) {
    const paths = store.nextPaths(job.id, lastSeq, settings.batchOperations);
    if (paths.length === 0) break;
    let result: { tools: ToolUpsert[]; warnings: string[] };
    try {
      result = await batch.run(paths, names, request);
    } catch (error) {
      if (error instanceof ToolImportError) return fail(store, jobs, job.id, error.code, error.message);
      throw error;
    }
    const lastPath = paths.at(-1) as PathUnit;
    const batchOperations = paths.reduce((n, p) => n + p.operations, 0);
    const outcome = store.commitBatch(
      job.id,
      { index: batches, lastSeq: lastPath.seq, operations: batchOperations, tools: result.tools, warnings: result.warnings },
      request.source,
      settings.maxTools,
    );
    if (!outcome.ok) {
      const code = outcome.problem.kind === "conflict" ? "name_clash" : "tool_limit";
      return fail(store, jobs, job.id, code, outcome.problem.detail ?? "The import would exceed the tenant's tool limit.");
    }
    for (const tool of result.tools) names.add(tool.definition.name);
    embedding = await embedBatch(store, job.id, batches, embedding, changedTools(result.tools, outcome.value));
    batches += 1;
    lastSeq = lastPath.seq;
    operations += batchOperations;
    counts.created += outcome.value.created.length;
    counts.updated += outcome.value.updated.length;
    counts.unchanged += outcome.value.unchanged.length;
    jobs.progress(
      job.id,
      {
        phase: "importing",
        operations: { done: operations, total: total.operations },
        batches,
        tools: { ...counts, recent: result.tools.slice(-20).map((t) => t.definition.name) },
      },
      {},
    );
    if (Date.now() - started >= settings.sliceMs) return jobs.continueLater(job.id);
  }
  const report = finalReport(store.committed(job.id).reports);
  if (report.created.length + report.updated.length + report.unchanged.length === 0) {
    return fail(store, jobs, job.id, "no_operations", "None of the document's operations could be imported.");
  }
  jobs.progress(job.id, { phase: "done", operations: { done: operations, total: total.operations }, batches, tools: { ...countsOf([report]) } }, {});
  jobs.finish(job.id, "succeeded", report);
  store.discard(job.id);
}

/** One batch: its path items, the components they reach (read once per batch, through a bounded cache), imported as a document. */
class BatchImporter {
  readonly #store: ImportJobStore;
  readonly #jobId: string;
  readonly #head: Record<string, unknown>;
  readonly #cache: UnitCache;
  readonly #securitySchemes: StoredUnit[];

  constructor(store: ImportJobStore, jobId: string, head: Record<string, unknown>, cacheChars: number) {
    this.#store = store;
    this.#jobId = jobId;
    this.#head = head;
    this.#cache = new UnitCache(cacheChars);
    this.#securitySchemes = store.securitySchemes(jobId);
  }

  async run(
    paths: PathUnit[],
    names: ReadonlySet<string>,
    where: Pick<ImportJobRequest, "serverUrl" | "documentUrl" | "source">,
  ): Promise<{ tools: ToolUpsert[]; warnings: string[] }> {
    const items = paths.map((p) => ({ key: p.key, value: JSON.parse(p.text) as unknown }));
    const components = this.#reachedComponents(items.map((i) => i.value));
    // The head is shared between batches and the importer upgrades its input in place: each batch gets its own copy.
    const head = structuredClone(this.#head);
    const document = assembleBatchDocument(head, items, components);
    let imported: { tools: ToolUpsert["definition"][]; warnings: string[] };
    try {
      imported = await importOpenApi(document, {
        ...(where.serverUrl === undefined ? {} : { serverUrl: where.serverUrl }),
        ...(where.documentUrl === undefined ? {} : { documentUrl: where.documentUrl }),
        reservedNames: names,
      });
    } catch (error) {
      // A batch none of whose operations fit is the batch's loss, not the document's.
      if (error instanceof ToolImportError && error.code === "no_operations") return { tools: [], warnings: error.issues };
      throw error;
    }
    const separated = keepOtherSourcesTools(imported.tools, where.source, this.#store.toolsOfOtherSources(where.source));
    const tools = await Promise.all(separated.tools.map(async (definition) => ({ definition, hash: await contentHash(definition) })));
    return { tools, warnings: [...imported.warnings, ...separated.warnings] };
  }

  /** The components reachable from `values`, following references between components too. */
  #reachedComponents(values: unknown[]): { pointer: string; value: unknown }[] {
    const wanted = new Set<string>();
    for (const value of values) collectRefUnits(value, wanted);
    for (const unit of this.#securitySchemes) wanted.add(unit.pointer);
    const found: { pointer: string; value: unknown }[] = [];
    const seen = new Set<string>();
    const queue = [...wanted];
    while (queue.length > 0) {
      const pointer = queue.pop() as string;
      if (seen.has(pointer)) continue;
      seen.add(pointer);
      const entry = this.#cache.get(pointer, () => this.#store.component(this.#jobId, pointer)?.text);
      if (entry === undefined) continue;
      found.push({ pointer, value: JSON.parse(entry.text) as unknown });
      for (const next of entry.refs) if (!seen.has(next)) queue.push(next);
    }
    return found;
  }
}

/**
 * Warnings kept in a job's report. The report is one stored row (at most 2 MB); Microsoft Graph
 * gives a warning or two per operation, 11,422 operations, which would not fit.
 */
export const MAX_REPORT_WARNINGS = 2_000;

function finalReport(reports: BatchReport[]): UpsertReport & { warnings: string[]; warningsOmitted?: number } {
  const warnings = new Set<string>();
  for (const report of reports) for (const warning of report.warnings) warnings.add(warning);
  const kept = [...warnings].slice(0, MAX_REPORT_WARNINGS);
  return {
    created: reports.flatMap((r) => r.created),
    updated: reports.flatMap((r) => r.updated),
    unchanged: reports.flatMap((r) => r.unchanged),
    removed: [],
    warnings: kept,
    ...(warnings.size > kept.length ? { warningsOmitted: warnings.size - kept.length } : {}),
  };
}

/** Embeds a committed batch's new tools; after a failure (a warning on the batch) none more in this slice: an endpoint that is down would slow every batch. */
async function embedBatch(
  store: ImportJobStore,
  jobId: string,
  batch: number,
  embed: EmbedBatchTools | undefined,
  tools: ToolUpsert[],
): Promise<EmbedBatchTools | undefined> {
  const embedded = await embed?.(tools);
  if (embedded?.warning === undefined) return embed;
  store.addWarnings(jobId, batch, [embedded.warning]);
  return undefined;
}

function changedTools(tools: ToolUpsert[], report: UpsertReport): ToolUpsert[] {
  const changed = new Set([...report.created, ...report.updated]);
  return tools.filter((tool) => changed.has(tool.definition.name));
}

function countsOf(reports: { created: string[]; updated: string[]; unchanged: string[] }[]): { created: number; updated: number; unchanged: number } {
  const counts = { created: 0, updated: 0, unchanged: 0 };
  for (const r of reports) {
    counts.created += r.created.length;
    counts.updated += r.updated.length;
    counts.unchanged += r.unchanged.length;
  }
  return counts;
}

function fail(store: ImportJobStore, jobs: ImportJobProgress, id: string, code: string, message: string): void {
  jobs.finish(id, "failed", { error: { code, message } });
  store.discard(id);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
