import { JSON_TYPE_ALIASES } from "../tools/type-aliases";
import { isIdLike, normalized } from "./vocabulary";

/** Schemas: the few JSON Schema facts the instance-discovery rules read, and values coerced to a parameter's type. */

export type Schema = Record<string, unknown>;

export function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema to read: the first usable variant of anyOf/oneOf, merged with allOf parts. */
export function effectiveSchema(schema: unknown): Schema {
  if (!isSchema(schema)) return {};
  let s: Schema = schema;
  for (const key of ["anyOf", "oneOf"]) {
    const variants = s[key];
    if (Array.isArray(variants)) {
      const variant = variants.find((v) => isSchema(v) && v["type"] !== "null");
      if (isSchema(variant)) s = { ...s, ...variant };
    }
  }
  const all = s["allOf"];
  if (Array.isArray(all)) for (const part of all) if (isSchema(part)) s = { ...part, ...s };
  return s;
}

export type ValueType = "string" | "integer" | "number" | "boolean" | "array" | "object";

function declaredType(schema: Schema): ValueType | undefined {
  const type = schema["type"];
  const first = Array.isArray(type) ? type.find((t) => typeof t === "string" && t !== "null") : type;
  if (typeof first !== "string") return undefined;
  const alias = JSON_TYPE_ALIASES[first.toLowerCase()];
  return alias === "null" ? undefined : alias;
}

const INTEGER_NAMES = /^(page|limit|offset|count|number|size|year|month|day|per_page|page_size|max_results|top|skip)$/;

/** The parameter's type: declared, else from a documented value, else from its name. */
export function valueType(name: string, schema: Schema): ValueType | undefined {
  const declared = declaredType(schema);
  if (declared !== undefined) return declared;
  for (const key of ["default", "example", "const"]) {
    const value = schema[key];
    if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
    if (typeof value === "boolean") return "boolean";
    if (typeof value === "string") return "string";
  }
  const n = normalized(name);
  if (isIdLike(name) && !/uuid|slug|key|code/.test(n)) return undefined; // ids come as numbers or strings
  if (INTEGER_NAMES.test(n) || /_(number|count|limit)$/.test(n)) return "integer";
  if (/^(lat|latitude|lon|lng|longitude)$/.test(n)) return "number";
  return undefined;
}

/** The value in the parameter's type, or undefined when it cannot be expressed in it. */
export function coerce(value: unknown, type: ValueType | undefined): unknown {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case undefined:
      return value;
    case "string":
      if (typeof value === "string") return value;
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      return undefined;
    case "integer":
    case "number": {
      const n = typeof value === "number" ? value : typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
      if (!Number.isFinite(n)) return undefined;
      if (type === "integer" && !Number.isInteger(n)) return undefined;
      return n;
    }
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === "true" || value === "false") return value === "true";
      return undefined;
    case "array":
      return Array.isArray(value) ? value : [value];
    case "object":
      return isSchema(value) ? value : undefined;
  }
}
