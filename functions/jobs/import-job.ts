import { z } from "zod";
import { WorkSlice } from "../common/work-slice";
import type { JobRecord } from "../storage/tenant-jobs";
import type { BatchReport, CutProgress, ImportJobStore, PathUnit, StoredUnit } from "../storage/import-units";
import type { ToolUpsert, UpsertReport } from "../storage/tenant-registry";
import { assembleBatchDocument, collectRefUnits } from "../tools/big-import/batch-document";
import { BatchWork } from "../tools/big-import/batch-work";
import { UnitCache } from "../tools/big-import/unit-cache";
import { contentHash } from "../tools/content-hash";
import { importIssues, importOpenApi, isImportFailure } from "../tools/openapi-import";
import { holdsReference } from "../tools/reference-repair";
import { keepOtherSourcesTools } from "../tools/source-clash";
import { toolLimit } from "../tools/tool-limit";

/**
 * A background import of a big OpenAPI document (`kind: "import"`). Phase one cuts the uploaded
 * document into units (path items, components, top-level fields) in storage; phase two imports
 * path items in batches, each batch a small document of its own holding only the components it
 * reaches, so memory follows the batch, not the document. A batch's tools and the cursor are
 * committed together; a job resumed after an eviction continues after the last committed batch.
 * The cut too goes piece by piece. Each alarm works for a slice bounded by time and by pieces of
 * work, and hands the object back for a macrotask between two pieces (common/work-slice.ts).
 */

export type { BatchReport, CommittedBatches, CutProgress, ImportJobStore, PathUnit, StoredUnit } from "../storage/import-units";

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
  /** Operations per batch at most: more is faster (components shared across a batch are read once), less holds less and holds the object for less. */
  batchOperations: number;
  /** Measured work per batch at most (tools/big-import/batch-work.ts: JSON characters the importer dereferences), so one batch stays ≲ 100 ms. */
  batchChars: number;
  /** Time per alarm before handing the object back (alarms have a CPU limit). */
  sliceMs: number;
  /**
   * Pieces of work per alarm (a piece of the cut or a batch), whatever the clock says: deployed,
   * the clock stands still while code computes, so a slice is bounded by counting work too.
   */
  slicePieces: number;
  /** Bytes of the document cut per piece (YAML costs ≈ 3 ms of CPU per KiB on a loaded machine, JSON ≈ 0.1 ms). */
  cutPieceBytes: number;
  /** Characters of component text kept between batches. */
  cacheChars: number;
  maxTools: number;
}

export function importJobSettings(env: {
  IMPORT_BATCH_OPERATIONS?: string;
  IMPORT_BATCH_CHARS?: string;
  IMPORT_SLICE_MS?: string;
  IMPORT_SLICE_PIECES?: string;
  IMPORT_CUT_PIECE_BYTES?: string;
  MAX_TOOLS_PER_TENANT?: string;
}): ImportJobSettings {
  const positive = (value: string | undefined, fallback: number): number => {
    const parsed = Number(value);
    return value !== undefined && value !== "" && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
  };
  return {
    batchOperations: positive(env.IMPORT_BATCH_OPERATIONS, 200),
    batchChars: positive(env.IMPORT_BATCH_CHARS, DEFAULT_BATCH_CHARS),
    sliceMs: positive(env.IMPORT_SLICE_MS, 5_000),
    slicePieces: positive(env.IMPORT_SLICE_PIECES, 32),
    cutPieceBytes: positive(env.IMPORT_CUT_PIECE_BYTES, 64 * 1024),
    cacheChars: 8_000_000,
    maxTools: toolLimit(env),
  };
}

/**
 * A batch's measured work by default, in JSON characters dereferenced (tools/big-import/batch-work.ts).
 * Measured in Node on this shared machine (per batch; p50 / p90 / max): GitHub's REST API gets 4
 * operations a batch, 124 / 412 / 457 ms (load average 7–14); Microsoft Graph 1, 147 / 403 /
 * 1,259 ms (load average 9–12): one Graph operation alone dereferences to more than this, and a
 * batch is never less than one operation.
 */
export const DEFAULT_BATCH_CHARS = 400_000;

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

