import { hexFrom } from "../hash";
import type { DemoMovie, DemoNamed, DemoPerson, DemoTv, JoinedCredit, RecordCatalog } from "./catalog";

/**
 * TMDB-shaped bodies built from the demo records, with TMDB's field names so that a program
 * written against the documented schemas reads them. Fields the records do not hold (ratings,
 * popularity, images) are left out or null rather than made up.
 */

type Body = Record<string, unknown>;

const DEPARTMENTS: Record<string, string> = {
  Director: "Directing",
  Screenplay: "Writing",
  Writer: "Writing",
  Producer: "Production",
  "Executive Producer": "Production",
};

/** A stable credit id: 24 hex characters, like TMDB's, from what the credit joins. */
function creditId(c: JoinedCredit): string {
  const work = c.work.kind === "movie" ? `movie:${c.work.movie.id}` : `tv:${c.work.tv.id}`;
  return hexFrom(`${c.person.id}|${work}|${c.credit.job ?? `as ${c.credit.character ?? ""}`}`, 24);
}

/** A movie as search results and credit lists show it. */
export function movieSummary(movie: DemoMovie): Body {
  return {
    id: movie.id,
    title: movie.title,
    original_title: movie.title,
    original_language: "en",
    release_date: movie.release_date,
    genre_ids: movie.genre_ids,
    overview: movie.overview,
    adult: false,
    video: false,
    poster_path: null,
    backdrop_path: null,
  };
}

/** `GET /movie/{movie_id}`. */
export function movieDetails(movie: DemoMovie, catalog: RecordCatalog): Body {
  const { genre_ids: genreIds, ...summary } = movieSummary(movie);
  return { ...summary, genres: genresOf(genreIds as number[], catalog), runtime: movie.runtime, status: "Released" };
}

/** A TV series as search results and credit lists show it. */
export function tvSummary(tv: DemoTv): Body {
  return {
    id: tv.id,
    name: tv.name,
    original_name: tv.name,
    original_language: "en",
    first_air_date: tv.first_air_date,
    genre_ids: tv.genre_ids,
    origin_country: tv.origin_country,
    overview: tv.overview,
    poster_path: null,
    backdrop_path: null,
  };
}

/** `GET /tv/{tv_id}`. */
export function tvDetails(tv: DemoTv, catalog: RecordCatalog): Body {
  const { genre_ids: genreIds, ...summary } = tvSummary(tv);
  const creators = catalog
    .creditsOfWork("tv", tv.id)
    .filter((c) => c.credit.job !== undefined)
    .map((c) => ({ id: c.person.id, name: c.person.name }));
  return {
    ...summary,
    genres: genresOf(genreIds as number[], catalog),
    last_air_date: tv.last_air_date,
    number_of_seasons: tv.number_of_seasons,
    number_of_episodes: tv.number_of_episodes,
    created_by: creators,
    status: "Ended",
  };
}

function personSummary(person: DemoPerson): Body {
  return { id: person.id, name: person.name, known_for_department: person.known_for_department, gender: person.gender, adult: false, profile_path: null };
}

/** A person as `/search/person` shows one: with the works the records credit them for. */
export function personSearchResult(person: DemoPerson, catalog: RecordCatalog): Body {
  const seen = new Set<string>();
  const knownFor: Body[] = [];
  for (const c of catalog.creditsOfPerson(person.id)) {
    const key = c.work.kind === "movie" ? `m${c.work.movie.id}` : `t${c.work.tv.id}`;
    if (seen.has(key) || knownFor.length === 3) continue;
    seen.add(key);
    knownFor.push(c.work.kind === "movie" ? { ...movieSummary(c.work.movie), media_type: "movie" } : { ...tvSummary(c.work.tv), media_type: "tv" });
  }
  return { ...personSummary(person), known_for: knownFor };
}

/** `GET /person/{person_id}`. */
export function personDetails(person: DemoPerson): Body {
  return {
    ...personSummary(person),
    also_known_as: [],
    biography: "",
    birthday: person.birthday,
    deathday: null,
    homepage: null,
    imdb_id: null,
    place_of_birth: person.place_of_birth,
  };
}

/** `GET /person/{person_id}/movie_credits` or `/tv_credits`: the person's cast and crew entries. */
export function personCredits(person: DemoPerson, kind: "movie" | "tv", catalog: RecordCatalog): Body {
  const credits = catalog.creditsOfPerson(person.id).filter((c) => c.work.kind === kind);
  const work = (c: JoinedCredit): Body => (c.work.kind === "movie" ? movieSummary(c.work.movie) : tvSummary(c.work.tv));
  return {
    id: person.id,
    cast: credits
      .filter((c) => c.credit.character !== undefined)
      .map((c, order) => ({ ...work(c), character: c.credit.character, credit_id: creditId(c), order })),
    crew: credits.filter((c) => c.credit.job !== undefined).map((c) => ({ ...work(c), ...crewRole(c) })),
  };
}

/** `GET /movie/{movie_id}/credits` or `/tv/{tv_id}/credits`: who is in it and who made it. */
export function workCredits(kind: "movie" | "tv", id: number, catalog: RecordCatalog): Body {
  const credits = catalog.creditsOfWork(kind, id);
  return {
    id,
    cast: credits
      .filter((c) => c.credit.character !== undefined)
      .map((c, order) => ({ ...personSummary(c.person), original_name: c.person.name, character: c.credit.character, credit_id: creditId(c), order })),
    crew: credits.filter((c) => c.credit.job !== undefined).map((c) => ({ ...personSummary(c.person), original_name: c.person.name, ...crewRole(c) })),
  };
}

/** A company or collection as its search shows it. */
export function namedSummary(record: DemoNamed, kind: "company" | "collection"): Body {
  return kind === "company"
    ? { id: record.id, name: record.name, logo_path: null, origin_country: record.origin_country ?? "" }
    : { id: record.id, name: record.name, poster_path: null, backdrop_path: null };
}

function crewRole(c: JoinedCredit): Body {
  const job = c.credit.job ?? "";
  return { department: DEPARTMENTS[job] ?? "Crew", job, credit_id: creditId(c) };
}

function genresOf(ids: readonly number[], catalog: RecordCatalog): { id: number; name: string }[] {
  return ids.map((id) => ({ id, name: catalog.genres.get(id) ?? "" }));
}
