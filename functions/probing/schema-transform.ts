import { z } from "zod";
import type { JsonSchema } from "../tools/definition";

/**
 * Algorithm 2 of the ATC paper (appendix A.1): a query-specific tool response becomes a general
 * response schema by recursive decomposition, listing each value's type. The type names are the
 * authors' (Python's): `str`, `int`, `float`, `bool`.
 *
 * Decisions, checked against the authors' own output (`_responses_json` in
 * `shared/data/autotools/tools/*.tools.json`): all 51 recorded responses (food, game, weather)
 * and all 54 tmdb OpenAPI response objects are reproduced exactly, key order included.
 * - `null` becomes `"NoneType"`, Python's name for None's type, as in every file of theirs.
 * - An empty list stays `[]` (Algorithm 2 has no branch for it; A.6 shows `"meta": []`).
 * - A list is described by its FIRST item only (line 6, "only remain the first element"), so a
 *   mixed list takes its first item's schema: the data has many lists whose later items differ
 *   (int vs float amounts, missing keys, null fields) and the authors keep the first.
 * - Whole numbers are `int`, others `float`. Python tells `1.0` from `1` at parse time; after
 *   JSON.parse JavaScript cannot, so `1.0` reads as `int`. No response in the data contains a
 *   whole-number float, so this never differs from the authors' output there.
 */

export type AtomicTypeName = "str" | "int" | "float" | "bool" | "NoneType";

/** A compact response schema: type names at the leaves, `[item]` or `[]` for lists, objects by key. */
export type ResponseSchema = AtomicTypeName | ResponseSchema[] | { [key: string]: ResponseSchema };

export const AtomicTypeName = z.enum(["str", "int", "float", "bool", "NoneType"]);

/** Zod validator of a ResponseSchema (recursive). */
export const ResponseSchema: z.ZodType<ResponseSchema> = z.lazy(() => z.union([AtomicTypeName, z.array(ResponseSchema), z.record(z.string(), ResponseSchema)]));

export interface SchemaTransformOptions {
  /** Values nested deeper than this are cut off as `[]` / `{}`: a guard against hostile, very deep responses. Default 64. */
  maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 64;

/** Algorithm 2: the general schema of one tool response. */
export function schemaTransform(response: unknown, options: SchemaTransformOptions = {}): ResponseSchema {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const walk = (value: unknown, depth: number): ResponseSchema => {
    // `undefined` can only come from a non-JSON caller; JSON has no such value, so treat it as null.
    if (value === null || value === undefined) return "NoneType";
    switch (typeof value) {
      case "string":
        return "str";
      case "boolean":
        return "bool";
      case "number":
        return Number.isInteger(value) ? "int" : "float";
      case "bigint":
        return "int";
      case "object":
        break;
      default:
        // Functions and symbols are not JSON; describe them as text rather than failing a probe.
        return "str";
    }
    if (Array.isArray(value)) {
      if (value.length === 0 || depth >= maxDepth) return [];
      return [walk(value[0], depth + 1)];
    }
    if (depth >= maxDepth) return {};
    // fromEntries defines own properties, so a `__proto__` key stays a plain key.
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, walk(child, depth + 1)]));
  };
  return walk(response, 0);
}

const ATOMIC_JSON_SCHEMA: Record<Exclude<AtomicTypeName, "NoneType">, JsonSchema> = {
  str: { type: "string" },
  int: { type: "integer" },
  float: { type: "number" },
  bool: { type: "boolean" },
};

/**
 * The compact schema as JSON Schema, so the typed API (`chain/typed-api.ts`) can render it.
 * A value seen as null says nothing about its type, so it becomes `{}` (unknown) with a note,
 * not `{type:"null"}`, which would tell the model the field is always null. Object keys are not
 * marked required: one response shows that a key can appear, not that it always does.
 */
export function responseSchemaToJsonSchema(schema: ResponseSchema): JsonSchema {
  if (schema === "NoneType") return { description: "null in the probed response; type unknown" };
  if (typeof schema === "string") return { ...ATOMIC_JSON_SCHEMA[schema] };
  if (Array.isArray(schema)) {
    const first = schema[0];
    return first === undefined ? { type: "array", items: {} } : { type: "array", items: responseSchemaToJsonSchema(first) };
  }
  const properties = Object.fromEntries(Object.entries(schema).map(([key, child]) => [key, responseSchemaToJsonSchema(child)]));
  return { type: "object", properties };
}
