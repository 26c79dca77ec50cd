import type { TenantApi } from "../../tenant-api/tenant-api";
import { bodyLimitBytes, issuesToErrors } from "../app";
import { Failure } from "../../common/failures";
import { fetchSourceBytes, fetchSourceDocument, importUrlLimits } from "../../tools/import-by-url";
import type { ToolSource } from "../../services/register";
import { startBackgroundImport, storeUpload } from "./import-upload";

/**
 * What `POST /v1/tools/import` accepts besides a wrapped document: an `openapi` or `list` source
 * given by `url` (fetched by the service), and, for a document posted bare, a problem that says
 * how to wrap it instead of the schema's generic complaint.
 */

type OpenApiBody = {
  format: "openapi";
  document?: string | Record<string, unknown> | undefined;
  url?: string | undefined;
  serverUrl?: string | undefined;
  background?: boolean | undefined;
  source?: string | undefined;
  prune?: boolean | undefined;
};
type ImportBody = OpenApiBody | { format: "list"; tools?: unknown; url?: string | undefined };

/**
 * An OpenAPI import that runs as a background job: asked for (`background: true`), or given by a
 * `url` whose document is larger than the JSON body limit. Undefined: import it now, as always.
 * A fetched document small enough for now is handed back as text, so it is not fetched twice.
 */
export async function backgroundImport(
  env: Env,
  tenant: Pick<TenantApi, "imports" | "jobs">,
  body: OpenApiBody,
): Promise<{ started: { jobId: string; bytes: number } } | { source: ToolSource } | undefined> {
  if (body.background !== true && body.url === undefined) return undefined;
  if ((body.document === undefined) === (body.url === undefined)) return undefined;
  const limits = importUrlLimits(env);
  let chunks: Uint8Array[];
  if (body.url !== undefined) {
    chunks = await fetchSourceBytes(env, body.url, limits);
    const bytes = chunks.reduce((n, c) => n + c.byteLength, 0);
    if (body.background !== true && bytes <= bodyLimitBytes(env)) {
      const decoder = new TextDecoder();
      const text = chunks.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
      return { source: { format: "openapi", document: text, serverUrl: body.serverUrl, documentUrl: body.url } };
    }
  } else {
    const document = body.document as string | Record<string, unknown>;
    chunks = [new TextEncoder().encode(typeof document === "string" ? document : JSON.stringify(document))];
  }
  if (body.prune === true) {
    throw new Failure(
      "invalid-request",
      "`prune` is not available for an import that runs in the background (asked for, or a document above the JSON body limit).",
    );
  }
  const upload = await storeUpload(tenant, chunks, limits.maxBytes);
  const source = body.source ?? body.url ?? body.format;
  return {
    started: await startBackgroundImport(tenant, {
      ...upload,
      source,
      ...(body.serverUrl === undefined ? {} : { serverUrl: body.serverUrl }),
      ...(body.url === undefined ? {} : { documentUrl: body.url }),
    }),
  };
}

/** The source to import, fetching it first when it is given by `url`. */
export async function resolveImportSource(env: Env, body: ImportBody): Promise<ToolSource> {
  const given = body.format === "openapi" ? body.document : body.tools;
  const field = body.format === "openapi" ? "document" : "tools";
  if ((given === undefined) === (body.url === undefined)) {
    throw new Failure(
      "invalid-request",
      `Give the ${body.format === "openapi" ? "document" : "list"} either inline as \`${field}\` or by \`url\`, not ${given === undefined ? "neither" : "both"}.`,
    );
  }
  if (body.url === undefined) {
    return body.format === "openapi"
      ? { format: "openapi", document: given as string | Record<string, unknown>, serverUrl: body.serverUrl }
      : { format: "list", tools: given };
  }
  const text = await fetchSourceDocument(env, body.url, importUrlLimits(env));
  if (body.format === "openapi") return { format: "openapi", document: text, serverUrl: body.serverUrl, documentUrl: body.url };
  try {
    return { format: "list", tools: JSON.parse(text) as unknown };
  } catch {
    throw new Failure("invalid-document", `The tool list at ${body.url} is not JSON.`);
  }
}

const WRAP_OPENAPI = 'send {"format":"openapi","document": <the document>}, or {"format":"openapi","url":"https://…/openapi.json"} to have it fetched';
const WRAP_LIST = 'send {"format":"list","tools": <the list>}, or {"format":"list","url":"https://…/tools.json"}';

/** A hint for a body that is a known document posted without the `{format, …}` wrapper. */
export function bareDocumentHint(body: unknown): string | undefined {
  if (Array.isArray(body)) return `This looks like a bare tool list posted on its own: ${WRAP_LIST}.`;
  if (typeof body !== "object" || body === null || "format" in body) return undefined;
  if ("openapi" in body || "swagger" in body) return `This looks like an OpenAPI document posted on its own: ${WRAP_OPENAPI}.`;
  if ("endpoints" in body || "tools" in body) return `This looks like a tool list without its format: ${WRAP_LIST}.`;
  if ("url" in body) return 'Say what the URL holds: add "format": "openapi", "list" or "mcp".';
  return undefined;
}

/** The import route's validation hook: the service's usual problem, or the wrapping hint. */
export function importRequestHook(result: {
  success: boolean;
  target: string;
  data?: unknown;
  error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
}): undefined {
  if (result.success) return undefined;
  const hint = result.target === "json" ? bareDocumentHint(result.data) : undefined;
  if (hint !== undefined) throw new Failure("invalid-request", hint);
  throw new Failure("invalid-request", "The request does not match the schema.", issuesToErrors(result.error?.issues ?? []));
}