/** Runs the job for one slice: cut the document piece by piece if not yet done, then import batches until the slice ends or the document does. */
export async function runImportJob(
  store: ImportJobStore,
  jobs: ImportJobProgress,
  job: Pick<JobRecord, "id" | "request">,
  settings: ImportJobSettings,
  embedBatchTools?: EmbedBatchTools,
  embedMissingTools?: EmbedMissingTools,
): Promise<void> {
  const request = ImportJobRequest.parse(job.request);
  const slice = new WorkSlice(settings);
  if (!store.isSplit(job.id)) {
    const cut = await cutPieces(store, jobs, job.id, request, settings, slice);
    if (cut !== "cut") return;
    if (!(await slice.next())) return jobs.continueLater(job.id);
  }
  const total = store.totals(job.id);
  if (total.operations === 0) return fail(store, jobs, job.id, "no_operations", "The document has no operations: its `paths` is empty or missing.");
  const batches = new BatchRun(store, jobs, job.id, request, settings, total.operations, embedBatchTools);
  if (batches.committedBatches > 0 && embedMissingTools !== undefined) {
    const caughtUp = await embedMissingTools(MAX_CATCH_UP_EMBEDDINGS);
    if (caughtUp.warning !== undefined) store.addWarnings(job.id, batches.committedBatches - 1, [caughtUp.warning]);
  }
  for (;;) {
    const outcome = await batches.next();
    if (outcome === "stopped") return;
    if (outcome === "finished") break;
    if (!(await slice.next())) {
      jobs.progress(job.id, batches.progress(slice), {});
      return jobs.continueLater(job.id);
    }
  }
  finishImport(store, jobs, job.id, batches.progress(slice));
}

/** The cut, piece by piece within the slice: "cut" when the whole document is, else the slice ended (or the job failed). */
async function cutPieces(
  store: ImportJobStore,
  jobs: ImportJobProgress,
  jobId: string,
  request: ImportJobRequest,
  settings: ImportJobSettings,
  slice: WorkSlice,
): Promise<"cut" | "later" | "failed"> {
  for (;;) {
    let cut: CutProgress;
    try {
      cut = store.cutSome(jobId, request.uploadId, settings.cutPieceBytes);
    } catch (error) {
      fail(store, jobs, jobId, "unparseable", `The document could not be read as one JSON or YAML object: ${messageOf(error)}`);
      return "failed";
    }
    if (cut.done) return "cut";
    const more = await slice.next();
    jobs.progress(jobId, { phase: "cutting", bytes: { done: cut.bytesCut, total: cut.bytes }, operationsFound: cut.operations, slice: slice.report() }, {});
    if (!more) {
      jobs.continueLater(jobId);
      return "later";
    }
  }
}

/** The batches of one slice, each committed with its tools, after the last batch committed before. */
class BatchRun {
  readonly #store: ImportJobStore;
  readonly #jobs: ImportJobProgress;
  readonly #jobId: string;
  readonly #request: ImportJobRequest;
  readonly #settings: ImportJobSettings;
  readonly #totalOperations: number;
  readonly #importer: BatchImporter;
  readonly #names: Set<string>;
  readonly #counts: { created: number; updated: number; unchanged: number };
  #embedding: EmbedBatchTools | undefined;
  #batches: number;
  #lastSeq: number;
  #operations: number;
  #recent: string[] = [];

