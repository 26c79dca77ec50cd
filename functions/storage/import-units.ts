import type { Outcome } from "../common/failures";
import type { ToolUpsert, UpsertReport } from "./tenant-registry";

/** The units of a big document cut into storage by a background import (path items, components, top-level fields). */
export interface StoredUnit {
  pointer: string;
  key: string;
  text: string;
}
export interface PathUnit {
  seq: number;
  key: string;
  text: string;
  operations: number;
}

/** What the background import job (jobs/import-job.ts) needs of the tenant's storage (tenant-imports.ts; tests give their own). */
export interface ImportJobStore {
  /** Cuts at most `maxBytes` more of the upload into units; `done` once all of it is cut (the upload is then dropped). */
  cutSome(jobId: string, uploadId: string, maxBytes: number): CutProgress;
  isSplit(jobId: string): boolean;
  head(jobId: string): StoredUnit[];
  securitySchemes(jobId: string): StoredUnit[];
  nextPaths(jobId: string, afterSeq: number, maxOperations: number): PathUnit[];
  component(jobId: string, pointer: string): StoredUnit | undefined;
  totals(jobId: string): { operations: number; paths: number };
  /** What the committed batches did, read at each slice: counted by SQLite, not their reports parsed (warnings are most of a report's bytes: 4.4 MiB by Graph's end). */
  committed(jobId: string): CommittedBatches;
  /** Every committed batch's report, in order (the job's final report, read once). */
  reports(jobId: string): BatchReport[];
  commitBatch(
    jobId: string,
    batch: { index: number; lastSeq: number; operations: number; tools: ToolUpsert[]; warnings: string[] },
    source: string,
    maxTools: number,
  ): Outcome<UpsertReport>;
  /**
   * The tools another source than `source` holds, tool name → source (a batch's clashing tools are
   * renamed around them); with `names`, only those of them.
   */
  toolsOfOtherSources(source: string, names?: readonly string[]): Record<string, string>;
  /** Adds warnings to a committed batch's report (what happened after its commit, e.g. embeddings that failed). */
  addWarnings(jobId: string, batch: number, warnings: string[]): void;
  discard(jobId: string): void;
}
/** How far the cut of an upload has come. */
export interface CutProgress {
  done: boolean;
  bytesCut: number;
  bytes: number;
  operations: number;
  paths: number;
  components: number;
}
export interface BatchReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  warnings: string[];
}

/** The committed batches of a job: how many, the cursor (last path item done), operations, every tool name and the tools' counts. */
export interface CommittedBatches {
  batches: number;
  lastSeq: number;
  operations: number;
  names: string[];
  counts: { created: number; updated: number; unchanged: number };
}
