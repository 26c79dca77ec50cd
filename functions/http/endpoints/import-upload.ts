import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { TenantApi } from "../../tenant-api/tenant-api";
import type { ImportJobRequest } from "../../jobs/import-job";
import { importUrlLimits } from "../../tools/import-by-url";
import type { AppEnv } from "../app-env";
import { problems, tenantSecurity } from "../openapi-common";
import { Failure } from "../../common/failures";

/**
 * A big document on its way to a background import: its bytes go to the tenant's storage in
 * 1 MiB chunks as they arrive (the Worker never holds the whole document as text), then a job
 * of kind `import` is created for them.
 */

export const UPLOAD_CHUNK_BYTES = 1 << 20;

/** Stores `chunks` (any sizes) as an upload; more than `maxBytes` in all is refused with 413 and nothing kept. */
export async function storeUpload(
  tenant: Pick<TenantApi, "imports">,
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  maxBytes: number,
): Promise<{ uploadId: string; bytes: number }> {
  const uploadId = `upl_${crypto.randomUUID().replaceAll("-", "")}`;
  const pending = new Uint8Array(UPLOAD_CHUNK_BYTES);
  let filled = 0;
  let seq = 0;
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (filled === 0) return;
    await tenant.imports.appendUpload(uploadId, seq, pending.slice(0, filled));
    seq += 1;
    filled = 0;
  };
  try {
    for await (const chunk of chunks) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw new Failure("payload-too-large", `The document is larger than ${maxBytes} bytes, the import limit.`);
      for (let offset = 0; offset < chunk.byteLength; ) {
        const taken = Math.min(UPLOAD_CHUNK_BYTES - filled, chunk.byteLength - offset);
        pending.set(chunk.subarray(offset, offset + taken), filled);
        filled += taken;
        offset += taken;
        if (filled === UPLOAD_CHUNK_BYTES) await flush();
      }
    }
    await flush();
  } catch (error) {
    await tenant.imports.discardUpload(uploadId);
    throw error;
  }
  if (bytes === 0) throw new Failure("invalid-request", "The document is empty.");
  return { uploadId, bytes };
}

/** The job that imports a stored upload; answered to the client as 202 with its id. */
export async function startBackgroundImport(tenant: Pick<TenantApi, "jobs">, request: ImportJobRequest): Promise<{ jobId: string; bytes: number }> {
  const job = await tenant.jobs.create("import", request, null);
  return { jobId: job.id, bytes: request.bytes };
}

/** A request body as chunks, as it streams in. */
export async function* streamChunks(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> {
  if (body === null) return;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** Where a document above the JSON body limit is sent as it is: the raw body, no JSON wrapper. */
export const IMPORT_UPLOAD_PATH = "/v1/tools/import/upload";

export const ImportAccepted = z
  .object({
    jobId: z.string(),
    bytes: z.number().int(),
    status: z.literal("queued"),
    job: z.string().describe("Where the job's progress and, at the end, its report are read: GET /v1/jobs/{id}"),
  })
  .openapi("ImportAccepted");

/** The 202 answer of an import that runs in the background. */
export function importAccepted(started: { jobId: string; bytes: number }): z.infer<typeof ImportAccepted> {
  return { jobId: started.jobId, bytes: started.bytes, status: "queued", job: `/v1/jobs/${started.jobId}` };
}

const UploadQuery = z.object({
  source: z
    .string()
    .min(1)
    .max(200)
    .default("openapi")
    .openapi({ param: { name: "source", in: "query" }, description: "Groups the imported tools" }),
  serverUrl: z
    .string()
    .url()
    .optional()
    .openapi({ param: { name: "serverUrl", in: "query" }, description: "Overrides the document's servers[0].url" }),
});

/** `POST /v1/tools/import/upload`: a big OpenAPI document (JSON or YAML) as the raw body, imported by a background job. */
export function registerImportUploadRoute(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/tools/import/upload",
      tags: ["tools"],
      summary: "Import a big OpenAPI document (JSON or YAML), sent as the raw body, in the background",
      description:
        "For documents above the JSON body limit (8 MiB by default; up to IMPORT_URL_MAX_BYTES, 32 MiB by default), in JSON or YAML. The body is stored as it streams in; the answer is 202 with a job whose progress (operations done of all, tools so far) and final report (as `POST /v1/tools/import` answers) `GET /v1/jobs/{id}` shows.",
      security: tenantSecurity,
      request: {
        query: UploadQuery,
        body: { required: true, content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
      },
      responses: {
        202: { description: "Stored; the import runs in the background", content: { "application/json": { schema: ImportAccepted } } },
        ...problems(400, 401, 413),
      },
    }),
    async (c) => {
      const { source, serverUrl } = c.req.valid("query");
      const { maxBytes } = importUrlLimits(c.env);
      const upload = await storeUpload(c.var.tenant, streamChunks(c.req.raw.body), maxBytes);
      const started = await startBackgroundImport(c.var.tenant, { ...upload, source, ...(serverUrl === undefined ? {} : { serverUrl }) });
      c.header("Location", `/v1/jobs/${started.jobId}`);
      return c.json(importAccepted(started), 202);
    },
  );
}
