import type { DataFlowLink, DataFlowSource } from "./data-flow";

/**
 * Every tool's data-flow successors and producers, computed once per catalog change instead of
 * per request. A later step after a tool never routed from before asked `DataFlowIndex` for that
 * tool's successors (scoring every consumer its outputs name) and the first step for its best
 * tools' producers; here both are read from a table made once with that very index, so answers
 * are the same. The table is stored with the routing index (storage/routing-snapshots.ts) and read back after
 * an eviction without parsing a single definition.
 *
 * Only tools that take part in a link are listed: a catalog without documented outputs (most
 * list imports) stores a few bytes. A tool's producers are exactly the tools whose successors
 * name it (DataFlowIndex blocks candidates on the same names both ways), so producers are asked
 * of the index only for tools some link points to; every other tool has none.
 */

/** What routing reads of data flow: a tool's successors and producers, best first. */
export interface DataFlowLookup {
  successors(from: string): readonly DataFlowLink[];
  producers(to: string): readonly DataFlowSource[];
  /** `producers(to)` that find its identifier by name (`byName`), in the same order; cheaper to ask of a big catalog. */
  nameLookups?(to: string): readonly DataFlowSource[];
  /** The first `count` of `producers(to)` that fill an opaque input (isOpaqueInput), in the same order; cheaper to ask of a big catalog. */
  feeders?(to: string, count: number): readonly DataFlowSource[];
}

/** Stored form: names and strings once, links as index tuples (scores as JSON numbers: exact). */
interface Encoded {
  /** Tools that take part in a link. */
  tools: string[];
  /** Parameter names and field paths. */
  strings: string[];
  /** Per producer: [from, [to, parameter, field, score] × n], in successor order. */
  successors: (number | number[])[][];
  /** Per consumer: [to, [from, parameter, field, score, byName] × n], in producer order. */
  producers: (number | number[])[][];
}

/**
 * The table's bound: a catalog with more links than this (copies of one API, or a field most
 * tools return feeding an input most tools take) is not tabled; its tools' links are then found
 * per request as before, cached per tool. Measured ≈ 170 bytes of heap per link (both
 * directions; RestBench TMDB copied), so at most ≈ 8.5 MB, ≈ 1.5 MB stored.
 */
export const MAX_TABLED_LINKS = 50_000;

/**
 * The table's bound on work: samples offered to candidate consumers while computing it. A big
 * API whose tools share owner words (Microsoft Graph: thousands of operations under `/users/…`
 * returning ids) would offer billions; past this it is served per request, as past the link bound.
 */
export const MAX_TABLE_OFFERS = 20_000_000;

/** Bumped when the encoding or what a link means changes: older stored tables are recomputed. */
export const DATA_FLOW_LINKS_FORMAT = "data-flow-links/2";

const NONE: readonly never[] = Object.freeze([]);

/** What bounds a table's computation: its links, its work, and the work of one piece. */
export interface LinkBounds {
  maxLinks: number;
  /** True once the whole computation's work is past its budget (the table is not made). */
  exhausted: () => boolean;
  /** Asked after each tool linked or target's producers listed: true when a piece's work is done. */
  pieceOver: () => boolean;
}

/** A generator run to its end without pausing (the computation in one go). */
export function finished<T>(pieces: Generator<void, T>): T {
  for (;;) {
    const step = pieces.next();
    if (step.done) return step.value;
  }
}

export class DataFlowLinks implements DataFlowLookup {
  readonly #successors: ReadonlyMap<string, readonly DataFlowLink[]>;
  readonly #producers: ReadonlyMap<string, readonly DataFlowSource[]>;
  readonly #lookups = new Map<string, readonly DataFlowSource[]>();

  private constructor(successors: ReadonlyMap<string, readonly DataFlowLink[]>, producers: ReadonlyMap<string, readonly DataFlowSource[]>) {
    this.#successors = successors;
    this.#producers = producers;
  }

  /**
   * The table for `names` (every registered tool), computed with `index` (made for the same
   * tools); undefined once more than `maxLinks` links are found, or once `exhausted` says the
   * work has gone past its budget (the work stops there; per request, the same links are found).
   */
  static compute(
    index: DataFlowLookup,
    names: Iterable<string>,
    maxLinks = MAX_TABLED_LINKS,
    exhausted: () => boolean = () => false,
  ): DataFlowLinks | undefined {
    return finished(DataFlowLinks.computeInPieces(index, names, { maxLinks, exhausted, pieceOver: () => false }));
  }

