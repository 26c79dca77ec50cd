import type { WorldOperation } from "./types";

/**
 * Search endpoints answer with the records of their sample that match the query, as a real search
 * would: a person search for "Christopher Nolan" must not answer with unrelated people. A search
 * endpoint is one whose path has a `search` segment and that takes a `query` or `q` parameter; a
 * record matches when every word of the query occurs in one of its name-like fields.
 *
 * Where the sample cannot answer the query (no record matches, or records without name-like
 * fields), the whole sample is served as before: the world holds one recorded page per search,
 * and probing's zero-token path searches with placeholder words; an empty list would leave it no
 * identifiers to follow. Such answers carry `x-world-search: unmatched`.
 */

const QUERY_PARAMS = ["query", "q"];
const NAME_FIELDS = ["name", "title", "original_title", "original_name"];

/** The query text when `operation` is a search and the request gave one. */
export function searchQuery(operation: WorldOperation, query: URLSearchParams): string | undefined {
  if (!operation.path.split("/").some((segment) => segment.toLowerCase().includes("search"))) return undefined;
  for (const name of QUERY_PARAMS) {
    if (!operation.parameters.some((p) => p.name === name && p.in === "query")) continue;
    const value = query.get(name)?.trim();
    if (value) return value;
  }
  return undefined;
}

const words = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== "");

function nameText(record: unknown): string | undefined {
  if (typeof record !== "object" || record === null) return undefined;
  const names = NAME_FIELDS.map((field) => (record as Record<string, unknown>)[field]).filter((v): v is string => typeof v === "string");
  return names.length === 0 ? undefined : names.join(" ");
}

/**
 * The body with only the records of its result list (`results`, or a top-level array) that match
 * `text`, `total_results`/`total_pages` agreeing; `matched: false` and the body untouched when the
 * sample cannot answer the query.
 */
export function filterSearchResults(body: unknown, text: string): { body: unknown; matched: boolean } {
  const wanted = words(text);
  const matches = (record: unknown): boolean => {
    const have = new Set(words(nameText(record) ?? ""));
    return wanted.every((w) => have.has(w));
  };
  const container = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const records = Array.isArray(body) ? body : container?.["results"];
  if (wanted.length === 0 || !Array.isArray(records)) return { body, matched: false };
  const kept = records.filter(matches);
  if (kept.length === 0) return { body, matched: false };
  if (container === undefined) return { body: kept, matched: true };
  const filtered: Record<string, unknown> = { ...container, results: kept };
  if (typeof container["total_results"] === "number") filtered["total_results"] = kept.length;
  if (typeof container["total_pages"] === "number") filtered["total_pages"] = 1;
  return { body: filtered, matched: true };
}
