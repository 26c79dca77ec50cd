import { isRecord, recordAt, stringAt, type JsonRecord } from "./json";
import { templateParams } from "./path-template";
import { bodyFromResponseObject, successResponse } from "./response-body";
import { checkPrefix } from "./prefix";
import { seedIdentifiers } from "./seed";
import type { MountOptions, OperationBody, SkippedOperation, WorldMount, WorldOperation, WorldParameter } from "./types";

// `scheme://host[:port]/path?query`, the scheme optional because game.tools.json lists its
// server without one; anything with spaces (one game endpoint carries its description as url)
// is not a URL.
const URL_SHAPE = /^(?:[a-z][a-z0-9+.-]*:\/\/)?[a-z0-9.-]+(?::\d+)?(\/[^\s?#]*)?(?:[?#]\S*)?$/i;

/**
 * Prepares an AutoTools `*.tools.json` file for serving under `prefix`: each endpoint is served at
 * its URL's path (host dropped) and replays its recorded `response`, or, for files that carry an
 * OpenAPI `responses` object instead (tmdb.tools.json), that object's example or schema.
 */
export function mountAutotools(prefix: string, toolsFile: unknown, options: MountOptions = {}): WorldMount {
  checkPrefix(prefix);
  const endpoints = isRecord(toolsFile) ? toolsFile["endpoints"] : undefined;
  if (!Array.isArray(endpoints)) throw new TypeError("mountAutotools expects a tools file with an endpoints array");
  const operations: WorldOperation[] = [];
  const skipped: SkippedOperation[] = [];
  const seen = new Set<string>();
  for (const [index, endpoint] of endpoints.entries()) {
    const name = stringAt(endpoint, "name") ?? `endpoint #${index}`;
    const url = stringAt(endpoint, "url") ?? "";
    const shape = URL_SHAPE.exec(url.trim());
    if (shape === null) {
      skipped.push({ name, reason: `url is not a URL: ${JSON.stringify(url.slice(0, 80))}` });
      continue;
    }
    const path = shape[1] ?? "/";
    const method = (stringAt(endpoint, "method") ?? "GET").toUpperCase();
    const key = `${method} ${path}`;
    if (seen.has(key)) {
      skipped.push({ name, reason: `duplicate of an earlier endpoint at ${key}` });
      continue;
    }
    seen.add(key);
    operations.push({
      method,
      path,
      name,
      parameters: toolParameters(endpoint, path),
      status: responsesStatus(endpoint),
      body: recordedBody(endpoint, toolsFile),
    });
  }
  return {
    prefix,
    kind: "autotools",
    title: toolsTitle(toolsFile, prefix),
    operations,
    skipped,
    seedIds: seedIdentifiers(operations, options.seed ?? "entry-examples", options.records?.ids),
    document: toolsFile,
    ...(options.records === undefined ? {} : { records: options.records }),
  };
}

/** The recorded response, else the `responses` object's example or schema. */
function recordedBody(endpoint: unknown, document: unknown): OperationBody {
  if (!isRecord(endpoint)) return { kind: "none" };
  const recorded = endpoint["response"];
  if (recorded !== undefined && recorded !== null) return { kind: "example", value: recorded };
  const responses = endpoint["responses"];
  // tmdb.tools.json holds one response object ({description, content}), not a status map.
  if (recordAt(responses, "content") !== undefined) return bodyFromResponseObject(responses, document);
  const success = successResponse(responses);
  return success === undefined ? { kind: "none" } : bodyFromResponseObject(success.response, document);
}

function responsesStatus(endpoint: unknown): number {
  const responses = isRecord(endpoint) ? endpoint["responses"] : undefined;
  if (recordAt(responses, "content") !== undefined) return 200;
  return successResponse(responses)?.status ?? 200;
}

/**
 * Normalises the files' parameter quirks: `parameters` or `params`; a URL placeholder declared
 * `in: query` is a path parameter; weather.tools.json writes required-ness into `in`
 * ("required"/"optional") and means a query parameter.
 */
function toolParameters(endpoint: unknown, path: string): WorldParameter[] {
  const inPath = new Set(templateParams(path));
  const raw = isRecord(endpoint) ? (endpoint["parameters"] ?? endpoint["params"]) : undefined;
  const out: WorldParameter[] = [];
  for (const entry of Array.isArray(raw) ? raw : []) {
    const name = stringAt(entry, "name");
    if (!isRecord(entry) || name === undefined) continue;
    const declared = stringAt(entry, "in");
    const schema: JsonRecord = recordAt(entry, "schema") ?? {};
    if (inPath.has(name)) {
      out.push({ name, in: "path", required: true, schema });
    } else if (declared === "header") {
      out.push({ name, in: "header", required: entry["required"] === true, schema });
    } else {
      out.push({ name, in: "query", required: entry["required"] === true || declared === "required", schema });
    }
  }
  for (const name of inPath) {
    if (!out.some((p) => p.in === "path" && p.name === name)) out.push({ name, in: "path", required: true, schema: {} });
  }
  return out;
}

/** The first server URL names the API best; the files' descriptions are placeholder text. */
function toolsTitle(toolsFile: unknown, prefix: string): string {
  const servers = isRecord(toolsFile) ? toolsFile["servers"] : undefined;
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
  return stringAt(first, "url") ?? prefix;
}
