import type { ToolDefinition } from "../tools/definition";

/** Where a tenant's tool definitions are read from (the registry's rows). */
export interface DefinitionRows {
  /** Every registered tool's name. */
  names(): string[];
  /** One tool's definition, parsed; undefined when it is not registered. */
  one(name: string): ToolDefinition | undefined;
  /** Every tool's definition, parsed. */
  all(): Map<string, ToolDefinition>;
}

/**
 * A tenant's tool definitions as a read-only map that parses them only when asked: a route
 * answer shows k tools, so a cold object parses those k (10,000 stored definitions are ≈ 7 MB of
 * JSON, ≈ 40 ms to parse). Iterating (data flow, same-API siblings, starting tools) reads them
 * all once. Registry changes are mirrored with `set` and `delete`, inside the change's
 * transaction, so the map always agrees with the rows.
 */
export class LazyDefinitions implements ReadonlyMap<string, ToolDefinition> {
  readonly #rows: DefinitionRows;
  readonly #names: Set<string>;
  readonly #parsed = new Map<string, ToolDefinition>();
  #complete = false;

  constructor(rows: DefinitionRows) {
    this.#rows = rows;
    this.#names = new Set(rows.names());
  }

  get size(): number {
    return this.#names.size;
  }

  /** How many definitions have been parsed (tests and benchmarks). */
  get parsedCount(): number {
    return this.#complete ? this.#names.size : this.#parsed.size;
  }

  has(name: string): boolean {
    return this.#names.has(name);
  }

  get(name: string): ToolDefinition | undefined {
    if (!this.#names.has(name)) return undefined;
    let def = this.#parsed.get(name);
    if (def === undefined) {
      def = this.#rows.one(name);
      if (def !== undefined) this.#parsed.set(name, def);
    }
    return def;
  }

  set(name: string, def: ToolDefinition): void {
    this.#names.add(name);
    this.#parsed.set(name, def);
  }

  delete(name: string): void {
    this.#names.delete(name);
    this.#parsed.delete(name);
  }

  keys(): MapIterator<string> {
    return this.#names.values();
  }

  values(): MapIterator<ToolDefinition> {
    return this.#everything().values();
  }

  entries(): MapIterator<[string, ToolDefinition]> {
    return this.#everything().entries();
  }

  [Symbol.iterator](): MapIterator<[string, ToolDefinition]> {
    return this.entries();
  }

  forEach(callback: (value: ToolDefinition, key: string, map: ReadonlyMap<string, ToolDefinition>) => void): void {
    for (const [name, def] of this.#everything()) callback(def, name, this);
  }

  /** Every definition, parsed once (in the registry's order). */
  #everything(): Map<string, ToolDefinition> {
    if (!this.#complete) {
      const all = this.#rows.all();
      this.#parsed.clear();
      for (const [name, def] of all) if (this.#names.has(name)) this.#parsed.set(name, def);
      this.#complete = true;
    }
    return this.#parsed;
  }
}
