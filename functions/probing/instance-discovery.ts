import type { ToolDefinition, ToolParameter } from "../tools/definition";
import type { SampleValue } from "./protocol";
import { JSON_TYPE_ALIASES } from "../tools/type-aliases";
import { CONTAINER_WORDS, ID_WORDS, isIdLike, nameWords, normalized, overlap, parameterEntity } from "./vocabulary";

export { nameWords } from "./vocabulary";

/**
 * Instance discovery (§4.1), zero-token path: argument sets for a tool proposed from its
 * parameter schemas alone, and from what already-probed tools returned (data flow: a required
 * `person_id` is filled from the `results[].id` of a probed `/search/person`). The paper asks the
 * model for every instance; most REST parameters document enough (enum, default, example, format,
 * a telling name) that a plain rule finds a working call for free, so the model is kept for the
 * tools where these rules fail. Everything here is deterministic.
 */

/** Where a proposed value came from, strongest first. */
export type ValueSource = "const" | "enum" | "default" | "example" | "description" | "data_flow" | "format" | "name" | "placeholder";

/** A probed tool's output, as data-flow input for other tools. */
export interface ProbedOutput {
  tool: string;
  /** Path template (`/search/person`) or other words naming what the tool returns. */
  path?: string;
  /** Parameter names of the producing tool: entities it takes as input are not what it returns. */
  inputs?: readonly string[];
  samples: readonly SampleValue[];
}

/** A value proposed for one parameter, with a confidence in [0, 1]. */
export interface ValueCandidate {
  value: unknown;
  source: ValueSource;
  score: number;
  /** For data flow: which probed tool returned the value, and where in its response. */
  from?: { tool: string; path: string };
}

export interface DataFlowBinding {
  parameter: string;
  tool: string;
  /** Concrete path in the producing tool's response, e.g. `results[0].id`. */
  path: string;
  value: unknown;
}

/** One proposed argument set; `score` is its weakest required value's confidence. */
export interface ArgumentSet {
  arguments: Record<string, unknown>;
  score: number;
  sources: Record<string, ValueSource>;
  dataFlow: DataFlowBinding[];
}

export interface FillContext {
  /** Outputs of tools already probed; empty when a tool is probed alone. */
  outputs?: readonly ProbedOutput[];
  /** How many argument sets to return. Default 3. */
  maxCandidates?: number;
}

const DEFAULT_MAX_CANDIDATES = 3;
/** Below this a data-flow match is more likely wrong than right. */
const MIN_DATA_FLOW_SCORE = 0.3;
const MAX_VALUE_DEPTH = 3;

// ---------------------------------------------------------------------------------------------
// Samples: the scalars of a probed response, kept so that later tools can use them.

