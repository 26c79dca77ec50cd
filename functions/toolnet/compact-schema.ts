import canonicalize from "canonicalize";
import type { JsonSchema } from "../tools/definition";
import { localPointerTarget } from "../tools/json-pointer";

/**
 * The schema half of a compact tool view: one walk over a parameter's JSON Schema that applies
 * the named rules below. The result is only ever shown to a model; calls are still validated
 * against the full schema, so a rule may leave out detail but must never make a valid call look
 * invalid (no required property is removed, no type is changed).
 */

/** Rules applied inside parameter schemas, each named so a view can say which ones it used. */
export type SchemaRule =
  /** An `enum` longer than the limit becomes its type plus "one of N values, e.g. …". */
  | "long-enum-summarised"
  /** A local `$ref` is replaced by what it points to; `$defs` / `definitions` are not shown. */
  | "refs-inlined"
  /** A sub-schema met again (same content) is shown in full once, later as "same as <path>". */
  | "repeated-schema-inlined-once"
  /** Structure nested deeper than the limit is shown as a bare `object` (or `array`). */
  | "deep-nesting-as-object"
  /** Keywords that only document (examples, titles, `x-` extensions…) are left out. */
  | "annotations-dropped"
  /** Descriptions inside a schema are cut at a sentence boundary. */
  | "nested-descriptions-trimmed";

export interface SchemaLimits {
  /** Longest `enum` shown as it is. */
  readonly enumValues: number;
  /** How many values a summarised `enum` names as examples. */
  readonly enumExamples: number;
  /** Deepest nesting shown with its structure; a parameter's own schema is depth 0. */
  readonly depth: number;
  /** Longest description inside a schema. */
  readonly nestedDescriptionChars: number;
}

/** State shared by the walks over one tool's parameters (repeats are found across them). */
export interface SchemaWalk {
  readonly limits: SchemaLimits;
  readonly rules: Set<SchemaRule>;
  /** Canonical JSON of a sub-schema already shown → where it was shown. */
  readonly shown: Map<string, string>;
}

