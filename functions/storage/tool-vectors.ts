import { allRows, run } from "./sql";

/**
 * Tool embeddings of a tenant (`tool_embeddings`, part of the routing store): one vector per tool,
 * made by the Worker once per definition and embeddings model, and kept in memory by model once
 * read. Only vectors of the tools' current definitions count.
 */
export class ToolVectors {
  readonly #sql: SqlStorage;
  readonly #currentHashes: () => Map<string, string>;
  /** By model name: tool → vector, as read (dropped on every change). */
  #byModel = new Map<string, Map<string, number[]>>();

  constructor(sql: SqlStorage, currentHashes: () => Map<string, string>) {
    this.#sql = sql;
    this.#currentHashes = currentHashes;
  }

  /** The stored vectors of one model, for the tools' current definitions only. */
  of(model: string): Map<string, number[]> {
    let vectors = this.#byModel.get(model);
    if (vectors === undefined) {
      const current = this.#currentHashes();
      vectors = new Map(
        allRows<{ tool: string; hash: string; vector: string }>(this.#sql, "SELECT tool, hash, vector FROM tool_embeddings WHERE model = ?", model)
          .filter((row) => current.get(row.tool) === row.hash)
          .map((row) => [row.tool, JSON.parse(row.vector) as number[]]),
      );
      this.#byModel.set(model, vectors);
    }
    return vectors;
  }

  /** Tools whose vector (for this model) is missing or was made for an older definition. */
  missing(model: string): { name: string; hash: string }[] {
    const embedded = new Map(
      allRows<{ tool: string; hash: string }>(this.#sql, "SELECT tool, hash FROM tool_embeddings WHERE model = ?", model).map((r) => [r.tool, r.hash]),
    );
    return [...this.#currentHashes()].filter(([name, hash]) => embedded.get(name) !== hash).map(([name, hash]) => ({ name, hash }));
  }

  /** Store vectors computed by the Worker. */
  store(model: string, entries: readonly { tool: string; hash: string; vector: number[] }[]): void {
    for (const entry of entries) {
      run(
        this.#sql,
        "INSERT INTO tool_embeddings (tool, hash, model, vector) VALUES (?, ?, ?, ?) ON CONFLICT (tool) DO UPDATE SET hash = excluded.hash, model = excluded.model, vector = excluded.vector",
        entry.tool,
        entry.hash,
        model,
        JSON.stringify(entry.vector),
      );
    }
    this.forget();
  }

  /** Removed tools lose their vectors. */
  remove(names: readonly string[]): void {
    for (const name of names) run(this.#sql, "DELETE FROM tool_embeddings WHERE tool = ?", name);
    this.forget();
  }

  /** Drop what was read (definitions changed: their current hashes may differ). */
  forget(): void {
    this.#byModel = new Map();
  }
}