export interface ObserveOptions {
  /** Total values kept. Default 150. */
  maxValues?: number;
  /** Items looked at per array. Default 3. */
  perArray?: number;
  /** Default 6. */
  maxDepth?: number;
  /** Longer strings are not kept: they are text, not arguments. Default 200. */
  maxStringLength?: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function pathKey(prefix: string, key: string): string {
  if (IDENTIFIER.test(key)) return prefix === "" ? key : `${prefix}.${key}`;
  return `${prefix}[${JSON.stringify(key)}]`;
}

/** Scalars of a response with their concrete paths (`results[0].id`), breadth-first, capped. */
export function observeValues(response: unknown, options: ObserveOptions = {}): SampleValue[] {
  const maxValues = options.maxValues ?? 150;
  const perArray = options.perArray ?? 3;
  const maxDepth = options.maxDepth ?? 6;
  const maxString = options.maxStringLength ?? 200;
  const out: SampleValue[] = [];
  // Breadth-first: top-level fields (the ones other tools usually need) are kept before deep ones.
  let level: { path: string; value: unknown }[] = [{ path: "", value: response }];
  for (let depth = 0; depth <= maxDepth && level.length > 0 && out.length < maxValues; depth++) {
    const next: { path: string; value: unknown }[] = [];
    for (const { path, value } of level) {
      if (out.length >= maxValues) break;
      if (typeof value === "string") {
        if (value !== "" && value.length <= maxString) out.push({ path, value });
      } else if (typeof value === "number") {
        if (Number.isFinite(value)) out.push({ path, value });
      } else if (typeof value === "boolean") {
        out.push({ path, value });
      } else if (Array.isArray(value)) {
        value.slice(0, perArray).forEach((item, i) => next.push({ path: `${path}[${i}]`, value: item }));
      } else if (typeof value === "object" && value !== null) {
        for (const [key, child] of Object.entries(value)) next.push({ path: pathKey(path, key), value: child });
      }
    }
    level = next;
  }
  return out;
}

interface PathParts {
  /** Keys from the root to the leaf, array indices dropped. */
  keys: string[];
  /** Array indices on the way (0 for the first item). */
  indices: number[];
}

function splitPath(path: string): PathParts {
  const keys: string[] = [];
  const indices: number[] = [];
  for (const match of path.matchAll(/\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/g)) {
    if (match[1] !== undefined) indices.push(Number(match[1]));
    else if (match[2] !== undefined) keys.push(String(JSON.parse(match[2])));
    else if (match[3] !== undefined) keys.push(match[3]);
  }
  return { keys, indices };
}

// ---------------------------------------------------------------------------------------------
// Schemas: the few JSON Schema facts the rules read.

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
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

type ValueType = "string" | "integer" | "number" | "boolean" | "array" | "object";

function declaredType(schema: Schema): ValueType | undefined {
  const type = schema["type"];
  const first = Array.isArray(type) ? type.find((t) => typeof t === "string" && t !== "null") : type;
  if (typeof first !== "string") return undefined;
  const alias = JSON_TYPE_ALIASES[first.toLowerCase()];
  return alias === "null" ? undefined : alias;
}

const INTEGER_NAMES = /^(page|limit|offset|count|number|size|year|month|day|per_page|page_size|max_results|top|skip)$/;

/** The parameter's type: declared, else from a documented value, else from its name. */
function valueType(name: string, schema: Schema): ValueType | undefined {
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
function coerce(value: unknown, type: ValueType | undefined): unknown {
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

// ---------------------------------------------------------------------------------------------
// Value rules, strongest first.

/** Values the schema itself documents: const, default, example(s), and enum (first non-empty). */
function documentedValues(schema: Schema, withEnum: boolean): ValueCandidate[] {
  const out: ValueCandidate[] = [];
  if (schema["const"] !== undefined) out.push({ value: schema["const"], source: "const", score: 1 });
  if (schema["default"] !== undefined && schema["default"] !== "") out.push({ value: schema["default"], source: "default", score: 0.95 });
  if (schema["example"] !== undefined) out.push({ value: schema["example"], source: "example", score: 0.9 });
  const examples = schema["examples"];
  if (Array.isArray(examples)) for (const value of examples.slice(0, 3)) out.push({ value, source: "example", score: 0.9 });
  else if (isSchema(examples)) {
    // OpenAPI's named examples map: { name: { value } }.
    for (const named of Object.values(examples).slice(0, 3))
      if (isSchema(named) && named["value"] !== undefined) out.push({ value: named["value"], source: "example", score: 0.9 });
  }
  const values = schema["enum"];
  if (withEnum && Array.isArray(values)) {
    // TMDB's sort_by enum starts with "": the first value that says something.
    const first = values.find((v) => v !== "" && v !== null);
    if (first !== undefined) out.push({ value: first, source: "enum", score: 0.95 });
  }
  return out;
}

const DESCRIPTION_PATTERNS: RegExp[] = [
  /\(\s*["'`]([^"'`]{1,60})["'`]\s*\)/, // The food to get a pairing for ("steak")
  /\be\.g\.?,?\s*:?\s*["'`]?([^"'`,;()\n]{1,60}?)["'`]?(?=\s*(?:[,;)\n]|\.(?:\s|$)|\s+or\s|$))/i,
  /\bfor example,?\s*:?\s*["'`]?([^"'`,;()\n]{1,60}?)["'`]?(?=\s*(?:[,;)\n]|\.(?:\s|$)|\s+or\s|$))/i,
  /\b(?:possible|available|allowed|valid) (?:values|options|languages|units)? ?(?:are|is)\s*:?\s*["'`]?([A-Za-z0-9_.\- ]{1,40}?)["'`]?(?=\s*[,;(\n]|\.(?:\s|$)|$)/i,
  /\bone of(?: the following)?\s*:?\s*["'`]?([A-Za-z0-9_.\- ]{1,40}?)["'`]?(?=\s*[,;(\n]|\.(?:\s|$)|$)/i,
  /\bin (?:the )?format:?\s*["'`]?([^"'`,;\s]{1,40})/i,
];

/** A sample value the parameter's description spells out ("e.g. merlot, riesling"). */
function descriptionValue(description: string | undefined): ValueCandidate[] {
  if (description === undefined) return [];
  for (const pattern of DESCRIPTION_PATTERNS) {
    const found = pattern.exec(description)?.[1]?.trim();
    if (found !== undefined && found !== "") return [{ value: found, source: "description", score: 0.7 }];
  }
  return [];
}

const FORMAT_SAMPLES: Record<string, unknown> = {
  date: "2024-01-15",
  "date-time": "2024-01-15T12:00:00Z",
  time: "12:00:00",
  email: "user@example.com",
  uri: "https://example.com",
  url: "https://example.com",
  iri: "https://example.com",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
  byte: "dGVzdA==",
};

function formatValue(schema: Schema): ValueCandidate[] {
  const format = schema["format"];
  if (typeof format !== "string") return [];
  const sample = FORMAT_SAMPLES[format.toLowerCase()];
  return sample === undefined ? [] : [{ value: sample, source: "format", score: 0.75 }];
}

/** A plausible search word for the thing a tool is about; the first rule that matches wins. */
const SEARCH_WORDS: [RegExp, string][] = [
  [/\b(person|people|actor|actress|director|celebrit\w*|cast)\b/, "Tom Hanks"],
  [/\b(movie|film)s?\b/, "Inception"],
  [/\b(tv|show|series|episode)s?\b/, "Breaking Bad"],
  [/\b(compan(y|ies)|brand|organi[sz]ation)\b/, "Pixar"],
  [/\bcollections?\b/, "Star Wars"],
  [/\b(places?|city|cities|location|town|village|address)\b/, "London"],
  [/\bwines?\b/, "merlot"],
  [/\b(recipes?|dish(es)?|menu|meals?)\b/, "pasta"],
  [/\b(ingredients?|foods?|grocery|groceries|products?)\b/, "apple"],
  [/\b(games?|videogames?)\b/, "Zelda"],
  [/\b(artists?|albums?|tracks?|songs?|music|playlists?)\b/, "Beatles"],
  [/\b(books?|novels?|authors?)\b/, "Dune"],
  [/\bkeywords?\b/, "space"],
  [/\b(weather|forecast)\b/, "London"],
  [/\b(users?|accounts?)\b/, "alice"],
];

const SEARCH_PARAMETER = /^(q|query|search|search_query|search_term|term|keyword|keywords|text|prefix|name|title)$/;

function searchWord(def: ToolDefinition, param: ToolParameter): string {
  // The tool's path and name say most precisely what it searches; then the descriptions.
  const texts = [`${def.path} ${def.name}`, param.description ?? "", `${def.summary ?? ""} ${def.description}`];
  for (const text of texts) {
    const flat = text
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .replace(/[_/{}-]/g, " ")
      .toLowerCase();
    for (const [pattern, word] of SEARCH_WORDS) if (pattern.test(flat)) return word;
  }
  return "test";
}

/** Values suggested by the parameter's name alone (`page` → 1, `language` → "en"). */
function nameValues(def: ToolDefinition, param: ToolParameter, type: ValueType | undefined): ValueCandidate[] {
  const n = normalized(param.name);
  const words = new Set(nameWords(param.name));
  const pick = (value: unknown, score = 0.5): ValueCandidate[] => [{ value, source: "name", score }];
  if (SEARCH_PARAMETER.test(n) && type !== "integer" && type !== "number") return pick(searchWord(def, param));
  if (/^(season|episode|chapter|volume|part|track)_number$/.test(n)) return pick(1);
  if (n === "page") return pick(1);
  if (/^(limit|per_page|page_size|size|count|number|max_results|top|n)$/.test(n)) return pick(10);
  if (/^(offset|skip|start)$/.test(n) && type !== "string") return pick(0);
  if (/^(lat|latitude)$/.test(n)) return pick(type === "string" ? "51.5074" : 51.5074);
  if (/^(lon|lng|long|longitude)$/.test(n)) return pick(type === "string" ? "-0.1278" : -0.1278);
  if (words.has("language") || words.has("lang")) return pick("en");
  if (words.has("locale")) return pick("en-US");
  if (words.has("country") || words.has("region") || words.has("market")) return pick("US");
  if (words.has("currency")) return pick("USD");
  if (words.has("timezone") || n === "tz") return pick("UTC");
  if (words.has("year")) return pick(type === "string" ? "2020" : 2020);
  if (words.has("email")) return pick("user@example.com");
  if (words.has("url") || words.has("uri") || words.has("website") || words.has("homepage")) return pick("https://example.com");
  if (words.has("phone")) return pick("+15555550100");
  if (words.has("unit")) return pick("metric", 0.4);
  if (words.has("date") || words.has("day") || /^(from|to|since|until|start|end|birthday)$/.test(n)) {
    return pick(words.has("time") ? "2024-01-15T12:00:00Z" : "2024-01-15");
  }
  return [];
}

/** The last resort for a required parameter: a value of the right type that says nothing. */
function placeholder(def: ToolDefinition, param: ToolParameter, schema: Schema, type: ValueType | undefined, depth: number): ValueCandidate[] {
  const minimum = typeof schema["minimum"] === "number" ? schema["minimum"] : undefined;
  const maximum = typeof schema["maximum"] === "number" ? schema["maximum"] : undefined;
  const number = minimum ?? (maximum !== undefined && maximum < 1 ? maximum : 1);
  const value = (() => {
    switch (type) {
      case "integer":
      case "number":
        return number;
      case "boolean":
        return false;
      case "array": {
        const item = valueCandidates(def, { name: param.name, in: param.in, required: true, schema: effectiveSchema(schema["items"]) }, [], depth + 1)[0];
        return item === undefined ? [] : [item.value];
      }
      case "object":
        return objectValue(def, schema, depth);
      case "string":
        return isIdLike(param.name) ? "1" : "test";
      case undefined:
        return isIdLike(param.name) ? 1 : "test";
    }
  })();
  return value === undefined ? [] : [{ value, source: "placeholder", score: 0.1 }];
}

/** A body object: its required properties (and documented optional ones), each by the same rules. */
function objectValue(def: ToolDefinition, schema: Schema, depth: number): Record<string, unknown> | undefined {
  if (depth >= MAX_VALUE_DEPTH) return {};
  const properties = isSchema(schema["properties"]) ? schema["properties"] : {};
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : []);
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(properties)) {
    const param: ToolParameter = { name, in: "body", required: required.has(name), schema: effectiveSchema(child) };
    const best = valueCandidates(def, param, [], depth + 1)[0];
    if (best !== undefined) Object.defineProperty(out, name, { value: best.value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Data flow: values other tools returned.

interface Producer {
  /** Words of the producing tool's name and path. */
  words: Set<string>;
  /** Entity words of its inputs: what it is about, rather than what it lists. */
  inputs: Set<string>;
  /**
   * What a top-level `id` of its response is the id of, when its path has parameters: the entity
   * of the last one (`/movie/{movie_id}/reviews` → movie), or nothing known (`[]`) when the last
   * one is not an identifier.
   */
  echoes: readonly string[] | undefined;
  /** Its path, for what it lists after an input (`/users/{user_id}/playlists` → playlist). */
  path: string;
}

/** What a list under an input can hold when its path names no other record: more of the input's kind. */
const SAME_KIND_WORDS = new Set(["similar", "recommendation", "related", "alike", "more", "other"]);

function producerOf(output: ProbedOutput): Producer {
  const inputs = new Set((output.inputs ?? []).flatMap((name) => nameWords(name).filter((w) => !ID_WORDS.has(w))));
  const words = new Set([...nameWords(output.tool), ...nameWords(output.path ?? "")]);
  const placeholders = [...(output.path ?? "").matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");
  const last = placeholders[placeholders.length - 1];
  // `/tv/{tv_id}/season/{season_number}`: the top-level id is the season's, of unknown name.
  const echoes = last === undefined ? undefined : isIdLike(last) ? parameterEntity({ path: output.path ?? "" }, last) : [];
  return { words, inputs, echoes, path: output.path ?? "" };
}

/** Words of `path` after the last placeholder that names one of `entity` (`/tv/{tv_id}/season/{n}` and tv → season). */
function listedAfter(path: string, entity: readonly string[]): string[] {
  const segments = path.split("/");
  let at = -1;
  segments.forEach((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name !== undefined && nameWords(name).some((w) => entity.includes(w))) at = i;
  });
  return segments
    .slice(at + 1)
    .filter((segment) => !segment.startsWith("{"))
    .flatMap((segment) => nameWords(segment));
}

/**
 * How likely a sampled value is the argument a parameter wants, in [0, 1]. A field named like the
 * parameter (`place_id` for `place_id`) is strong; for an id parameter, a bare `id` field counts
 * when the object that holds it is the parameter's entity: named by the nearest non-container key
 * (`genres[].id` → genre, `production_companies[].id` → company), or else by the producing tool
 * (`/search/person` → `results[].id` is a person's id). The top-level `id` of a tool that takes
 * an id in its path is that input echoed (`/movie/{movie_id}/reviews` → a movie id, not a review
 * id), and an entity the producer takes as input names what it is about, not what it lists:
 * `/person/{person_id}/movie_credits` lists movies, not persons, and `/users/{user_id}/playlists`
 * lists playlists, so its `items[].id` never fills a `user_id`.
 */
function dataFlowScore(def: Pick<ToolDefinition, "path">, param: ToolParameter, sample: SampleValue, producer: Producer): number {
  const { keys, indices } = splitPath(sample.path);
  const leaf = keys[keys.length - 1];
  if (leaf === undefined) return 0;
  // Later items of a list, and deeper lists, are a little less likely to be the intended one.
  const position = 0.98 ** indices.reduce((a, b) => a + b, 0) * 0.9 ** Math.max(0, indices.length - 1);
  const paramName = normalized(param.name);
  const idParam = isIdLike(param.name);
  if (normalized(leaf) === paramName && !(idParam && nameWords(param.name).every((w) => ID_WORDS.has(w)))) return 0.9 * position;
  if (!idParam) return 0;
  const leafWords = nameWords(leaf);
  if (!leafWords.every((w) => ID_WORDS.has(w))) return 0;
  const entity = parameterEntity(def, param.name);
  if (entity.length === 0) return 0.3 * position;
  const parents = keys.slice(0, -1);
  if (parents.length === 0 && indices.length === 0 && producer.echoes !== undefined) {
    // An echo is a valid value, but a poor chain: the producer needed that very id as input.
    return overlap(entity, new Set(producer.echoes)) === 1 ? 0.5 : 0;
  }
  for (const key of [...parents].reverse()) {
    const words = nameWords(key);
    if (words.every((w) => CONTAINER_WORDS.has(w))) continue;
    // The nearest named owner decides: a `known_for[].id` is not a person's id.
    return overlap(entity, new Set(words)) === 1 ? 0.85 * position : 0;
  }
  const matched = entity.filter((w) => producer.words.has(w));
  if (matched.length === 0) return 0;
  if (!matched.every((w) => producer.inputs.has(w))) return 0.8 * (matched.length / entity.length) * position;
  // Listed under an input of that very kind: the same kind only when the path says so
  // (`/movie/{movie_id}/similar`); `/users/{user_id}/playlists` lists playlists, not users.
  const sameKind = listedAfter(producer.path, matched).every((w) => SAME_KIND_WORDS.has(w) || entity.includes(w));
  return sameKind ? 0.8 * (matched.length / entity.length) * 0.6 * position : 0;
}

/** Values for one parameter from probed outputs, best first. */
export function dataFlowCandidates(def: Pick<ToolDefinition, "path">, param: ToolParameter, outputs: readonly ProbedOutput[]): ValueCandidate[] {
  const type = valueType(param.name, effectiveSchema(param.schema));
  if (type === "boolean" || type === "object" || type === "array") return [];
  const out: ValueCandidate[] = [];
  for (const output of outputs) {
    const producer = producerOf(output);
    for (const sample of output.samples) {
      if (typeof sample.value === "boolean") continue;
      const value = coerce(sample.value, type);
      if (value === undefined) continue;
      const score = dataFlowScore(def, param, sample, producer);
      if (score >= MIN_DATA_FLOW_SCORE) out.push({ value, source: "data_flow", score, from: { tool: output.tool, path: sample.path } });
    }
  }
  return rank(out);
}

// ---------------------------------------------------------------------------------------------
// Putting it together.

function rank(candidates: ValueCandidate[]): ValueCandidate[] {
  const best = new Map<string, ValueCandidate>();
  for (const candidate of candidates) {
    const key = JSON.stringify(candidate.value);
    const known = best.get(key);
    if (known === undefined || candidate.score > known.score) best.set(key, candidate);
  }
  // Stable: equal scores keep rule order.
  return [...best.values()].sort((a, b) => b.score - a.score);
}

/** Every value the rules propose for one parameter, coerced to its type, best first. */
function valueCandidates(def: ToolDefinition, param: ToolParameter, outputs: readonly ProbedOutput[], depth = 0): ValueCandidate[] {
  const schema = effectiveSchema(param.schema);
  const type = valueType(param.name, schema);
  const raw: ValueCandidate[] = documentedValues(schema, param.required);
  // Optional parameters take data flow only for identifiers (`place_id`): an `amount` found in some
  // other response is no better than leaving it out.
  if (outputs.length > 0 && (param.required || isIdLike(param.name))) raw.push(...dataFlowCandidates(def, param, outputs));
  if (param.required) {
    // Optional parameters get the schema's own values (and strong data flow) only: a guessed
    // value, even one the description mentions ("possible values are: pescetarian, …"), can
    // only narrow the answer or break the call.
    raw.push(...descriptionValue(param.description), ...formatValue(schema), ...nameValues(def, param, type));
    raw.push(...placeholder(def, param, schema, type, depth));
  }
  const typed: ValueCandidate[] = [];
  for (const candidate of raw) {
    const value = coerce(candidate.value, type);
    if (value !== undefined) typed.push({ ...candidate, value });
  }
  return rank(typed);
}

/** Candidate values of every parameter of a tool, best first (for display and tests). */
export function parameterCandidates(def: ToolDefinition, context: FillContext = {}): Map<string, ValueCandidate[]> {
  const outputs = context.outputs ?? [];
  return new Map(def.parameters.map((p) => [p.name, valueCandidates(def, p, outputs)]));
}

interface Choice {
  param: ToolParameter;
  candidate: ValueCandidate;
}

/** A parameter with its candidate values, best first (there is at least one). */
interface Ranked {
  param: ToolParameter;
  values: ValueCandidate[];
  best: ValueCandidate;
}

function toSet(choices: Choice[]): ArgumentSet {
  const args: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const dataFlow: DataFlowBinding[] = [];
  let score = 1;
  for (const { param, candidate } of choices) {
    // defineProperty: parameter names are caller text, and `__proto__` must stay a plain key.
    Object.defineProperty(args, param.name, { value: candidate.value, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(sources, param.name, { value: candidate.source, enumerable: true, writable: true, configurable: true });
    if (candidate.from !== undefined) dataFlow.push({ parameter: param.name, tool: candidate.from.tool, path: candidate.from.path, value: candidate.value });
    if (param.required) score = Math.min(score, candidate.score);
  }
  // Values from one response belong together (a show and ITS season); each extra producer costs a little.
  const producers = new Set(dataFlow.map((d) => d.tool)).size;
  return { arguments: args, score: score * 0.97 ** Math.max(0, producers - 1), sources, dataFlow };
}

/**
 * Ranked argument sets for a tool, without a model. Candidates: every required parameter's best
 * value with every optional parameter's documented value; the same with required parameters only
 * (an optional default can break a call); one set per runner-up value of a required parameter;
 * and, with `outputs`, one set per producing tool (values of one response belong together) and
 * one with strong data-flow values for optional identifiers (`place_id` from `/find_places`).
 * Sets are ranked by their weakest required value, distinct, at most `maxCandidates`.
 */
export function fillArguments(def: ToolDefinition, context: FillContext = {}): ArgumentSet[] {
  const outputs = context.outputs ?? [];
  const max = Math.max(1, context.maxCandidates ?? DEFAULT_MAX_CANDIDATES);
  const perParam: Ranked[] = [];
  for (const param of def.parameters) {
    const values = valueCandidates(def, param, outputs);
    const best = values[0];
    // A required parameter without any value cannot be called at all; the placeholder rule makes that rare.
    if (best === undefined) {
      if (param.required) return [];
      continue;
    }
    perParam.push({ param, values, best });
  }
  const required = perParam.filter((p) => p.param.required);
  const optional = perParam.filter((p) => !p.param.required);
  const bestOf = (p: Ranked): Choice => ({ param: p.param, candidate: p.best });
  const documentedOptional = optional.filter((p) => p.values[0]?.source !== "data_flow").map(bestOf);
  const flowOptional = optional
    .filter((p) => isIdLike(p.param.name))
    .map((p) => ({ param: p.param, candidate: p.values.find((v) => v.source === "data_flow" && v.score >= 0.8) }))
    .filter((c): c is Choice => c.candidate !== undefined);
  const base = required.map(bestOf);

  const sets: ArgumentSet[] = [toSet([...base, ...documentedOptional])];
  if (documentedOptional.length > 0) {
    const minimal = toSet(base);
    sets.push({ ...minimal, score: minimal.score * 0.9 });
  }
  if (flowOptional.length > 0) sets.push(toSet([...base, ...documentedOptional, ...flowOptional]));
  for (const [i, p] of required.entries()) {
    for (const alternative of p.values.slice(1, 1 + max)) {
      const choices = base.map((c, j) => (j === i ? { param: p.param, candidate: alternative } : c));
      sets.push(toSet([...choices, ...documentedOptional]));
    }
  }
  // One set per producing tool: every parameter it can fill, filled from its response.
  const producers = new Set(perParam.flatMap((p) => p.values.flatMap((v) => (v.from === undefined ? [] : [v.from.tool]))));
  for (const tool of producers) {
    const fromTool = (p: Ranked): ValueCandidate | undefined => p.values.find((v) => v.from?.tool === tool);
    const choices = required.map((p) => {
      const own = fromTool(p);
      return own === undefined ? bestOf(p) : { param: p.param, candidate: own };
    });
    const optionalChoices = optional
      .map((p) => {
        const own = fromTool(p);
        const strong = own !== undefined && own.score >= 0.8 && isIdLike(p.param.name);
        return strong ? { param: p.param, candidate: own } : p.values[0]?.source === "data_flow" ? undefined : bestOf(p);
      })
      .filter((c): c is Choice => c !== undefined);
    sets.push(toSet([...choices, ...optionalChoices]));
  }
  const seen = new Set<string>();
  return sets
    .map((set, order) => ({ set, order }))
    .sort((a, b) => b.set.score - a.set.score || a.order - b.order)
    .map(({ set }) => set)
    .filter((set) => {
      const key = JSON.stringify(set.arguments);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, max);
}

/** Whether a response shows the tool's output shape, rather than an empty answer. */
export function isInformative(response: unknown): boolean {
  if (response === null || response === undefined || response === "") return false;
  if (Array.isArray(response)) return response.length > 0;
  if (typeof response !== "object") return true;
  const values = Object.values(response);
  if (values.length === 0) return false;
  // `{page: 1, results: [], total_results: 0}`: a search that found nothing documents nothing.
  // Its envelope is numbers; a string or an object beside the empty lists is content.
  const lists = values.filter(Array.isArray);
  if (lists.length === 0 || lists.some((list) => list.length > 0)) return true;
  return values.some((v) => typeof v === "string" || (typeof v === "object" && v !== null && !Array.isArray(v)));
}

/**
 * The required identifiers of a tool. When such a tool fails alone, it most likely needs an id
 * that only another tool returns (`/person/{person_id}`; or its documented example id is stale),
 * and asking the model to call it alone mostly buys a hallucinated id. Chain of probing defers
 * the model for these tools until data flow from the probed ones was tried, for free.
 */
export function requiredIdentifiers(def: ToolDefinition): string[] {
  return def.parameters.filter((p) => p.required && isIdLike(p.name)).map((p) => p.name);
}
