import type { RecordAnswer, RecordSet } from "../types";
import { matchesQuery } from "../search-filter";
import { RecordCatalog } from "./catalog";
import { movieDetails, movieSummary, namedSummary, personCredits, personDetails, personSearchResult, tvDetails, tvSummary, workCredits } from "./tmdb-bodies";

/**
 * The demo records behind TMDB's paths: the searches, and the details and credits of movies,
 * people and TV series. Paths are matched by shape (`/person/{}/movie_credits`), whatever the
 * source document calls the parameter, so RestBench's and AutoTools' TMDB documents both fit.
 */

type Found = Record<string, unknown>;
type Detail = (catalog: RecordCatalog, id: number) => Found | undefined;

const DETAILS: Record<string, Detail> = {
  "/movie/{}": (c, id) => ifDefined(c.movies.get(id), (m) => movieDetails(m, c)),
  "/movie/{}/credits": (c, id) => (c.movies.has(id) ? workCredits("movie", id, c) : undefined),
  "/tv/{}": (c, id) => ifDefined(c.tv.get(id), (t) => tvDetails(t, c)),
  "/tv/{}/credits": (c, id) => (c.tv.has(id) ? workCredits("tv", id, c) : undefined),
  "/person/{}": (c, id) => ifDefined(c.people.get(id), personDetails),
  "/person/{}/movie_credits": (c, id) => ifDefined(c.people.get(id), (p) => personCredits(p, "movie", c)),
  "/person/{}/tv_credits": (c, id) => ifDefined(c.people.get(id), (p) => personCredits(p, "tv", c)),
};

const SEARCHES: Record<string, (catalog: RecordCatalog) => Found[]> = {
  "/search/movie": (c) => [...c.movies.values()].map(movieSummary),
  "/search/tv": (c) => [...c.tv.values()].map(tvSummary),
  "/search/person": (c) => [...c.people.values()].map((p) => personSearchResult(p, c)),
  "/search/company": (c) => [...c.companies.values()].map((r) => namedSummary(r, "company")),
  "/search/collection": (c) => [...c.collections.values()].map((r) => namedSummary(r, "collection")),
};

function ifDefined<T>(value: T | undefined, build: (value: T) => Found): Found | undefined {
  return value === undefined ? undefined : build(value);
}

/** `/person/{person_id}/movie_credits` → `/person/{}/movie_credits`; AutoTools' `/3/…` API version dropped. */
function shapeOf(path: string): string {
  return path.replace(/^\/\d+(?=\/)/, "").replace(/\{[^}]*\}/g, "{}");
}

/** TMDB's searches and entity pages answered from the demo records. */
export class TmdbRecordSet implements RecordSet {
  readonly #catalog: RecordCatalog;
  /** Search candidates per path, built once: the records do not change. */
  readonly #searchable = new Map<string, Found[]>();

  constructor(source: unknown) {
    this.#catalog = new RecordCatalog(source);
  }

  get ids(): string[] {
    return this.#catalog.allIds().map(String);
  }

  search(path: string, text: string): Found[] | undefined {
    const shape = shapeOf(path);
    const all = SEARCHES[shape];
    if (all === undefined) return undefined;
    let candidates = this.#searchable.get(shape);
    if (candidates === undefined) this.#searchable.set(shape, (candidates = all(this.#catalog)));
    return structuredClone(candidates.filter((record) => matchesQuery(record, text)));
  }

  answer(path: string, params: Readonly<Record<string, string>>): RecordAnswer | undefined {
    const detail = DETAILS[shapeOf(path)];
    const value = Object.values(params)[0];
    if (detail === undefined || value === undefined) return undefined;
    const id = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    const found = Number.isNaN(id) ? undefined : detail(this.#catalog, id);
    return found === undefined ? { kind: "missing" } : { kind: "found", body: found };
  }
}
