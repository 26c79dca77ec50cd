/** What a model would know: words, entities, plausible values. */
import type { ParamSig, ToolSig } from "./prompt-signatures";

export function words(text: string): string[] {
  return text
    .replace(/\{[^}]*\}/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => (w.length > 3 && w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

export const ID_WORDS = new Set(["id", "ids", "key", "uuid", "slug", "code"]);

export function isIdLike(name: string): boolean {
  const w = words(name);
  return ID_WORDS.has(w[w.length - 1] ?? "");
}

/** What an identifier parameter identifies: `person_id` → person; `/game/{id}` → game. */
export function entityOf(param: string, operation: string): string | undefined {
  const own = words(param).filter((w) => !ID_WORDS.has(w));
  if (own.length > 0) return own.join("_");
  const segments = operation.replace(/^\S+\s+/, "").split("/");
  const at = segments.indexOf(`{${param}}`);
  const before = at > 0 ? segments[at - 1] : undefined;
  return before === undefined || before.startsWith("{") ? undefined : words(before).join("_");
}

/** General knowledge: a well-known instance of each kind of thing a search may be about. */
export const TOPICS: [string, string][] = [
  ["person", "Tom Hanks"],
  ["people", "Tom Hanks"],
  ["actor", "Tom Hanks"],
  ["movie", "The Matrix"],
  ["film", "The Matrix"],
  ["tv", "Breaking Bad"],
  ["show", "Breaking Bad"],
  ["company", "Pixar"],
  ["collection", "Star Wars"],
  ["network", "HBO"],
  ["keyword", "time travel"],
  ["game", "The Legend of Zelda"],
  ["author", "Jason Schreier"],
  ["outlet", "IGN"],
  ["recipe", "pasta carbonara"],
  ["ingredient", "tomato"],
  ["menu", "burger"],
  ["product", "peanut butter"],
  ["wine", "merlot"],
  ["dish", "steak"],
  ["food", "pasta"],
  ["place", "London"],
  ["city", "London"],
  ["location", "London"],
];

export function topicFor(text: string): string {
  const w = new Set(words(text));
  for (const [word, value] of TOPICS) if (w.has(word)) return value;
  return "example";
}

export function literalUnion(type: string): unknown[] | undefined {
  const parts = type.split("|").map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^(".*"|-?\d+(\.\d+)?|true|false|null)$/.test(p))) return undefined;
  return parts.map((p) => JSON.parse(p) as unknown);
}

/** A value spelled out in a parameter's description: `e.g. merlot`, `("steak")`, `format YYYY-MM-DD`. */
export function describedValue(description: string): string | undefined {
  const patterns = [
    /\(\s*["'`]([^"'`]{1,40})["'`]\s*\)/,
    /\b(?:choices|values|options) (?:are|is)\s*:?\s*["'`]?([A-Za-z0-9_.-]{1,40})/i,
    /\bone of(?: the following)?\s*:?\s*["'`]?([A-Za-z0-9_.-]{1,40})/i,
    /\be\.g\.?,?\s*:?\s*["'`]?([A-Za-z0-9_.\- ]{1,40}?)["'`]?(?=[,;)\n]|\.(?:\s|$)|$)/i,
    /\bsuch as\s+["'`]?([A-Za-z0-9_.\- ]{1,40}?)["'`]?(?=[,;)\n]|\.(?:\s|$)|$)/i,
  ];
  for (const p of patterns) {
    const found = p.exec(description)?.[1]?.trim();
    if (found) return found;
  }
  return undefined;
}

export interface Valued {
  value: unknown;
  /** A guess the model has no reason to believe (an identifier it cannot know). */
  guess: boolean;
}

/** A plausible argument value from the parameter's name, type and description, as a model would write it. */
export function plausibleValue(tool: ToolSig, param: ParamSig, variant: number): Valued {
  const type = param.type;
  const literals = literalUnion(type);
  if (literals !== undefined) {
    const usable = literals.filter((v) => v !== "" && v !== null);
    return { value: usable[Math.min(variant, usable.length - 1)] ?? literals[0], guess: false };
  }
  const n = words(param.name).join("_");
  const text = `${param.name} ${param.description}`.toLowerCase();
  const numeric = type === "number";
  const asType = (v: string | number): unknown => (numeric ? Number(v) : type === "string" || typeof v === "string" ? String(v) : v);
  if (isIdLike(param.name)) return { value: numeric ? 1 : "1", guess: true };
  if (/^(lat|latitude)$/.test(n)) return { value: asType(variant === 2 ? "51.5N" : "51.5074"), guess: false };
  if (/^(lon|lng|longitude)$/.test(n)) return { value: asType(variant === 2 ? "0.1W" : "-0.1278"), guess: false };
  if (/date/.test(n) || /yyyy-mm-dd/.test(text)) return { value: "2024-01-15", guess: false };
  if (/year/.test(n)) return { value: asType(2020), guess: false };
  if (/^(language|lang|locale)$/.test(n)) return { value: "en", guess: false };
  if (/^(region|country)$/.test(n)) return { value: "US", guess: false };
  if (/timezone|timazone/.test(n)) return { value: "UTC", guess: false };
  if (/^unit/.test(n)) return { value: "metric", guess: false };
  if (/^(page|season_number|episode_number|number)$/.test(n) || /_number$/.test(n)) return { value: asType(1), guess: false };
  if (/^(limit|count|size|per_page|max_result|number_of_result)$/.test(n)) return { value: asType(5), guess: false };
  if (/^(skip|offset)$/.test(n)) return { value: asType(0), guess: false };
  const described = describedValue(param.description);
  if (/^(query|q|criteria|keyword|search|text|term|name|title|prefix)$/.test(n) || /search|keyword|name of/.test(text)) {
    return { value: described ?? topicFor(`${tool.name} ${tool.operation} ${param.name} ${param.description}`), guess: false };
  }
  if (described !== undefined) return { value: asType(described), guess: false };
  if (type === "number") return { value: 1, guess: false };
  if (type === "boolean") return { value: variant !== 1, guess: false };
  if (type.endsWith("[]")) return { value: [topicFor(`${param.name} ${param.description}`)], guess: false };
  if (type.startsWith("{") || type.startsWith("Record")) return { value: {}, guess: false };
  return { value: topicFor(`${tool.name} ${tool.operation} ${param.name} ${param.description}`), guess: false };
}

export function argsLiteral(entries: [string, string][]): string {
  if (entries.length === 0) return "{}";
  const key = (k: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));
  return `{ ${entries.map(([k, v]) => `${key(k)}: ${v}`).join(", ")} }`;
}
