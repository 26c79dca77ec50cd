import type { ToolDefinition } from "../tools/definition";
import type { StartingTool, StartingToolSource } from "../toolnet/route-fallback";

/** Where a tenant's tool definitions are read from (the registry's rows), as stored JSON text. */
export interface DefinitionRows {
  /** Every registered tool's name. */
  names(): string[];
  /** How many tools are registered (without their names); counted from `names` when absent. */
  count?(): number;
  /** One tool's stored definition; undefined when it is not registered. */
  text(name: string): string | undefined;
  /** Every tool's stored definition, one row at a time (in the registry's order). */
  eachText(): Iterable<string>;
  /** Every tool's starting form, stored with the tool (the starting-tools fallback reads it, no definition). */
  startingList(): StartingTool[];
}

/**
 * How much definition JSON is kept parsed, in characters of its stored text. A route answer
 * shows k tools; the rest are parsed when asked, and the least recently used dropped first.
 * Microsoft Graph's 11,422 definitions are 266 MB of JSON: keeping what was ever
 * parsed held them all (903 MiB of heap). ≈ 2 MB of JSON is ≈ 3,000 of StableToolBench's tools.
 */
export const MAX_KEPT_DEFINITION_CHARS = 2_000_000;

/**
 * A tenant's tool definitions as a read-only map that parses them only when asked, and keeps
 * only the most recently used ones (MAX_KEPT_DEFINITION_CHARS). Iterating (starting tools, an
 * index rebuild, data-flow summaries) streams the rows, one parsed definition at a time, and
 * keeps none of them. Registry changes are mirrored with `set` and `delete`, inside the change's
 * transaction after the rows are written, so the map always agrees with the rows. The names are
 * read only when asked for (`has`, `keys`, iterating): a route reads the definitions of the tools
 * it shows, straight from their rows, and a count; 10,000 names cost ≈ 15 ms of a cold route.
 */
export class LazyDefinitions implements ReadonlyMap<string, ToolDefinition>, StartingToolSource {
  readonly #rows: DefinitionRows;
  /** Every registered name, once read (undefined until then: the rows are the truth). */
  #nameSet: Set<string> | undefined;
  readonly #maxChars: number;
  /** Recently used definitions with their text's length, least recent first. */
  readonly #kept = new Map<string, { def: ToolDefinition; chars: number }>();
  #keptChars = 0;
  #parses = 0;

  constructor(rows: DefinitionRows, maxChars = MAX_KEPT_DEFINITION_CHARS) {
    this.#rows = rows;
    this.#maxChars = maxChars;
  }

  /** Every registered name, read on first need. */
  get #names(): Set<string> {
    this.#nameSet ??= new Set(this.#rows.names());
    return this.#nameSet;
  }

  /** Whether the names were read (tests: a route reads none). */
  get namesRead(): boolean {
    return this.#nameSet !== undefined;
  }

  get size(): number {
    if (this.#nameSet === undefined && this.#rows.count !== undefined) return this.#rows.count();
    return this.#names.size;
  }

  /** Every tool's starting form, from the stored list: the fallback parses no definition. */
  startingList(): StartingTool[] {
    return this.#rows.startingList().filter((tool) => this.#names.has(tool.name));
  }

  /** How many definitions are held parsed now (tests and benchmarks). */
  get parsedCount(): number {
    return this.#kept.size;
  }

  /** How many definitions were parsed since this map was made, streamed ones included (tests and benchmarks). */
  get parses(): number {
    return this.#parses;
  }

  has(name: string): boolean {
    return this.#names.has(name);
  }

  get(name: string): ToolDefinition | undefined {
    // Names not read: the row says whether the tool is registered.
    if (this.#nameSet !== undefined && !this.#nameSet.has(name)) return undefined;
    const kept = this.#kept.get(name);
    if (kept !== undefined) {
      // Most recently used last.
      this.#kept.delete(name);
      this.#kept.set(name, kept);
      return kept.def;
    }
    const text = this.#rows.text(name);
    if (text === undefined) return undefined;
    const def = this.#parse(text);
    this.#keep(name, def, text.length);
    return def;
  }

  set(name: string, def: ToolDefinition): void {
    this.#nameSet?.add(name);
    this.#forget(name);
    // The registry stores definitions as JSON: its length is what the row holds.
    this.#keep(name, def, JSON.stringify(def).length);
  }

  delete(name: string): void {
    this.#nameSet?.delete(name);
    this.#forget(name);
  }

  keys(): MapIterator<string> {
    return this.#names.values();
  }

  values(): MapIterator<ToolDefinition> {
    return this.#stream() as MapIterator<ToolDefinition>;
  }

  entries(): MapIterator<[string, ToolDefinition]> {
    return this.#streamEntries() as MapIterator<[string, ToolDefinition]>;
  }

  [Symbol.iterator](): MapIterator<[string, ToolDefinition]> {
    return this.entries();
  }

  forEach(callback: (value: ToolDefinition, key: string, map: ReadonlyMap<string, ToolDefinition>) => void): void {
    for (const def of this.#stream()) callback(def, def.name, this);
  }

  *#stream(): Generator<ToolDefinition, undefined, unknown> {
    for (const text of this.#rows.eachText()) {
      const def = this.#parse(text);
      if (this.#names.has(def.name)) yield def;
    }
    return undefined;
  }

  *#streamEntries(): Generator<[string, ToolDefinition], undefined, unknown> {
    for (const def of this.#stream()) yield [def.name, def];
    return undefined;
  }

  #parse(text: string): ToolDefinition {
    this.#parses += 1;
    return JSON.parse(text) as ToolDefinition;
  }

  #keep(name: string, def: ToolDefinition, chars: number): void {
    this.#kept.set(name, { def, chars });
    this.#keptChars += chars;
    // The newest is kept even alone past the bound: its caller holds it anyway.
    for (const [oldest, { chars: size }] of this.#kept) {
      if (this.#keptChars <= this.#maxChars || oldest === name) break;
      this.#kept.delete(oldest);
      this.#keptChars -= size;
    }
  }

  #forget(name: string): void {
    const kept = this.#kept.get(name);
    if (kept === undefined) return;
    this.#kept.delete(name);
    this.#keptChars -= kept.chars;
  }
}
