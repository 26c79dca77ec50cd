import type { ToolUpsert, UpsertReport } from "../../functions/storage/tenant-registry";
import { failure, success, type Outcome } from "../../functions/common/failures";
import type {
  BatchReport,
  CommittedBatches,
  CutProgress,
  ImportJobProgress,
  ImportJobSettings,
  ImportJobStore,
  PathUnit,
  StoredUnit,
} from "../../functions/jobs/import-job";
import type { DocumentUnit } from "../../functions/tools/big-import/document-units";
import { UploadCut } from "../../functions/tools/big-import/upload-splitter";

/**
 * The background import's storage in memory, for Node tests: the same contract as the tenant
 * object's (storage/tenant-imports.ts), a batch's tools and its row committed together.
 * `failCommitAt` makes the commit of that batch throw before anything is written, as a process
 * evicted mid-batch would.
 */
/** A background import's settings for a test in Node: batches of `batchOperations`, no other bound in the way. */
export function unboundedJobSettings(batchOperations: number): ImportJobSettings {
  return {
    batchOperations,
    batchChars: Number.POSITIVE_INFINITY,
    sliceMs: 60_000,
    slicePieces: 1_000_000,
    cutPieceBytes: 1 << 30,
    cacheChars: 20_000,
    maxTools: 20_000,
  };
}

export class MemoryImportStore implements ImportJobStore {
  readonly uploads = new Map<string, Uint8Array[]>();
  readonly tools = new Map<string, ToolUpsert>();
  /** Every tool write, in order: a tool written twice shows up twice. */
  readonly writes: string[] = [];
  readonly #units = new Map<string, (DocumentUnit & { seq: number; operations: number })[]>();
  readonly #byPointer = new Map<string, Map<string, DocumentUnit>>();
  readonly #batches = new Map<string, { lastSeq: number; operations: number; names: string[]; report: BatchReport }[]>();
  failCommitAt: number | undefined;

  /** Cuts under way: the units so far and the cut, as the tenant object holds them between pieces. */
  readonly #cutting = new Map<string, { cut: UploadCut; units: (DocumentUnit & { seq: number; operations: number })[]; bytes: number }>();
  /** How many pieces were cut (each `cutSome` call). */
  cutPieces = 0;

  cutSome(jobId: string, uploadId: string, maxBytes: number): CutProgress {
    this.cutPieces += 1;
    const held = this.#cutting.get(jobId) ?? this.#startCut(jobId, uploadId);
    const done = held.cut.advance(maxBytes);
    const paths = held.units.filter((u) => u.kind === "path");
    const counts = { operations: paths.reduce((n, u) => n + u.operations, 0), paths: paths.length, components: held.units.length - paths.length };
    if (done) {
      this.#cutting.delete(jobId);
      this.#units.set(jobId, held.units);
      this.#byPointer.set(jobId, new Map(held.units.map((u) => [u.pointer, u])));
      this.uploads.delete(uploadId);
    }
    return { done, bytesCut: held.cut.bytesCut, bytes: held.bytes, ...counts };
  }

