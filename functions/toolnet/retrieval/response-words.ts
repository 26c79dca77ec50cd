import type { ToolDefinition } from "../../tools/definition";

/**
 * Words for what a tool returns, from its own documentation: the field names of its response
 * schema (a task asks for a "birthday"; the tool returns `birthday`) and the short categorical
 * values of its example response (`"job": "Director"`). Identifiers, numbers, URLs, dates and
 * long text are left out: they name one record, not what the tool is for.
 */

const MAX_WORDS = 300;
const MAX_DEPTH = 6;
const MAX_VALUE_CHARS = 30;
// A categorical value: a few plain words, no digits or path/URL punctuation.
const CATEGORICAL = /^[A-Za-z][A-Za-z &'-]*$/;

function schemaFieldNames(schema: unknown, depth: number, out: Set<string>): void {
  if (depth > MAX_DEPTH || typeof schema !== "object" || schema === null || out.size >= MAX_WORDS) return;
  const s = schema as Record<string, unknown>;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const variants = s[key];
    if (Array.isArray(variants)) for (const v of variants) schemaFieldNames(v, depth + 1, out);
  }
  if (s.items !== undefined) schemaFieldNames(s.items, depth + 1, out);
  if (typeof s.properties === "object" && s.properties !== null) {
    for (const [name, child] of Object.entries(s.properties)) {
      out.add(name);
      schemaFieldNames(child, depth + 1, out);
    }
  }
  if (Array.isArray(s.enum)) for (const value of s.enum) if (typeof value === "string" && CATEGORICAL.test(value)) out.add(value);
}

function exampleWords(value: unknown, depth: number, out: Set<string>): void {
  if (depth > MAX_DEPTH || out.size >= MAX_WORDS) return;
  if (typeof value === "string") {
    if (value.length <= MAX_VALUE_CHARS && CATEGORICAL.test(value)) out.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value.slice(0, 50)) exampleWords(item, depth + 1, out);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      out.add(key);
      exampleWords(child, depth + 1, out);
    }
  }
}

/** Field names and categorical values of the tool's documented response, space-separated. */
export function responseWords(def: Pick<ToolDefinition, "responseSchema" | "responseExample">): string {
  const words = new Set<string>();
  schemaFieldNames(def.responseSchema, 0, words);
  exampleWords(def.responseExample, 0, words);
  return [...words].slice(0, MAX_WORDS).join(" ");
}
