import { sample } from "openapi-sampler";
import { fnv1a, hexFrom } from "./hash";
import { isIdentifierName } from "./identifiers";
import { isRecord, type JsonRecord } from "./json";
import { resolveRef } from "./refs";

type SamplerSchema = Parameters<typeof sample>[0];

const MAX_INT32 = 2_147_483_647;

/**
 * Schema-conforming data for `schema` (local `$ref`s resolved against `document`). openapi-sampler
 * alone gives every request the same placeholders (every id 0), so identifier fields with a plain
 * integer or string schema are then varied by `seed`: different requests hand out different ids,
 * the same request always the same.
 */
export function generateFromSchema(schema: JsonRecord, document: unknown, seed: string): unknown {
  const value = sample(schema as SamplerSchema, { quiet: true }, isRecord(document) ? document : undefined);
  return varyIdentifiers(value, schema, document, seed, 0);
}

const MAX_DEPTH = 32;

function varyIdentifiers(value: unknown, rawSchema: unknown, document: unknown, seed: string, depth: number): unknown {
  const schema = resolveRef(document, rawSchema);
  if (!isRecord(schema) || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    return value.map((item, i) => varyIdentifiers(item, schema["items"], document, `${seed}[${i}]`, depth + 1));
  }
  if (!isRecord(value)) return value;
  const properties = isRecord(schema["properties"]) ? schema["properties"] : {};
  const out: JsonRecord = {};
  for (const [key, inner] of Object.entries(value)) {
    const propertySchema = resolveRef(document, properties[key]);
    const path = `${seed}.${key}`;
    const varied = isIdentifierName(key) ? identifierFor(inner, propertySchema, path) : undefined;
    out[key] = varied ?? varyIdentifiers(inner, propertySchema, document, path, depth + 1);
  }
  return out;
}

/** A seeded replacement for an identifier, or undefined when its schema is too specific to vary safely. */
function identifierFor(current: unknown, schema: unknown, seed: string): number | string | undefined {
  if (!isRecord(schema) || "enum" in schema || "const" in schema) return undefined;
  const type = schema["type"];
  if (typeof current === "number" && (type === "integer" || type === "number") && !("multipleOf" in schema)) {
    const [low, high] = integerBounds(schema);
    if (low > high) return undefined;
    return low + (fnv1a(seed) % (high - low + 1));
  }
  if (typeof current === "string" && type === "string" && !("format" in schema) && !("pattern" in schema)) {
    const min = typeof schema["minLength"] === "number" ? schema["minLength"] : 0;
    const max = typeof schema["maxLength"] === "number" ? schema["maxLength"] : Number.POSITIVE_INFINITY;
    const length = Math.min(Math.max(12, min), max);
    return length >= 1 && length >= min ? hexFrom(seed, length) : undefined;
  }
  return undefined;
}

/** Inclusive integer bounds, honouring both the 3.0 (boolean) and 3.1 (numeric) exclusive forms. */
function integerBounds(schema: JsonRecord): [number, number] {
  let low = 1;
  let high = MAX_INT32;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (typeof minimum === "number") low = exclusiveMinimum === true ? Math.floor(minimum) + 1 : Math.ceil(minimum);
  if (typeof maximum === "number") high = exclusiveMaximum === true ? Math.ceil(maximum) - 1 : Math.floor(maximum);
  if (typeof exclusiveMinimum === "number") low = Math.max(low, Math.floor(exclusiveMinimum) + 1);
  if (typeof exclusiveMaximum === "number") high = Math.min(high, Math.ceil(exclusiveMaximum) - 1);
  return [Math.max(low, -MAX_INT32), Math.min(high, MAX_INT32)];
}
