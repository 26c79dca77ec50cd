import { issuesToErrors } from "../app";
import { ApiError } from "../problem";
import { Failure } from "../../failures";
import { fetchSourceDocument, importUrlLimits } from "../../tools/import-by-url";
import type { ToolSource } from "../../tools/register";

/**
 * What `POST /v1/tools/import` accepts besides a wrapped document: an `openapi` or `list` source
 * given by `url` (fetched by the service), and, for a document posted bare, a problem that says
 * how to wrap it instead of the schema's generic complaint.
 */

type ImportBody =
  | { format: "openapi"; document?: string | Record<string, unknown> | undefined; url?: string | undefined; serverUrl?: string | undefined }
  | { format: "list"; tools?: unknown; url?: string | undefined };

/** The source to import, fetching it first when it is given by `url`. */
export async function resolveImportSource(env: Env, body: ImportBody): Promise<ToolSource> {
  const given = body.format === "openapi" ? body.document : body.tools;
  const field = body.format === "openapi" ? "document" : "tools";
  if ((given === undefined) === (body.url === undefined)) {
    throw new ApiError(
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
  if (body.format === "openapi") return { format: "openapi", document: text, serverUrl: body.serverUrl };
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
  if (hint !== undefined) throw new ApiError("invalid-request", hint);
  throw new ApiError("invalid-request", "The request does not match the schema.", issuesToErrors(result.error?.issues ?? []));
}
