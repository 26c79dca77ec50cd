import { z } from "zod";

/**
 * The demo world's own records (kv-seed/world/demo-records): movies, people, TV series and who
 * directed or acted in what, hand-written so that searches and the details behind their ids agree.
 * Read once and indexed; every lookup is by id or by the people/works a credit joins.
 */

const Id = z.number().int().nonnegative();

export const DemoMovie = z.object({
  id: Id,
  title: z.string().min(1),
  release_date: z.string(),
  runtime: z.number().int().positive(),
  genre_ids: z.array(Id),
  overview: z.string(),
});
export type DemoMovie = z.infer<typeof DemoMovie>;

export const DemoTv = z.object({
  id: Id,
  name: z.string().min(1),
  first_air_date: z.string(),
  last_air_date: z.string(),
  number_of_seasons: z.number().int().positive(),
  number_of_episodes: z.number().int().positive(),
  genre_ids: z.array(Id),
  origin_country: z.array(z.string()),
  overview: z.string(),
});
export type DemoTv = z.infer<typeof DemoTv>;

export const DemoPerson = z.object({
  id: Id,
  name: z.string().min(1),
  known_for_department: z.string(),
  gender: z.number().int().min(0).max(3),
  birthday: z.string(),
  place_of_birth: z.string(),
});
export type DemoPerson = z.infer<typeof DemoPerson>;

/** One credit: a person in the cast (`character`) or crew (`job`) of a movie or a TV series. */
export const DemoCredit = z
  .object({ person: Id, movie: Id.optional(), tv: Id.optional(), character: z.string().optional(), job: z.string().optional() })
  .refine((c) => (c.movie === undefined) !== (c.tv === undefined), "a credit names exactly one movie or tv series")
  .refine((c) => (c.character === undefined) !== (c.job === undefined), "a credit has exactly one of character (cast) or job (crew)");
export type DemoCredit = z.infer<typeof DemoCredit>;

export const DemoNamed = z.object({ id: Id, name: z.string().min(1), origin_country: z.string().optional() });
export type DemoNamed = z.infer<typeof DemoNamed>;

export const DemoRecords = z.object({
  about: z.string(),
  genres: z.record(z.string(), z.string()),
  movies: z.array(DemoMovie),
  tv: z.array(DemoTv),
  people: z.array(DemoPerson),
  credits: z.array(DemoCredit),
  companies: z.array(DemoNamed),
  collections: z.array(DemoNamed),
});
export type DemoRecords = z.infer<typeof DemoRecords>;

/** A credit with its ends resolved. */
export interface JoinedCredit {
  readonly credit: DemoCredit;
  readonly person: DemoPerson;
  readonly work: { readonly kind: "movie"; readonly movie: DemoMovie } | { readonly kind: "tv"; readonly tv: DemoTv };
}

function byId<T extends { id: number }>(items: readonly T[], kind: string): Map<number, T> {
  const map = new Map<number, T>();
  for (const item of items) {
    if (map.has(item.id)) throw new TypeError(`demo records: two ${kind} records have id ${item.id}`);
    map.set(item.id, item);
  }
  return map;
}

/** The parsed, indexed demo records; a credit naming an unknown record is refused at load. */
export class RecordCatalog {
  readonly movies: ReadonlyMap<number, DemoMovie>;
  readonly tv: ReadonlyMap<number, DemoTv>;
  readonly people: ReadonlyMap<number, DemoPerson>;
  readonly companies: ReadonlyMap<number, DemoNamed>;
  readonly collections: ReadonlyMap<number, DemoNamed>;
  readonly genres: ReadonlyMap<number, string>;
  readonly #credits: readonly JoinedCredit[];

  constructor(source: unknown) {
    const records = DemoRecords.parse(source);
    this.movies = byId(records.movies, "movie");
    this.tv = byId(records.tv, "tv");
    this.people = byId(records.people, "person");
    this.companies = byId(records.companies, "company");
    this.collections = byId(records.collections, "collection");
    this.genres = new Map(Object.entries(records.genres).map(([id, name]) => [Number(id), name]));
    this.#credits = records.credits.map((credit) => this.#join(credit));
  }

  /** Credits of a person, in the order the records list them. */
  creditsOfPerson(personId: number): JoinedCredit[] {
    return this.#credits.filter((c) => c.person.id === personId);
  }

  /** Credits of a movie or TV series. */
  creditsOfWork(kind: "movie" | "tv", id: number): JoinedCredit[] {
    return this.#credits.filter((c) => (kind === "movie" ? c.credit.movie === id : c.credit.tv === id));
  }

  /** Every record id, of every kind: the ids a caller can learn by searching. */
  allIds(): number[] {
    return [this.movies, this.tv, this.people, this.companies, this.collections].flatMap((map) => [...map.keys()]);
  }

  #join(credit: DemoCredit): JoinedCredit {
    const person = this.people.get(credit.person);
    if (person === undefined) throw new TypeError(`demo records: a credit names unknown person ${credit.person}`);
    if (credit.movie !== undefined) {
      const movie = this.movies.get(credit.movie);
      if (movie === undefined) throw new TypeError(`demo records: a credit names unknown movie ${credit.movie}`);
      return { credit, person, work: { kind: "movie", movie } };
    }
    const tv = this.tv.get(credit.tv ?? -1);
    if (tv === undefined) throw new TypeError(`demo records: a credit names unknown tv series ${String(credit.tv)}`);
    return { credit, person, work: { kind: "tv", tv } };
  }
}