  #startCut(jobId: string, uploadId: string): { cut: UploadCut; units: (DocumentUnit & { seq: number; operations: number })[]; bytes: number } {
    const chunks = this.uploads.get(uploadId) ?? [];
    const upload = { count: chunks.length, bytes: chunks.reduce((n, c) => n + c.byteLength, 0), read: (index: number) => chunks[index] as Uint8Array };
    const held = { units: [] as (DocumentUnit & { seq: number; operations: number })[], bytes: upload.bytes, cut: undefined as unknown as UploadCut };
    held.cut = new UploadCut(upload, {
      unit: (unit) => {
        const operations =
          unit.kind === "path" ? Object.keys(JSON.parse(unit.text) as object).filter((k) => ["get", "put", "post", "delete", "patch"].includes(k)).length : 0;
        held.units.push({ ...unit, seq: held.units.length, operations });
      },
      restart: () => {
        held.units.length = 0;
      },
    });
    this.#cutting.set(jobId, held);
    return held;
  }

  isSplit(jobId: string): boolean {
    return this.#units.has(jobId);
  }

  head(jobId: string): StoredUnit[] {
    return this.#of(jobId).filter((u) => u.kind === "head");
  }

  securitySchemes(jobId: string): StoredUnit[] {
    return this.#of(jobId).filter((u) => u.pointer.startsWith("/components/securitySchemes/") || u.pointer.startsWith("/securityDefinitions/"));
  }

  nextPaths(jobId: string, afterSeq: number, maxOperations: number): PathUnit[] {
    const batch: PathUnit[] = [];
    let operations = 0;
    for (const unit of this.#of(jobId)) {
      if (unit.kind !== "path" || unit.seq <= afterSeq) continue;
      batch.push({ seq: unit.seq, key: unit.key, text: unit.text, operations: unit.operations });
      operations += unit.operations;
      if (operations >= maxOperations) break;
    }
    return batch;
  }

  component(jobId: string, pointer: string): StoredUnit | undefined {
    const unit = this.#byPointer.get(jobId)?.get(pointer);
    return unit?.kind === "component" ? unit : undefined;
  }

  totals(jobId: string): { operations: number; paths: number } {
    const paths = this.#of(jobId).filter((u) => u.kind === "path");
    return { operations: paths.reduce((n, u) => n + u.operations, 0), paths: paths.length };
  }

  committed(jobId: string): CommittedBatches {
    const rows = this.#batches.get(jobId) ?? [];
    const count = (field: "created" | "updated" | "unchanged") => rows.reduce((n, r) => n + r.report[field].length, 0);
    return {
      batches: rows.length,
      lastSeq: rows.at(-1)?.lastSeq ?? -1,
      operations: rows.reduce((n, r) => n + r.operations, 0),
      names: rows.flatMap((r) => r.names),
      counts: { created: count("created"), updated: count("updated"), unchanged: count("unchanged") },
    };
  }

  reports(jobId: string): BatchReport[] {
    return (this.#batches.get(jobId) ?? []).map((r) => r.report);
  }

  /** Tools this store holds come from one source: none of another. */
  toolsOfOtherSources(_source: string): Record<string, string> {
    return {};
  }

  commitBatch(
    jobId: string,
    batch: { index: number; lastSeq: number; operations: number; tools: ToolUpsert[]; warnings: string[] },
    _source: string,
    maxTools: number,
  ): Outcome<UpsertReport> {
    if (this.failCommitAt === batch.index) {
      this.failCommitAt = undefined;
      throw new Error("evicted mid-batch");
    }
    if (new Set([...this.tools.keys(), ...batch.tools.map((t) => t.definition.name)]).size > maxTools) return failure("invalid-document", "too many tools");
    const report: UpsertReport = { created: [], updated: [], unchanged: [], removed: [] };
    for (const tool of batch.tools) {
      const existing = this.tools.get(tool.definition.name);
      if (existing?.hash === tool.hash) report.unchanged.push(tool.definition.name);
      else {
        (existing === undefined ? report.created : report.updated).push(tool.definition.name);
        this.tools.set(tool.definition.name, tool);
        this.writes.push(tool.definition.name);
      }
    }
    const rows = this.#batches.get(jobId) ?? [];
    rows.push({
      lastSeq: batch.lastSeq,
      operations: batch.operations,
      names: batch.tools.map((t) => t.definition.name),
      report: { created: report.created, updated: report.updated, unchanged: report.unchanged, warnings: batch.warnings },
    });
    this.#batches.set(jobId, rows);
    return success(report);
  }

  addWarnings(jobId: string, batch: number, warnings: string[]): void {
    const row = this.#batches.get(jobId)?.[batch];
    if (row !== undefined) row.report = { ...row.report, warnings: [...row.report.warnings, ...warnings] };
  }

  discard(jobId: string): void {
    this.#units.delete(jobId);
    this.#byPointer.delete(jobId);
    this.#batches.delete(jobId);
  }

  #of(jobId: string): (DocumentUnit & { seq: number; operations: number })[] {
    return this.#units.get(jobId) ?? [];
  }
}

/** The job's own record in memory: progress written, final state, and slices handed back. */
export class MemoryJobProgress implements ImportJobProgress {
  readonly progressLog: Record<string, unknown>[] = [];
  status: "running" | "succeeded" | "failed" = "running";
  result: unknown;
  slices = 0;

  progress(_id: string, progress: Record<string, unknown>): void {
    this.progressLog.push(progress);
  }

  finish(_id: string, status: "succeeded" | "failed", result: unknown): void {
    this.status = status;
    this.result = result;
  }

  continueLater(): void {
    this.slices += 1;
  }
}