  /**
   * `compute` a piece at a time (issue 42): the generator yields whenever `pieceOver` says a
   * piece's work is done, so that routing's preparation hands the tenant object back between
   * pieces (1,200 generated tools linked in one go held it for 8 s on a loaded machine).
   */
  static *computeInPieces(index: DataFlowLookup, names: Iterable<string>, bounds: LinkBounds): Generator<void, DataFlowLinks | undefined> {
    const successors = new Map<string, readonly DataFlowLink[]>();
    const targets = new Set<string>();
    let count = 0;
    for (const name of names) {
      const links = index.successors(name);
      if (bounds.exhausted()) return undefined;
      if (bounds.pieceOver()) yield;
      if (links.length === 0) continue;
      count += links.length;
      if (count > bounds.maxLinks) return undefined;
      successors.set(name, links);
      for (const link of links) targets.add(link.to);
    }
    const producers = new Map<string, readonly DataFlowSource[]>();
    for (const to of targets) {
      const sources = index.producers(to);
      if (sources.length > 0) producers.set(to, sources);
      if (bounds.pieceOver()) yield;
    }
    return new DataFlowLinks(successors, producers);
  }

  successors(from: string): readonly DataFlowLink[] {
    return this.#successors.get(from) ?? NONE;
  }

  producers(to: string): readonly DataFlowSource[] {
    return this.#producers.get(to) ?? NONE;
  }

  nameLookups(to: string): readonly DataFlowSource[] {
    let lookups = this.#lookups.get(to);
    if (lookups === undefined) this.#lookups.set(to, (lookups = this.producers(to).filter((s) => s.byName)));
    return lookups;
  }

  /** Links in the table (each producer → consumer pair once). */
  get linkCount(): number {
    let count = 0;
    for (const links of this.#successors.values()) count += links.length;
    return count;
  }

  toBytes(): Uint8Array {
    const tools = new Map<string, number>();
    const strings = new Map<string, number>();
    const id = (table: Map<string, number>, value: string): number => {
      let at = table.get(value);
      if (at === undefined) table.set(value, (at = table.size));
      return at;
    };
    const encoded: Encoded = { tools: [], strings: [], successors: [], producers: [] };
    for (const [from, links] of this.#successors) {
      encoded.successors.push([id(tools, from), ...links.map((l) => [id(tools, l.to), id(strings, l.parameter), id(strings, l.field), l.score])]);
    }
    for (const [to, sources] of this.#producers) {
      encoded.producers.push([
        id(tools, to),
        ...sources.map((s) => [id(tools, s.from), id(strings, s.parameter), id(strings, s.field), s.score, s.byName ? 1 : 0]),
      ]);
    }
    encoded.tools = [...tools.keys()];
    encoded.strings = [...strings.keys()];
    return new TextEncoder().encode(JSON.stringify(encoded));
  }

  /** The table stored by `toBytes`; undefined when the bytes are not one (then it is recomputed). */
  static fromBytes(bytes: Uint8Array): DataFlowLinks | undefined {
    try {
      const encoded = JSON.parse(new TextDecoder().decode(bytes)) as Encoded;
      const tool = (i: unknown): string => lookup(encoded.tools, i);
      const text = (i: unknown): string => lookup(encoded.strings, i);
      const successors = new Map<string, readonly DataFlowLink[]>();
      for (const [from, ...links] of encoded.successors) {
        successors.set(
          tool(from),
          (links as number[][]).map(([to, parameter, field, score]) => ({
            to: tool(to),
            parameter: text(parameter),
            field: text(field),
            score: number(score),
          })),
        );
      }
      const producers = new Map<string, readonly DataFlowSource[]>();
      for (const [to, ...sources] of encoded.producers) {
        producers.set(
          tool(to),
          (sources as number[][]).map(([from, parameter, field, score, byName]) => ({
            from: tool(from),
            parameter: text(parameter),
            field: text(field),
            score: number(score),
            byName: byName === 1,
          })),
        );
      }
      return new DataFlowLinks(successors, producers);
    } catch {
      return undefined;
    }
  }
}

function lookup(table: readonly string[], at: unknown): string {
  const value = typeof at === "number" ? table[at] : undefined;
  if (value === undefined) throw new Error("data-flow links: bad reference");
  return value;
}

function number(value: unknown): number {
  if (typeof value !== "number") throw new Error("data-flow links: bad score");
  return value;
}