const ANNOTATIONS = new Set([
  "title",
  "example",
  "examples",
  "$comment",
  "$schema",
  "$id",
  "$anchor",
  "readOnly",
  "writeOnly",
  "deprecated",
  "externalDocs",
  "xml",
  "discriminator",
  "contentMediaType",
  "contentEncoding",
]);
/** Keywords holding one sub-schema that is a level deeper in the data. */
const NESTED_ONE = new Set(["items", "additionalProperties", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"]);
/** Keywords holding one sub-schema about the same value. */
const SAME_LEVEL_ONE = new Set(["not", "if", "then", "else"]);
/** Keywords holding a list of sub-schemas about the same value. */
const SAME_LEVEL_LIST = new Set(["allOf", "anyOf", "oneOf"]);
/** Keywords holding name → sub-schema maps one level deeper. */
const NESTED_MAP = new Set(["properties", "patternProperties", "dependentSchemas"]);
const DEFINITIONS = new Set(["$defs", "definitions"]);
const STRUCTURE = ["properties", "patternProperties", "items", "prefixItems", "additionalProperties", "anyOf", "oneOf", "allOf"];
/** Repeats shorter than this (in JSON characters) cost less than a "same as" note. */
const MIN_REPEAT_CHARS = 80;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** "e.g.", "i.e.", "etc.", "vs.", a lone initial: a period that does not end a sentence. */
const ABBREVIATION = /(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|no|cf)|(?:^|[\s(])[A-Za-z])\.$/i;

/** A text cut to `max` characters at the last sentence end, else at a word, marked with "…". */
export function cutAtSentence(text: string, max: number): string {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length <= max) return clean;
  let end = -1;
  // A sentence ends at . ! ? followed by a space and a capital, digit or quote ("e.g. foo" does not).
  for (const match of clean.matchAll(/[.!?](?= [A-Z0-9"'(])/g)) {
    if (match.index + 1 > max) break;
    if (ABBREVIATION.test(clean.slice(Math.max(0, match.index - 6), match.index + 1))) continue;
    end = match.index + 1;
  }
  if (end >= max * 0.3) return clean.slice(0, end);
  const head = clean.slice(0, max - 1);
  const space = head.lastIndexOf(" ");
  return `${(space > max * 0.5 ? head.slice(0, space) : head).replace(/[\s,;:.]+$/, "")}…`;
}

function hasStructure(node: Record<string, unknown>): boolean {
  return STRUCTURE.some((key) => node[key] !== undefined && node[key] !== true && node[key] !== false);
}

/** The type a bare stand-in should keep: array stays array, anything structured is an object. */
function bareType(node: Record<string, unknown>): string {
  return node.type === "array" || (node.type === undefined && node.items !== undefined) ? "array" : "object";
}

function enumNote(values: readonly unknown[], examples: number): string {
  const shown = values
    .slice(0, examples)
    .map((v) => JSON.stringify(v))
    .join(", ");
  return `One of ${values.length.toLocaleString("en-US")} values, e.g. ${shown}, …`;
}

function typeOfValues(values: readonly unknown[]): string | undefined {
  const types = new Set(values.map((v) => (v === null ? "null" : Number.isInteger(v) ? "integer" : typeof v)));
  if (types.size !== 1) return undefined;
  const [only] = types;
  return only === "string" || only === "integer" || only === "number" || only === "boolean" ? only : undefined;
}

/**
 * The compact form of one parameter schema. `path` names where it sits (the parameter name),
 * for "same as" notes; `walk` carries the limits, the rules used and the sub-schemas shown.
 */
export function compactSchema(schema: JsonSchema, path: string, walk: SchemaWalk): JsonSchema {
  const out = compactNode(schema, schema, 0, path, [], walk);
  return isRecord(out) ? out : {};
}

function compactNode(node: unknown, root: JsonSchema, depth: number, path: string, refs: readonly string[], walk: SchemaWalk): unknown {
  if (!isRecord(node)) return node; // boolean schemas, and anything malformed, as they are
  if (typeof node.$ref === "string") {
    walk.rules.add("refs-inlined");
    const ref = node.$ref;
    const target = refs.includes(ref) ? undefined : localPointerTarget(root, ref);
    const { $ref: _ref, ...siblings } = node;
    // A recursive or unresolvable reference cannot be inlined: it stands as a bare object.
    if (!isRecord(target)) return compactNode({ type: "object", ...siblings }, root, depth, path, refs, walk);
    return compactNode({ ...target, ...siblings }, root, depth, path, [...refs, ref], walk);
  }
  if (depth > walk.limits.depth && hasStructure(node)) {
    walk.rules.add("deep-nesting-as-object");
    return { type: bareType(node) };
  }
  if (depth > 0 && hasStructure(node)) {
    const key = canonicalize(node) ?? "";
    const first = walk.shown.get(key);
    if (first !== undefined && key.length >= MIN_REPEAT_CHARS) {
      walk.rules.add("repeated-schema-inlined-once");
      return { type: bareType(node), description: `Same as ${first}.` };
    }
    walk.shown.set(key, path);
  }
  const out: Record<string, unknown> = {};
  let note: string | undefined;
  for (const [key, value] of Object.entries(node)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) {
      walk.rules.add("annotations-dropped");
    } else if (DEFINITIONS.has(key)) {
      walk.rules.add("refs-inlined"); // whatever they define is inlined where it is used
    } else if (key === "enum" && Array.isArray(value) && value.length > walk.limits.enumValues) {
      walk.rules.add("long-enum-summarised");
      note = enumNote(value, walk.limits.enumExamples);
      if (node.type === undefined) {
        const type = typeOfValues(value);
        if (type !== undefined) out.type = type;
      }
    } else if (key === "description" && typeof value === "string") {
      if (depth === 0)
        out.description = value; // the parameter's own text: trimmed by the tool view
      else {
        const cut = cutAtSentence(value, walk.limits.nestedDescriptionChars);
        if (cut !== value) walk.rules.add("nested-descriptions-trimmed");
        out.description = cut;
      }
    } else if (NESTED_MAP.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, compactNode(sub, root, depth + 1, `${path}.${name}`, refs, walk)]));
    } else if (NESTED_ONE.has(key)) {
      out[key] = compactNode(value, root, depth + 1, key === "items" ? `${path}[]` : `${path}.${key}`, refs, walk);
    } else if (key === "prefixItems" && Array.isArray(value)) {
      out[key] = value.map((sub, i) => compactNode(sub, root, depth + 1, `${path}[${i}]`, refs, walk));
    } else if (SAME_LEVEL_ONE.has(key)) {
      out[key] = compactNode(value, root, depth, path, refs, walk);
    } else if (SAME_LEVEL_LIST.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => compactNode(sub, root, depth, path, refs, walk));
    } else {
      out[key] = value;
    }
  }
  if (note !== undefined) out.description = typeof out.description === "string" && out.description !== "" ? `${out.description} ${note}` : note;
  return out;
}
