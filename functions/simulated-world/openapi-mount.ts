import { isRecord, recordAt, stringAt, type JsonRecord } from "./json";
import { templateParams } from "./path-template";
import { resolveRef } from "./refs";
import { bodyFromResponseObject, successResponse } from "./response-body";
import { checkPrefix } from "./prefix";
import { seedIdentifiers } from "./seed";
import type { MountOptions, ParameterIn, SkippedOperation, WorldMount, WorldOperation, WorldParameter } from "./types";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Prepares an OpenAPI 3.0/3.1 document for serving under `prefix` (paths relative to its server). */
export function mountOpenApi(prefix: string, document: unknown, options: MountOptions = {}): WorldMount {
  checkPrefix(prefix);
  const version = stringAt(document, "openapi");
  if (version === undefined || !/^3\.[01]\./.test(version)) {
    throw new TypeError(`mountOpenApi expects an OpenAPI 3.0 or 3.1 document (openapi: ${String(version)})`);
  }
  const paths = recordAt(document, "paths") ?? {};
  const operations: WorldOperation[] = [];
  const skipped: SkippedOperation[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolveRef(document, rawItem);
    if (!isRecord(item)) {
      skipped.push({ name: path, reason: "path item is not an object" });
      continue;
    }
    if (!path.startsWith("/")) {
      skipped.push({ name: path, reason: "path does not start with /" });
      continue;
    }
    const shared = Array.isArray(item["parameters"]) ? item["parameters"] : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      const own = Array.isArray(op["parameters"]) ? op["parameters"] : [];
      const success = successResponse(op["responses"]);
      operations.push({
        method: method.toUpperCase(),
        path,
        name: stringAt(op, "operationId") ?? `${method.toUpperCase()} ${path}`,
        parameters: mergeParameters(document, path, shared, own),
        status: success?.status ?? 200,
        body: success === undefined ? { kind: "none" } : bodyFromResponseObject(success.response, document),
      });
    }
  }
  return {
    prefix,
    kind: "openapi",
    title: stringAt(recordAt(document, "info"), "title") ?? prefix,
    operations,
    skipped,
    seedIds: seedIdentifiers(operations, options.seed ?? "entry-examples", options.records?.ids),
    document,
    ...(options.records === undefined ? {} : { records: options.records }),
  };
}

/** Path-level parameters overridden by operation-level ones (same name and location), as the spec says. */
function mergeParameters(document: unknown, path: string, shared: unknown[], own: unknown[]): WorldParameter[] {
  const byKey = new Map<string, WorldParameter>();
  for (const raw of [...shared, ...own]) {
    const parameter = toParameter(resolveRef(document, raw), document);
    if (parameter !== undefined) byKey.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  // A template parameter the document forgot to declare is still a required path parameter.
  for (const name of templateParams(path)) {
    if (!byKey.has(`path:${name}`)) byKey.set(`path:${name}`, { name, in: "path", required: true, schema: {} });
  }
  return [...byKey.values()];
}

function toParameter(raw: unknown, document: unknown): WorldParameter | undefined {
  const name = stringAt(raw, "name");
  const location = stringAt(raw, "in");
  if (!isRecord(raw) || name === undefined || !isLocation(location)) return undefined;
  const resolved = resolveRef(document, raw["schema"]);
  const schema: JsonRecord = isRecord(resolved) ? resolved : {};
  return { name, in: location, required: location === "path" || raw["required"] === true, schema };
}

function isLocation(value: string | undefined): value is ParameterIn {
  return value === "path" || value === "query" || value === "header";
}
