import type { ToolDefinition } from "../tools/definition";

/**
 * Words: the shared vocabulary of parameter names, field paths and tool paths that instance
 * discovery matches on (data flow: which probed output feeds which parameter).
 */

/** Plural and synonym folding, so `people` meets `person` and `films` meets `movie`. */
const SYNONYMS: Record<string, string> = {
  people: "person",
  actor: "person",
  actress: "person",
  film: "movie",
  show: "tv",
  series: "tv",
  television: "tv",
  ids: "id",
};

/** Identifier words: `person_id` is the id of a person. */
export const ID_WORDS = new Set(["id", "key", "uuid", "slug", "code"]);

/** Container keys that hold items without naming what they are (`results[].id`). */
export const CONTAINER_WORDS = new Set([
  "result",
  "item",
  "data",
  "list",
  "hit",
  "record",
  "entry",
  "doc",
  "content",
  "value",
  "response",
  "cast",
  "crew",
  "part",
  "node",
  "element",
  "object",
  "row",
]);

function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function canonical(word: string): string {
  const direct = SYNONYMS[word];
  if (direct !== undefined) return direct;
  const one = singular(word);
  return SYNONYMS[one] ?? one;
}

// Data flow asks for the words of the same few names (tool names, paths, parameters, output
// fields) over and over, once per candidate pair; remembered, bounded like retrieval's terms.
const NAME_WORDS_LIMIT = 50_000;
const nameWordsOf = new Map<string, readonly string[]>();

/** Lower-case, de-pluralised words of an identifier, path or sentence (`movieId` → movie, id). Shared: never mutate. */
export function nameWords(text: string): readonly string[] {
  const known = nameWordsOf.get(text);
  if (known !== undefined) return known;
  const words = text
    .replace(/\{[^}]*\}/g, " ") // path placeholders name a tool's inputs, not its outputs
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .map(canonical);
  if (nameWordsOf.size >= NAME_WORDS_LIMIT) nameWordsOf.clear();
  nameWordsOf.set(text, words);
  return words;
}

/** The entity words of a parameter: `person_id` → person; a bare `id` takes the path segment before it. */
export function parameterEntity(def: Pick<ToolDefinition, "path">, name: string): readonly string[] {
  const words = nameWords(name).filter((w) => !ID_WORDS.has(w));
  if (words.length > 0) return words;
  // `/albums/{id}`: the id of an album.
  const segments = def.path.split("/");
  const at = segments.indexOf(`{${name}}`);
  const before = at > 0 ? segments[at - 1] : undefined;
  return before === undefined || before.startsWith("{") ? [] : nameWords(before);
}

export function isIdLike(name: string): boolean {
  const words = nameWords(name);
  const last = words[words.length - 1];
  return last !== undefined && ID_WORDS.has(last);
}

export function normalized(name: string): string {
  return nameWords(name).join("_");
}

export function overlap(wanted: readonly string[], offered: ReadonlySet<string>): number {
  if (wanted.length === 0) return 0;
  return wanted.filter((w) => offered.has(w)).length / wanted.length;
}
