import { dereference, upgrade } from "@scalar/openapi-parser";
import { parse as parseYaml } from "yaml";
import { importFailure } from "./import-error";
import { isRecord, type Warnings, type Json } from "./schema-copier";

/** Loading an OpenAPI document: JSON/YAML text or an object, upgraded to OpenAPI 3.1, its references resolved. */

/** Aliases a YAML document may expand at most this often (a "billion laughs" guard). */
const YAML_MAX_ALIASES = 100;

export function parseText(text: string): Json {
  const trimmed = text.trim();
  if (trimmed === "") throw importFailure("unparseable", "The document is empty.");
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    // YAML is a superset of JSON, so anything JSON.parse rejects gets a second chance as YAML.
    try {
      value = parseYaml(trimmed, { maxAliasCount: YAML_MAX_ALIASES });
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw importFailure("unparseable", `The document is neither valid JSON nor valid YAML: ${detail}`);
    }
  }
  if (!isRecord(value)) {
    throw importFailure("unparseable", `The document is not a JSON or YAML object (it reads as ${describeValue(value)}); expected an OpenAPI document.`);
  }
  return value;
}

export function copyInput(document: object): Json {
  let value: unknown;
  try {
    // A JSON round trip detaches the caller's object (upgrading mutates) and rejects cycles.
    value = JSON.parse(JSON.stringify(document));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw importFailure("unparseable", `The document is not plain JSON data: ${detail}`);
  }
  if (!isRecord(value)) {
    throw importFailure("unparseable", `The document is ${describeValue(value)}, not an OpenAPI object.`);
  }
  return value;
}

export function toOpenApi31(source: Json, warnings: Warnings): Json {
  const { openapi, swagger } = source;
  if (typeof swagger === "string" || typeof swagger === "number") {
    if (String(swagger) !== "2.0") {
      throw importFailure("not_openapi", `Swagger ${String(swagger)} is not supported; use OpenAPI 3.x or Swagger 2.0.`);
    }
    warnings.add("Swagger 2.0 document: converted to OpenAPI 3.1 before import.");
  } else if (typeof openapi === "string") {
    if (!/^3\.[0-2](\.|$)/.test(openapi)) {
      throw importFailure("not_openapi", `OpenAPI version "${openapi}" is not supported; use OpenAPI 3.0, 3.1 or 3.2.`);
    }
  } else {
    throw importFailure("not_openapi", "This is not an OpenAPI document: it has no `openapi` version field (for example `openapi: 3.1.0`).");
  }
  let upgraded: unknown;
  try {
    upgraded = upgrade(source).specification;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw importFailure("not_openapi", `The document could not be read as OpenAPI: ${detail}`);
  }
  if (!isRecord(upgraded)) throw importFailure("not_openapi", "The document could not be read as OpenAPI.");
  return upgraded;
}

export function dereferenceDocument(spec: Json): { resolved: Json; refSites: WeakMap<object, string> } {
  // The parser resolves $refs in place by merging the target into the referring object; remember
  // which objects were references, so recursion can later be cut exactly at a reference.
  const refSites = new WeakMap<object, string>();
  let result: ReturnType<typeof dereference>;
  try {
    result = dereference(spec, { onDereference: ({ schema, ref }) => refSites.set(schema, ref) });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw importFailure("broken_ref", `The document's references could not be resolved: ${detail}`);
  }
  const errors = (result.errors ?? []).map((e) => e.message);
  if (errors.length > 0) {
    const external = (result.errors ?? []).some((e) => e.code === "EXTERNAL_REFERENCE_NOT_FOUND");
    const hint = external ? " References to other files or URLs are not supported: bundle the document into one file." : "";
    throw importFailure("broken_ref", `The document has references that cannot be resolved: ${errors.join("; ")}.${hint}`, errors);
  }
  if (!isRecord(result.schema)) throw importFailure("not_openapi", "The document could not be read as OpenAPI.");
  return { resolved: result.schema, refSites };
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}
