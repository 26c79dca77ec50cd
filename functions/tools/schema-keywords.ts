import { JSON_TYPE_ALIASES } from "./type-aliases";

/**
 * Exported tool schemas must be valid JSON Schema 2020-12: strict validators (OpenAI's strict
 * mode, Ajv, our own @cfworker/json-schema) refuse a schema whose keywords have the wrong type.
 * Real documents write `"maximum": "50"`, `"default": "1003464"` on an integer, `"type": "file"`,
 * `"required": true` on a property, or a pattern that is not a valid regular expression. Each such
 * keyword is repaired in place when its meaning is plain (a numeric string becomes the number),
 * else dropped; either way with a warning naming the keyword, its value and where it is.
 */

type Json = Record<string, unknown>;
type Warn = (message: string) => void;

const NUMBER_KEYWORDS = ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf"];
const COUNT_KEYWORDS = ["maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains", "minContains"];
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_KEYWORDS = [
  "items",
  "additionalProperties",
  "not",
  "contains",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
];
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Identifiers mean nothing in a tool's schema, and a copied one repeats (Ajv refuses duplicates). */
const IDENTIFIER_KEYWORDS = ["$id", "$anchor", "$dynamicAnchor", "$schema"];
const STRING_KEYWORDS = ["format", "title", "description", "contentMediaType", "contentEncoding"];
const MAX_NODES = 100_000;

/** Repairs `schema` (a JSON Schema, copied, owned by the caller) in place. */
export function repairSchemaKeywords(schema: Json, where: string, warn: Warn): void {
  let nodes = 0;
  const stack: { node: Json; at: string }[] = [{ node: schema, at: "" }];
  while (stack.length > 0 && nodes < MAX_NODES) {
    const frame = stack.pop();
    if (frame === undefined) break;
    nodes += 1;
    const { node, at } = frame;
    const say = (keyword: string, what: string): void => warn(`${where}: schema keyword "${keyword}"${at === "" ? "" : ` at ${at}`} ${what}.`);
    repairNode(node, say);
    for (const keyword of SCHEMA_KEYWORDS) {
      const child = node[keyword];
      if (isRecord(child)) stack.push({ node: child, at: `${at}/${keyword}` });
      else if (keyword === "items" && Array.isArray(child)) {
        // Draft 4 tuples: `items: [a, b]` is `prefixItems` in 2020-12.
        delete node.items;
        node.prefixItems = child;
        say("items", "is a list (a tuple); renamed prefixItems");
        stack.push({ node, at });
      } else if (child !== undefined && typeof child !== "boolean") {
        delete node[keyword];
        say(keyword, `is ${preview(child)}, not a schema; dropped`);
      }
    }
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = node[keyword];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length === 0) {
        delete node[keyword];
        say(keyword, `is ${preview(list)}, not a non-empty list of schemas; dropped`);
        continue;
      }
      node[keyword] = list.filter((item) => isRecord(item) || typeof item === "boolean");
      list.forEach((item, index) => isRecord(item) && stack.push({ node: item, at: `${at}/${keyword}/${index}` }));
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = node[keyword];
      if (map === undefined) continue;
      if (!isRecord(map)) {
        delete node[keyword];
        say(keyword, `is ${preview(map)}, not a map of schemas; dropped`);
        continue;
      }
      for (const [name, child] of Object.entries(map)) {
        if (isRecord(child)) stack.push({ node: child, at: `${at}/${keyword}/${name}` });
        else if (typeof child !== "boolean") delete map[name];
      }
    }
  }
}

function repairNode(node: Json, say: (keyword: string, what: string) => void): void {
  for (const keyword of IDENTIFIER_KEYWORDS) delete node[keyword];
  hoistPropertyRequiredFlags(node, say);
  nullableAsType(node);
  for (const keyword of NUMBER_KEYWORDS) repairNumber(node, keyword, false, say);
  for (const keyword of COUNT_KEYWORDS) repairNumber(node, keyword, true, say);
  repairType(node, say);
  if (node.required !== undefined && !(Array.isArray(node.required) && node.required.every((r) => typeof r === "string"))) {
    say("required", `is ${preview(node.required)}, not a list of property names; dropped`);
    delete node.required;
  } else if (Array.isArray(node.required) && new Set(node.required).size !== node.required.length) {
    node.required = [...new Set(node.required)];
  }
  if (node.enum !== undefined && !Array.isArray(node.enum)) {
    say("enum", `is ${preview(node.enum)}, not a list; dropped`);
    delete node.enum;
  }
  for (const keyword of STRING_KEYWORDS) {
    if (node[keyword] !== undefined && typeof node[keyword] !== "string") {
      say(keyword, `is ${preview(node[keyword])}, not a string; dropped`);
      delete node[keyword];
    }
  }
  if (node.pattern !== undefined && !isUnicodePattern(node.pattern)) {
    say("pattern", `is ${preview(node.pattern)}, not a valid regular expression (Unicode mode); dropped`);
    delete node.pattern;
  }
  if (node.uniqueItems !== undefined && typeof node.uniqueItems !== "boolean") {
    say("uniqueItems", `is ${preview(node.uniqueItems)}, not a boolean; dropped`);
    delete node.uniqueItems;
  }
  repairNumericValues(node, say);
}

