import type { WorldOperation } from "./types";

/**
 * Search endpoints answer with the records of their sample that match the query, as a real search
 * would: a person search for "Christopher Nolan" must not answer with unrelated people. A search
 * endpoint is one whose path has a `search` segment and that takes a `query` or `q` parameter; a
 * record matches when every word of the query occurs in one of its name-like fields.
 *
 * A mount with a record set (records/) searches its records and the sample together, and answers
 * an empty page when nothing matches, as a real search does (`x-world-search: records`). A mount
 * without one holds a single recorded page per search: where that page cannot answer the query (no
 * record matches, or records without name-like fields) it is served whole, marked
 * `x-world-search: unmatched`, because probing's zero-token path searches with placeholder words
 * and an empty list would leave it no identifiers to follow.
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

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");

function nameText(record: unknown): string | undefined {
  if (typeof record !== "object" || record === null) return undefined;
  const names = NAME_FIELDS.map((field) => (record as Record<string, unknown>)[field]).filter((v): v is string => typeof v === "string");
  return names.length === 0 ? undefined : names.join(" ");
}

/** Whether every word of `text` occurs in the record's name-like fields. */
export function matchesQuery(record: unknown, text: string): boolean {
  const have = new Set(words(nameText(record) ?? ""));
  return words(text).every((w) => have.has(w));
}

/**
 * The body with only the records of its result list (`results`, or a top-level array) that match
 * `text`, `total_results`/`total_pages` agreeing; `matched: false` and the body untouched when the
 * sample cannot answer the query.
 */
export function filterSearchResults(body: unknown, text: string): { body: unknown; matched: boolean } {
  const records = resultList(body);
  if (words(text).length === 0 || records === undefined) return { body, matched: false };
  const kept = records.filter((record) => matchesQuery(record, text));
  if (kept.length === 0) return { body, matched: false };
  return { body: withResults(body, kept), matched: true };
}

/**
 * A search over a record set and the recorded sample together: the set's matches first, then the
 * sample's matches it does not already hold (by id); an empty page when nothing matches.
 */
export function searchWithRecords(body: unknown, text: string, fromRecords: readonly unknown[]): unknown {
  const ids = new Set(fromRecords.map(idOf));
  const sample = (resultList(body) ?? []).filter((record) => matchesQuery(record, text) && !ids.has(idOf(record)));
  return withResults(body, [...fromRecords, ...sample]);
}

function idOf(record: unknown): unknown {
  return typeof record === "object" && record !== null ? (record as Record<string, unknown>)["id"] : undefined;
}

/** The result list of a search body: `results`, or the body itself when it is an array. */
function resultList(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  const results = typeof body === "object" && body !== null ? (body as Record<string, unknown>)["results"] : undefined;
  return Array.isArray(results) ? results : undefined;
}

/** The body with `kept` as its result list, `total_results`/`total_pages` agreeing. */
function withResults(body: unknown, kept: unknown[]): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return kept;
  const container = body as Record<string, unknown>;
  const filtered: Record<string, unknown> = { ...container, results: kept };
  if (typeof container["total_results"] === "number") filtered["total_results"] = kept.length;
  if (typeof container["total_pages"] === "number") filtered["total_pages"] = kept.length === 0 ? 0 : 1;
  return filtered;
}
