import { Failure, type Outcome } from "../common/failures";
import type { DocumentUnit } from "../tools/big-import/document-units";
import { UploadCut } from "../tools/big-import/upload-splitter";
import type { CommittedBatches, CutProgress, ImportJobStore, PathUnit, StoredUnit } from "./import-units";
import { allRows, oneRow, run } from "./sql";
import type { TenantRegistry, ToolUpsert, UpsertReport } from "./tenant-registry";

/**
 * An upload never turned into a job (a client that gave up half-way, a Worker stopped mid-upload)
 * is dropped this long after its last chunk arrived, by the object's alarm (and by the next upload).
 */
export const ABANDONED_UPLOAD_MS = 60 * 60 * 1_000;
/** Over the platform's 2 MB row limit a unit cannot be stored; a schema that big is not a tool's. */
const MAX_UNIT_CHARS = 1_800_000;
const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * Background imports of big documents in the tenant's storage (see jobs/import-job.ts):
 * the uploaded bytes in chunks, the document's units cut once from them, and the batches done.
 * A batch's tools and its row here are written in one transaction, so a job resumed after an
 * eviction starts after the last committed batch and never writes a tool twice.
 */
export class TenantImports implements ImportJobStore {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  readonly #registry: TenantRegistry;

  readonly #armAlarm: () => Promise<void>;
  /** Cuts under way, by job: the splitter's state between two pieces (memory only). */
  readonly #cuts = new Map<string, HeldCut>();
  /**
   * What each job's committed batches did, kept in step by commitBatch while the object stays in
   * memory (memory only): a slice's start reads no batch row then (Graph's 11,000 by its end, at
   * every slice); read from the rows once after an eviction.
   */
  readonly #committed = new Map<string, CommittedBatches>();

  constructor(storage: DurableObjectStorage, registry: TenantRegistry, armAlarm: () => Promise<void>) {
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#registry = registry;
    this.#armAlarm = armAlarm;
  }