/**
 * Swagger-era habit: `required: true` (or `"true"`) on a property instead of a name in the
 * object's `required` list; moved there, so the property's schema is valid.
 */
function hoistPropertyRequiredFlags(node: Json, say: (keyword: string, what: string) => void): void {
  if (!isRecord(node.properties)) return;
  for (const [name, property] of Object.entries(node.properties)) {
    if (!isRecord(property) || property.required === undefined || Array.isArray(property.required)) continue;
    const flag = property.required;
    delete property.required;
    const required = flag === true || (typeof flag === "string" && flag.trim().toLowerCase() === "true");
    if (required) node.required = [...(Array.isArray(node.required) ? node.required : []), name];
    say("required", `of property ${name} is ${preview(flag)}, not a list of names; read as ${required ? "a required property" : "optional"}`);
  }
}

/** OpenAPI 3.0's `nullable` (left where the upgrade to 3.1 missed it) as 2020-12 says it: a `"null"` type. */
function nullableAsType(node: Json): void {
  if (!("nullable" in node)) return;
  const nullable = node.nullable === true;
  delete node.nullable;
  if (!nullable) return;
  if (typeof node.type === "string" && node.type !== "null") node.type = [node.type, "null"];
  else if (Array.isArray(node.type) && !node.type.includes("null")) node.type = [...node.type, "null"];
}

/** `maximum: "50"` → 50; counts must be whole and not negative; anything else is dropped. */
function repairNumber(node: Json, keyword: string, count: boolean, say: (keyword: string, what: string) => void): void {
  const value = node[keyword];
  if (value === undefined) return;
  const valid = (n: number): boolean => Number.isFinite(n) && (!count || (Number.isInteger(n) && n >= 0)) && (keyword !== "multipleOf" || n > 0);
  if (typeof value === "number" && valid(value)) return;
  const parsed = typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  if (valid(parsed)) {
    node[keyword] = parsed;
    say(keyword, `is the string ${preview(value)}; read as the number ${String(parsed)}`);
    return;
  }
  delete node[keyword];
  say(keyword, `is ${preview(value)}, not ${count ? "a whole number ≥ 0" : "a number"}; dropped`);
}

function repairType(node: Json, say: (keyword: string, what: string) => void): void {
  const type = node.type;
  if (type === undefined) return;
  const names = (Array.isArray(type) ? type : [type]).map((t) => (typeof t === "string" ? JSON_TYPE_ALIASES[t.trim().toLowerCase()] : undefined));
  const known = [...new Set(names.filter((t): t is NonNullable<typeof t> => t !== undefined))];
  const same = Array.isArray(type) ? type.length > 0 && known.length === type.length && known.every((t, i) => t === type[i]) : known[0] === type;
  if (same) return;
  if (known.length === 0) {
    delete node.type;
    say("type", `is ${preview(type)}, not a JSON Schema type; dropped (any type)`);
    return;
  }
  node.type = Array.isArray(type) ? known : known[0];
  say("type", `is ${preview(type)}; read as ${JSON.stringify(node.type)}`);
}

/** `default` / `enum` / `const` written as numeric strings on a number or integer schema. */
function repairNumericValues(node: Json, say: (keyword: string, what: string) => void): void {
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes("string") || !(types.includes("integer") || types.includes("number"))) return;
  const integer = !types.includes("number");
  const convert = (value: unknown): number | undefined => {
    if (typeof value !== "string" || value.trim() === "") return undefined;
    const n = Number(value);
    return Number.isFinite(n) && (!integer || Number.isInteger(n)) ? n : undefined;
  };
  for (const keyword of ["default", "const"]) {
    const value = node[keyword];
    if (typeof value !== "string") continue;
    const n = convert(value);
    if (n === undefined) {
      delete node[keyword];
      say(keyword, `is the string ${preview(value)} on a ${integer ? "integer" : "number"} schema; dropped`);
    } else {
      node[keyword] = n;
      say(keyword, `is the string ${preview(value)}; read as the number ${String(n)}`);
    }
  }
  if (Array.isArray(node.enum) && node.enum.some((v) => typeof v === "string")) {
    const converted = node.enum.map((v) => (typeof v === "string" ? convert(v) : v));
    if (converted.every((v) => v !== undefined)) {
      node.enum = converted;
      say("enum", "holds numbers written as strings; read as numbers");
    } else {
      delete node.enum;
      say("enum", `holds strings on a ${integer ? "integer" : "number"} schema; dropped`);
    }
  }
}

function isUnicodePattern(pattern: unknown): boolean {
  if (typeof pattern !== "string") return false;
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
