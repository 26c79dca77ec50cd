import type { JsonRecord } from "./json";

/** Where a request parameter travels. */
export type ParameterIn = "path" | "query" | "header";

/** One request parameter the world checks. */
export interface WorldParameter {
  readonly name: string;
  readonly in: ParameterIn;
  readonly required: boolean;
  /** JSON Schema of the value (`{}` when undocumented); only simple checks are applied. */
  readonly schema: JsonRecord;
}

/** What the world answers with on success. */
export type OperationBody =
  | { readonly kind: "example"; readonly value: unknown }
  | { readonly kind: "schema"; readonly schema: JsonRecord }
  /** Documented success with no content (`200: {description: "OK"}`): an empty answer. */
  | { readonly kind: "empty" }
  /** No success response, or only a non-JSON one: the world cannot answer (501). */
  | { readonly kind: "none" };

/** One served operation: method plus path template below the mount prefix. */
export interface WorldOperation {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path template below the mount, e.g. `/person/{person_id}/movie_credits`. */
  readonly path: string;
  /** operationId or tool name; `METHOD /path` when the source gives none. */
  readonly name: string;
  readonly parameters: readonly WorldParameter[];
  /** HTTP status of the success response. */
  readonly status: number;
  readonly body: OperationBody;
}

/** A source entry the world could not serve, with the reason (shown by `/__world`). */
export interface SkippedOperation {
  readonly name: string;
  readonly reason: string;
}

/** How a mount's pool of accepted identifiers starts. */
export type SeedRule = "entry-examples" | "none";

/** Options shared by the mount builders. */
export interface MountOptions {
  /**
   * `entry-examples` (default): identifiers in the examples of the mount's entry operations (no
   * identifier path parameter) are accepted from the start. `none`: only handed-out ones.
   */
  readonly seed?: SeedRule;
  /** Records that answer the mount's searches and entity pages instead of its recorded samples. */
  readonly records?: RecordSet;
}

/** What a record set answers for one entity page: the record's body, or that it holds no such record. */
export type RecordAnswer = { readonly kind: "found"; readonly body: unknown } | { readonly kind: "missing" };

/**
 * A set of records the world serves in place of one recorded sample per operation, so that a
 * search finds what was asked for and the ids it returns lead to that record's own pages.
 */
export interface RecordSet {
  /** Every id the set holds; searches hand them out, so they are accepted from the start. */
  readonly ids: readonly string[];
  /** The records matching `text` for the search at `path`, or undefined when the set holds no such kind. */
  search(path: string, text: string): unknown[] | undefined;
  /** The page at `path` about the identifier in `params`, or undefined when the set does not cover the path. */
  answer(path: string, params: Readonly<Record<string, string>>): RecordAnswer | undefined;
}

/** A source document prepared for serving under a path prefix. */
export interface WorldMount {
  /** e.g. `/tmdb`; requests below it are routed to this mount. */
  readonly prefix: string;
  readonly kind: "openapi" | "autotools";
  readonly title: string;
  readonly operations: readonly WorldOperation[];
  readonly skipped: readonly SkippedOperation[];
  /** Identifiers accepted before any response has handed one out. */
  readonly seedIds: readonly string[];
  /** The source document, for resolving local `$ref`s while generating data. */
  readonly document: unknown;
  readonly records?: RecordSet;
}