  /** Stores one chunk (at most 1 MiB) of an upload; the first chunk drops abandoned uploads and arms the alarm that drops this one if it is abandoned. */
  async appendUpload(uploadId: string, seq: number, bytes: Uint8Array): Promise<void> {
    const stamp = Date.now();
    if (seq === 0) this.dropAbandonedUploads(stamp);
    const copy = bytes.slice();
    run(this.#sql, "INSERT OR REPLACE INTO import_uploads (upload_id, seq, data, created_at) VALUES (?, ?, ?, ?)", uploadId, seq, copy.buffer, stamp);
    if (seq === 0) await this.#armAlarm();
  }

  /** Drops uploads whose last chunk is `ABANDONED_UPLOAD_MS` old (called by the alarm); how many. */
  dropAbandonedUploads(nowMs: number): number {
    const abandoned = allRows<{ upload_id: string }>(
      this.#sql,
      "SELECT upload_id FROM import_uploads GROUP BY upload_id HAVING MAX(created_at) <= ?",
      nowMs - ABANDONED_UPLOAD_MS,
    );
    for (const row of abandoned) this.discardUpload(row.upload_id);
    return abandoned.length;
  }

  /** When the oldest upload becomes abandoned, for the alarm; null when there is none. */
  nextDue(): number | null {
    const row = oneRow<{ last: number | null }>(
      this.#sql,
      "SELECT MIN(last) AS last FROM (SELECT MAX(created_at) AS last FROM import_uploads GROUP BY upload_id)",
    );
    return row?.last === null || row?.last === undefined ? null : row.last + ABANDONED_UPLOAD_MS;
  }

  discardUpload(uploadId: string): void {
    run(this.#sql, "DELETE FROM import_uploads WHERE upload_id = ?", uploadId);
  }

  /**
   * Cuts a piece (at most `maxBytes`) more of the uploaded document into units, in one
   * transaction; once the whole document is cut, drops the upload. A row of kind `cutting` marks
   * a cut under way: the splitter's state lives in this object's memory, so a cut found marked
   * but not held (after an eviction) starts again from the top.
   */
  cutSome(jobId: string, uploadId: string, maxBytes: number): CutProgress {
    return this.#storage.transactionSync(() => {
      const cut = this.#cuts.get(jobId) ?? this.#startCut(jobId, uploadId);
      const done = cut.cut.advance(maxBytes);
      if (done) {
        this.#cuts.delete(jobId);
        run(this.#sql, "DELETE FROM import_units WHERE job_id = ? AND kind = 'cutting'", jobId);
        this.discardUpload(uploadId);
      }
      return { done, bytesCut: cut.cut.bytesCut, bytes: cut.bytes, ...cut.counts };
    });
  }

  #startCut(jobId: string, uploadId: string): HeldCut {
    run(this.#sql, "DELETE FROM import_units WHERE job_id = ?", jobId);
    run(this.#sql, "INSERT INTO import_units (job_id, pointer, kind, seq, unit_key, text) VALUES (?, '', 'cutting', -1, '', '')", jobId);
    const chunks = oneRow<{ n: number; bytes: number | null }>(
      this.#sql,
      "SELECT COUNT(*) AS n, SUM(LENGTH(data)) AS bytes FROM import_uploads WHERE upload_id = ?",
      uploadId,
    );
    // A job whose upload was dropped (its job did not start within the upload's lifetime) has nothing to read.
    if ((chunks?.n ?? 0) === 0)
      throw new Error(`the uploaded document is gone: an upload not imported within ${ABANDONED_UPLOAD_MS / 60_000} minutes is dropped`);
    const upload = {
      count: chunks?.n ?? 0,
      bytes: chunks?.bytes ?? 0,
      read: (index: number): Uint8Array => {
        const row = oneRow<{ data: ArrayBuffer }>(this.#sql, "SELECT data FROM import_uploads WHERE upload_id = ? AND seq = ?", uploadId, index);
        if (row === undefined) throw new Error(`upload ${uploadId} lacks chunk ${index}`);
        return new Uint8Array(row.data);
      },
    };
    const counts = { operations: 0, paths: 0, components: 0 };
    let seq = 0;
    const cut = new UploadCut(upload, {
      unit: (unit) => {
        const operations = unit.kind === "path" ? countOperations(unit) : 0;
        counts.operations += operations;
        if (unit.kind === "path") counts.paths += 1;
        if (unit.kind === "component") counts.components += 1;
        this.#storeUnit(jobId, unit, seq, operations);
        seq += 1;
      },
      // A YAML document read whole after all (aliases across its parts): the units so far go.
      restart: () => {
        run(this.#sql, "DELETE FROM import_units WHERE job_id = ? AND kind <> 'cutting'", jobId);
        Object.assign(counts, { operations: 0, paths: 0, components: 0 });
        seq = 0;
      },
    });
    const held = { cut, bytes: upload.bytes, counts };
    this.#cuts.set(jobId, held);
    return held;
  }

  #storeUnit(jobId: string, unit: DocumentUnit, seq: number, operations: number): void {
    if (unit.text.length > MAX_UNIT_CHARS) throw Failure.of("unit_too_large", `${unit.pointer} is larger than ${MAX_UNIT_CHARS} characters`);
    run(
      this.#sql,
      "INSERT OR REPLACE INTO import_units (job_id, pointer, kind, seq, unit_key, operations, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
      jobId,
      unit.pointer,
      unit.kind,
      seq,
      unit.key,
      operations,
      unit.text,
    );
  }

  /** The whole document is cut: units stored, no cut under way. */
  isSplit(jobId: string): boolean {
    const row = oneRow<{ units: number; cutting: number }>(
      this.#sql,
      "SELECT COUNT(*) AS units, SUM(kind = 'cutting') AS cutting FROM import_units WHERE job_id = ?",
      jobId,
    );
    return (row?.units ?? 0) > 0 && (row?.cutting ?? 0) === 0;
  }

  head(jobId: string): StoredUnit[] {
    return allRows<{ pointer: string; unit_key: string; text: string }>(
      this.#sql,
      "SELECT pointer, unit_key, text FROM import_units WHERE job_id = ? AND kind = 'head' ORDER BY seq",
      jobId,
    ).map((r) => ({ pointer: r.pointer, key: r.unit_key, text: r.text }));
  }

  /** Security schemes: named, not referenced, by operations, so every batch carries them all. */
  securitySchemes(jobId: string): StoredUnit[] {
    return allRows<{ pointer: string; unit_key: string; text: string }>(
      this.#sql,
      "SELECT pointer, unit_key, text FROM import_units WHERE job_id = ? AND kind = 'component' AND (pointer LIKE '/components/securitySchemes/%' OR pointer LIKE '/securityDefinitions/%')",
      jobId,
    ).map((r) => ({ pointer: r.pointer, key: r.unit_key, text: r.text }));
  }

  /** Path items after `afterSeq`, in document order, until they hold at least `maxOperations` operations. */
  nextPaths(jobId: string, afterSeq: number, maxOperations: number): PathUnit[] {
    const rows = this.#sql.exec<{ seq: number; unit_key: string; text: string; operations: number }>(
      "SELECT seq, unit_key, text, operations FROM import_units WHERE job_id = ? AND kind = 'path' AND seq > ? ORDER BY seq",
      jobId,
      afterSeq,
    );
    const batch: PathUnit[] = [];
    let operations = 0;
    for (const row of rows) {
      batch.push({ seq: row.seq, key: row.unit_key, text: row.text, operations: row.operations });
      operations += row.operations;
      if (operations >= maxOperations) break;
    }
    return batch;
  }

  component(jobId: string, pointer: string): StoredUnit | undefined {
    const row = oneRow<{ pointer: string; unit_key: string; text: string }>(
      this.#sql,
      "SELECT pointer, unit_key, text FROM import_units WHERE job_id = ? AND pointer = ? AND kind = 'component'",
      jobId,
      pointer,
    );
    return row === undefined ? undefined : { pointer: row.pointer, key: row.unit_key, text: row.text };
  }

  totals(jobId: string): { operations: number; paths: number } {
    const row = oneRow<{ operations: number | null; paths: number }>(
      this.#sql,
      "SELECT SUM(operations) AS operations, COUNT(*) AS paths FROM import_units WHERE job_id = ? AND kind = 'path'",
      jobId,
    );
    return { operations: row?.operations ?? 0, paths: row?.paths ?? 0 };
  }

  /** What the committed batches did (CommittedBatches): as kept since this object read them, else from the rows. */
  committed(jobId: string): CommittedBatches {
    let known = this.#committed.get(jobId);
    if (known === undefined) {
      known = this.#committedRows(jobId);
      this.#committed.set(jobId, known);
    }
    return { ...known, names: [...known.names], counts: { ...known.counts } };
  }

  /** The committed batches read from their rows: summed by SQLite, the names read alone, no report parsed. */
  #committedRows(jobId: string): CommittedBatches {
    const sums = oneRow<{ batches: number; last_seq: number; operations: number; created: number; updated: number; unchanged: number }>(
      this.#sql,
      `SELECT COUNT(*) AS batches, COALESCE(MAX(last_seq), -1) AS last_seq, COALESCE(SUM(operations), 0) AS operations,
        COALESCE(SUM(json_array_length(report, '$.created')), 0) AS created, COALESCE(SUM(json_array_length(report, '$.updated')), 0) AS updated,
        COALESCE(SUM(json_array_length(report, '$.unchanged')), 0) AS unchanged
       FROM import_batches WHERE job_id = ?`,
      jobId,
    );
    const names = allRows<{ name: string }>(
      this.#sql,
      "SELECT json_each.value AS name FROM import_batches, json_each(import_batches.names) WHERE job_id = ? ORDER BY batch, json_each.key",
      jobId,
    ).map((row) => row.name);
    return {
      batches: sums?.batches ?? 0,
      // Batches take path items in order: the last batch's cursor is the highest.
      lastSeq: sums?.last_seq ?? -1,
      operations: sums?.operations ?? 0,
      names,
      counts: { created: sums?.created ?? 0, updated: sums?.updated ?? 0, unchanged: sums?.unchanged ?? 0 },
    };
  }

  reports(jobId: string): BatchReport[] {
    return allRows<{ report: string }>(this.#sql, "SELECT report FROM import_batches WHERE job_id = ? ORDER BY batch", jobId).map(
      (row) => JSON.parse(row.report) as BatchReport,
    );
  }

  toolsOfOtherSources(source: string, names?: readonly string[]): Record<string, string> {
    return this.#registry.toolsOfOtherSources(source, names);
  }

  /** The batch's tools and its row, in one transaction; a tool limit reached refuses both. */
  commitBatch(
    jobId: string,
    batch: { index: number; lastSeq: number; operations: number; tools: ToolUpsert[]; warnings: string[] },
    source: string,
    maxTools: number,
  ): Outcome<UpsertReport> {
    const names = batch.tools.map((t) => t.definition.name);
    const outcome = this.#registry.upsertTools(batch.tools, source, false, maxTools, (report) => {
      const stored: BatchReport = { created: report.created, updated: report.updated, unchanged: report.unchanged, warnings: batch.warnings };
      run(
        this.#sql,
        "INSERT INTO import_batches (job_id, batch, last_seq, operations, names, report) VALUES (?, ?, ?, ?, ?, ?)",
        jobId,
        batch.index,
        batch.lastSeq,
        batch.operations,
        JSON.stringify(names),
        JSON.stringify(stored),
      );
    });
    if (outcome.ok) this.#noteCommitted(jobId, batch, names, outcome.value);
    return outcome;
  }

  /** A batch committed: the job's kept summary follows (none kept: the next slice reads the rows). */
  #noteCommitted(jobId: string, batch: { lastSeq: number; operations: number }, names: string[], report: UpsertReport): void {
    const known = this.#committed.get(jobId);
    if (known === undefined) return;
    known.batches += 1;
    known.lastSeq = batch.lastSeq;
    known.operations += batch.operations;
    known.names.push(...names);
    known.counts.created += report.created.length;
    known.counts.updated += report.updated.length;
    known.counts.unchanged += report.unchanged.length;
  }

  addWarnings(jobId: string, batch: number, warnings: string[]): void {
    const row = oneRow<{ report: string }>(this.#sql, "SELECT report FROM import_batches WHERE job_id = ? AND batch = ?", jobId, batch);
    if (row === undefined) return;
    const report = JSON.parse(row.report) as BatchReport;
    report.warnings = [...report.warnings, ...warnings];
    run(this.#sql, "UPDATE import_batches SET report = ? WHERE job_id = ? AND batch = ?", JSON.stringify(report), jobId, batch);
  }

  /** Drops a finished job's units and batches (its result keeps the report). */
  discard(jobId: string): void {
    this.#committed.delete(jobId);
    this.#storage.transactionSync(() => {
      run(this.#sql, "DELETE FROM import_units WHERE job_id = ?", jobId);
      run(this.#sql, "DELETE FROM import_batches WHERE job_id = ?", jobId);
    });
  }
}

export interface BatchReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  warnings: string[];
}

interface HeldCut {
  cut: UploadCut;
  bytes: number;
  counts: { operations: number; paths: number; components: number };
}

function countOperations(unit: DocumentUnit): number {
  let item: unknown;
  try {
    item = JSON.parse(unit.text);
  } catch {
    return 0;
  }
  if (typeof item !== "object" || item === null) return 0;
  return OPERATION_METHODS.filter((m) => {
    const operation = (item as Record<string, unknown>)[m];
    return typeof operation === "object" && operation !== null;
  }).length;
}
