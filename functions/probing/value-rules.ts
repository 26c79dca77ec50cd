import type { ToolDefinition, ToolParameter } from "../tools/definition";
import type { ValueCandidate } from "./discovery-types";
import { isSchema, type Schema, type ValueType } from "./parameter-schema";
import { nameWords, normalized } from "./vocabulary";

/** Value rules, strongest first: what a parameter's schema, description, format and name propose. */

/** Values the schema itself documents: const, default, example(s), and enum (first non-empty). */
export function documentedValues(schema: Schema, withEnum: boolean): ValueCandidate[] {
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
export function descriptionValue(description: string | undefined): ValueCandidate[] {
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

export function formatValue(schema: Schema): ValueCandidate[] {
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
export function nameValues(def: ToolDefinition, param: ToolParameter, type: ValueType | undefined): ValueCandidate[] {
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