  constructor(
    store: ImportJobStore,
    jobs: ImportJobProgress,
    jobId: string,
    request: ImportJobRequest,
    settings: ImportJobSettings,
    totalOperations: number,
    embedding: EmbedBatchTools | undefined,
  ) {
    this.#store = store;
    this.#jobs = jobs;
    this.#jobId = jobId;
    this.#request = request;
    this.#settings = settings;
    this.#totalOperations = totalOperations;
    const head = Object.fromEntries(batchHead(store.head(jobId)));
    this.#importer = new BatchImporter(store, jobId, head, settings.cacheChars);
    // Counted in storage: the committed batches' reports (every name and warning of the job so far,
    // 4.4 MiB by Graph's end) were parsed at each slice's start, and held through the slice before that.
    const done = store.committed(jobId);
    this.#names = new Set(done.names);
    this.#counts = { ...done.counts };
    this.#embedding = embedding;
    ({ batches: this.#batches, lastSeq: this.#lastSeq, operations: this.#operations } = done);
  }

  /** How many batches were committed before this slice and in it. */
  get committedBatches(): number {
    return this.#batches;
  }

  /** Imports and commits the next batch: "imported", "finished" when none is left, "stopped" when the job failed. */
  async next(): Promise<"imported" | "finished" | "stopped"> {
    const next = this.#store.nextPaths(this.#jobId, this.#lastSeq, this.#settings.batchOperations);
    if (next.length === 0) return "finished";
    const paths = next.slice(0, this.#importer.fitting(next, this.#settings.batchChars));
    let result: { tools: ToolUpsert[]; warnings: string[] };
    try {
      result = await this.#importer.run(paths, this.#names, this.#request);
    } catch (error) {
      if (!isImportFailure(error)) throw error;
      fail(this.#store, this.#jobs, this.#jobId, error.code, error.message);
      return "stopped";
    }
    const lastPath = paths.at(-1) as PathUnit;
    const batchOperations = paths.reduce((n, p) => n + p.operations, 0);
    const outcome = this.#store.commitBatch(
      this.#jobId,
      { index: this.#batches, lastSeq: lastPath.seq, operations: batchOperations, tools: result.tools, warnings: result.warnings },
      this.#request.source,
      this.#settings.maxTools,
    );
    if (!outcome.ok) {
      const code = outcome.problem.kind === "conflict" ? "name_clash" : "tool_limit";
      fail(this.#store, this.#jobs, this.#jobId, code, outcome.problem.detail ?? "The import would exceed the tenant's tool limit.");
      return "stopped";
    }
    for (const tool of result.tools) this.#names.add(tool.definition.name);
    this.#embedding = await embedBatch(this.#store, this.#jobId, this.#batches, this.#embedding, changedTools(result.tools, outcome.value));
    this.#batches += 1;
    this.#lastSeq = lastPath.seq;
    this.#operations += batchOperations;
    this.#counts.created += outcome.value.created.length;
    this.#counts.updated += outcome.value.updated.length;
    this.#counts.unchanged += outcome.value.unchanged.length;
    this.#recent = result.tools.slice(-20).map((t) => t.definition.name);
    this.#jobs.progress(this.#jobId, this.progress(), {});
    return "imported";
  }

  progress(slice?: WorkSlice): Record<string, unknown> {
    return {
      phase: "importing",
      operations: { done: this.#operations, total: this.#totalOperations },
      batches: this.#batches,
      tools: { ...this.#counts, recent: this.#recent },
      ...(slice === undefined ? {} : { slice: slice.report() }),
    };
  }
}

/** The last batch is in: the job's report, or a failure when no operation could be imported. */
function finishImport(store: ImportJobStore, jobs: ImportJobProgress, jobId: string, progress: Record<string, unknown>): void {
  const report = finalReport(store.reports(jobId));
  if (report.created.length + report.updated.length + report.unchanged.length === 0) {
    fail(store, jobs, jobId, "no_operations", "None of the document's operations could be imported.");
    return;
  }
  jobs.progress(jobId, { ...progress, phase: "done", tools: { ...countsOf([report]) } }, {});
  jobs.finish(jobId, "succeeded", report);
  store.discard(jobId);
}

/** One batch: its path items, the components they reach (read once per batch, through a bounded cache), imported as a document. */
class BatchImporter {
  readonly #store: ImportJobStore;
  readonly #jobId: string;
  readonly #head: Record<string, unknown>;
  readonly #cache: UnitCache;
  readonly #securitySchemes: StoredUnit[];
  readonly #work: BatchWork;

  constructor(store: ImportJobStore, jobId: string, head: Record<string, unknown>, cacheChars: number) {
    this.#store = store;
    this.#jobId = jobId;
    this.#head = head;
    this.#cache = new UnitCache(cacheChars);
    this.#securitySchemes = store.securitySchemes(jobId);
    this.#work = new BatchWork((pointer) => this.#cache.get(pointer, () => store.component(jobId, pointer)?.text)?.text);
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
      if (isImportFailure(error) && error.code === "no_operations") return { tools: [], warnings: importIssues(error) };
      throw error;
    }
    const separated = keepOtherSourcesTools(imported.tools, where.source, this.#otherSourcesClashing(imported.tools, where.source));
    const tools = await Promise.all(separated.tools.map(async (definition) => ({ definition, hash: await contentHash(definition) })));
    return { tools, warnings: [...imported.warnings, ...separated.warnings] };
  }

  /**
   * What `keepOtherSourcesTools` needs to rename the batch's tools: nothing when none of their
   * names is another source's (read by those names alone: a batch costs what it holds, not what
   * the catalog holds); when one is, every other source's name, so that the new names avoid them.
   */
  #otherSourcesClashing(tools: readonly ToolUpsert["definition"][], source: string): Record<string, string> {
    const clashing = this.#store.toolsOfOtherSources(
      source,
      tools.map((tool) => tool.name),
    );
    return Object.keys(clashing).length === 0 ? clashing : this.#store.toolsOfOtherSources(source);
  }

  /** How many of `paths`, from the first, make a batch whose measured work stays within `maxChars` (batch-work.ts). */
  fitting(paths: PathUnit[], maxChars: number): number {
    return this.#work.fitting(paths, maxChars);
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
 * The top-level fields every batch's document repeats, less the extension fields that hold
 * references: the importer drops those (reference-repair.ts) after walking them, and GitHub's
 * `x-webhooks` (474 KB) walked and copied in every batch was ≈ 0.8 s of each batch's ≈ 0.9 s.
 */
function batchHead(units: StoredUnit[]): [string, unknown][] {
  const head: [string, unknown][] = [];
  for (const unit of units) {
    const value = JSON.parse(unit.text) as unknown;
    if (!(unit.key.startsWith("x-") && holdsReference(value))) head.push([unit.key, value]);
  }
  return head;
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
