import { invalidParameter, jsonResponse, methodNotAllowed, noRecordedResponse, notFound } from "./errors";
import { generateFromSchema } from "./generate";
import { collectIdentifiers, echoedParam, echoRequestedId, isIdentifierName } from "./identifiers";
import { parameterProblems } from "./params";
import { normalizePath, templateParams } from "./path-template";
import { OperationRouter } from "./router";
import { filterSearchResults, searchQuery, searchWithRecords } from "./search-filter";
import type { OperationBody, SkippedOperation, WorldMount, WorldOperation } from "./types";

/** The control path listing what the world serves. */
export const CONTROL_PATH = "/__world";

/** One operation as `/__world` lists it. */
export interface OperationSummary {
  readonly method: string;
  readonly path: string;
  readonly name: string;
  readonly response: OperationBody["kind"];
  readonly identifierParams: readonly string[];
}

/** One mount as `/__world` lists it. */
export interface MountSummary {
  readonly prefix: string;
  readonly kind: WorldMount["kind"];
  readonly title: string;
  readonly operations: readonly OperationSummary[];
  readonly skipped: readonly SkippedOperation[];
  readonly seedIds: number;
  readonly handedOut: number;
}

interface MountState {
  readonly mount: WorldMount;
  readonly router: OperationRouter;
  /** Seeds plus every identifier a response of this mount has carried. */
  readonly handedOut: Set<string>;
}

/**
 * A deterministic stand-in for real REST APIs: serves mounted documents, accepts identifiers only
 * once it has handed them out (or seeded them), and remembers them per mount for its lifetime.
 */
export class SimulatedWorld {
  private readonly states: readonly MountState[];

  constructor(mounts: readonly WorldMount[]) {
    const prefixes = new Set<string>();
    for (const { prefix } of mounts) {
      if (prefixes.has(prefix)) throw new TypeError(`two mounts share the prefix ${prefix}`);
      prefixes.add(prefix);
    }
    // Longest prefix first so `/autotools/tmdb` is not swallowed by a `/autotools` mount.
    this.states = [...mounts]
      .sort((a, b) => b.prefix.length - a.prefix.length)
      .map((mount) => ({ mount, router: new OperationRouter(mount.operations), handedOut: new Set(mount.seedIds) }));
  }

  /** Answers one request as the mounted APIs would. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = normalizePath(url.pathname);
    const method = request.method.toUpperCase();
    if (path === CONTROL_PATH) {
      return method === "GET" ? jsonResponse({ mounts: this.describe() }) : methodNotAllowed(method, ["GET"]);
    }
    const state = this.states.find(({ mount }) => path === mount.prefix || path.startsWith(`${mount.prefix}/`));
    if (state === undefined) return notFound();
    const rest = path.slice(state.mount.prefix.length) || "/";
    const route = state.router.route(method, rest);
    if (route.kind === "not-found") return notFound();
    if (route.kind === "method-not-allowed") return methodNotAllowed(method, route.allow);
    return this.serve(state, route.operation, route.params, url.searchParams, `${method} ${rest}`);
  }

  /** Identifiers the mount at `prefix` currently accepts (seeds included); for tests and debugging. */
  handedOut(prefix: string): ReadonlySet<string> {
    const state = this.states.find(({ mount }) => mount.prefix === prefix);
    if (state === undefined) throw new RangeError(`no mount at ${prefix}`);
    return state.handedOut;
  }

  /** What `/__world` lists: every mount with its operations, skipped entries and id counts. */
  describe(): MountSummary[] {
    return [...this.states]
      .sort((a, b) => (a.mount.prefix < b.mount.prefix ? -1 : 1))
      .map(({ mount, handedOut }) => ({
        prefix: mount.prefix,
        kind: mount.kind,
        title: mount.title,
        operations: mount.operations.map((op) => ({
          method: op.method,
          path: op.path,
          name: op.name,
          response: op.body.kind,
          identifierParams: templateParams(op.path).filter(isIdentifierName),
        })),
        skipped: mount.skipped,
        seedIds: mount.seedIds.length,
        handedOut: handedOut.size,
      }));
  }

  private serve(state: MountState, operation: WorldOperation, params: Record<string, string>, query: URLSearchParams, requestLine: string): Response {
    const problems = parameterProblems(operation, params, query);
    if (problems.length > 0) return invalidParameter(problems);
    const names = templateParams(operation.path);
    for (const name of names) {
      const value = params[name];
      if (isIdentifierName(name) && (value === undefined || !state.handedOut.has(value))) return notFound();
    }
    const headers: Record<string, string> = { "x-world-operation": `${operation.method} ${operation.path}` };
    // These statuses forbid a body, so there is nothing to generate or hand out.
    if (operation.status === 204 || operation.status === 205 || operation.body.kind === "empty")
      return new Response(null, { status: operation.status, headers });
    const echoed = echoedParam(names);
    const requested = echoed === undefined ? undefined : params[echoed];
    const record = state.mount.records?.answer(operation.path, params);
    // A page the records cover but whose id they lack (an id from the recorded trending or top-rated
    // pages, say): the recorded sample with that id, marked, so probing and programs that follow such
    // ids still get an answer of the documented shape; the records answer every id they hold.
    if (record?.kind === "missing" && (requested === undefined || !describes(operation.body, requested))) headers["x-world-record"] = "sample";
    if (record?.kind === "found") headers["x-world-record"] = "records";
    const body = record?.kind === "found" ? { value: record.body } : this.body(state, operation, `${state.mount.prefix} ${requestLine}?${sortedQuery(query)}`);
    if (body === undefined) return noRecordedResponse(`${operation.method} ${operation.path}`);
    const search = searchQuery(operation, query);
    const fromRecords = search === undefined ? undefined : state.mount.records?.search(operation.path, search);
    if (search !== undefined && fromRecords !== undefined) {
      body.value = searchWithRecords(body.value, search, fromRecords);
      headers["x-world-search"] = "records";
    } else if (search !== undefined) {
      const filtered = filterSearchResults(body.value, search);
      body.value = filtered.body;
      headers["x-world-search"] = filtered.matched ? "filtered" : "unmatched";
    }
    if (requested !== undefined && record === undefined) echoRequestedId(body.value, requested);
    collectIdentifiers(body.value, state.handedOut);
    return jsonResponse(body.value, operation.status, headers);
  }

  /** A fresh copy of the body, so echoing an id never alters the mounted document. */
  private body(state: MountState, operation: WorldOperation, seed: string): { value: unknown } | undefined {
    switch (operation.body.kind) {
      case "example":
        return { value: structuredClone(operation.body.value) };
      case "schema":
        return { value: generateFromSchema(operation.body.schema, state.mount.document, seed) };
      case "empty":
      case "none":
        return undefined;
    }
  }
}

/** Whether an operation's recorded example is the page of the record with id `requested`. */
function describes(body: OperationBody, requested: string): boolean {
  if (body.kind !== "example" || typeof body.value !== "object" || body.value === null) return false;
  return String((body.value as Record<string, unknown>)["id"]) === requested;
}

/** The query in a canonical order, so parameter order does not change generated data. */
function sortedQuery(query: URLSearchParams): string {
  const pairs = [...query.entries()].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return new URLSearchParams(pairs).toString();
}
