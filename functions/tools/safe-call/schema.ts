import { Validator } from "@cfworker/json-schema";
import type { OutputUnit, Schema } from "@cfworker/json-schema";
import type { JsonSchema } from "../definition";

/**
 * JSON Schema validation of one argument value, with the OpenAPI 3.0 dialect translated to
 * draft 2020-12 first, because tool schemas come from both worlds.
 */

export type SchemaCheck = { ok: true } | { ok: false; message: string };

/** Compiled validators per schema object; definitions are reused across many calls. */
const validators = new WeakMap<object, Validator>();

/**
 * Validates `value` against a parameter schema. Throws when the schema itself is unusable
 * (bad regex, unresolved $ref): that is a definition problem the caller reports as such.
 */
export function checkValue(schema: JsonSchema, value: unknown): SchemaCheck {
  let validator = validators.get(schema);
  if (validator === undefined) {
    // shortCircuit=false so every error is listed and the most specific one can be picked.
    validator = new Validator(toDraft2020(schema) as Schema, "2020-12", false);
    validators.set(schema, validator);
  }
  const result = validator.validate(value);
  return result.valid ? { ok: true } : { ok: false, message: describeErrors(result.errors, value) };
}

/** Keywords whose errors only say "something inside failed"; the inner error is more useful. */
const WRAPPER_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "contains",
  "allOf",
  "$ref",
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentSchemas",
]);

const MAX_ERROR_CHARS = 240;

function describeErrors(errors: OutputUnit[], value: unknown): string {
  const specific = errors.filter((e) => !WRAPPER_KEYWORDS.has(e.keyword));
  const chosen = (specific.length > 0 ? specific : errors).slice(0, 3);
  const parts = chosen.map((e) => {
    const where = e.instanceLocation.replace(/^#\/?/, "");
    // The validator quotes a whole enum ("does not match any of [3,000 values]"): cut, since this
    // text goes back to the model that made the call.
    const error = e.error.length > MAX_ERROR_CHARS ? `${e.error.slice(0, MAX_ERROR_CHARS - 1)}…]` : e.error;
    return where === "" ? error : `at ${where}: ${error}`;
  });
  return `${parts.join("; ")} Got ${preview(value)}.`;
}

/** A short, type-revealing rendering of a value for error messages. */
export function preview(value: unknown): string {
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    json = String(value);
  }
  return `${kind} ${json.length > 120 ? `${json.slice(0, 117)}...` : json}`;
}

/** A compact rendering of a schema, for telling the caller what was expected. */
export function schemaSummary(schema: JsonSchema): string {
  const json = JSON.stringify(schema);
  return json.length > 200 ? `${json.slice(0, 197)}...` : json;
}

/** Keywords holding one subschema. */
const SINGLE = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
];
/** Keywords holding a list of subschemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/** Keywords holding a name → subschema map. */
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Copies a schema with OpenAPI 3.0 idioms rewritten for 2020-12:
 * - `nullable: true` adds null to `type` (and to `enum`), or wraps as `anyOf [null, schema]`
 *   when there is no `type`; without this a 3.0 schema would reject every null.
 * - boolean `exclusiveMinimum/Maximum` (draft 4) become the numeric form; 2020-12 would
 *   otherwise compare numbers against `true`.
 * Walks only real subschema keywords, so data (`enum`, `default`, `example`) is never rewritten.
 */
export function toDraft2020(schema: unknown, root = true): unknown {
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = { ...schema };
  for (const key of SINGLE) if (isObject(out[key])) out[key] = toDraft2020(out[key], false);
  for (const key of LIST) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((item) => toDraft2020(item, false));
  }
  for (const key of MAP) {
    const map = out[key];
    if (isObject(map)) {
      out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, toDraft2020(v, false)]));
    }
  }
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof out[flag] === "boolean") {
      if (out[flag] === true && typeof out[bound] === "number") {
        out[flag] = out[bound];
        delete out[bound];
      } else {
        delete out[flag];
      }
    }
  }
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") {
    out.type = [out.type, "null"];
    return out;
  }
  if (Array.isArray(out.type)) {
    if (!out.type.includes("null")) out.type = [...out.type, "null"];
    return out;
  }
  // Local definitions stay at the root so `#/$defs/...` references still resolve.
  const wrapper: Record<string, unknown> = { anyOf: [{ type: "null" }, out] };
  if (root) {
    for (const key of ["$defs", "definitions"]) {
      if (key in out) {
        wrapper[key] = out[key];
        delete out[key];
      }
    }
  }
  return wrapper;
}
