import type { ToolDefinition } from "../tools/definition";

/**
 * Operations of the same API: tools registered with the same server URL. Only APIs small enough
 * for "same API" to narrow anything are kept (a tenant with one big API learns nothing from it).
 */

export const MAX_SIBLINGS = 25;

/** tool → the other operations of its API; tools of APIs larger than `max` (or alone) are absent. */
export function apiSiblings(defs: Iterable<Pick<ToolDefinition, "name" | "serverUrl">>, max = MAX_SIBLINGS): Map<string, readonly string[]> {
  const byServer = new Map<string, string[]>();
  for (const def of defs) {
    const list = byServer.get(def.serverUrl);
    if (list === undefined) byServer.set(def.serverUrl, [def.name]);
    else list.push(def.name);
  }
  const siblings = new Map<string, readonly string[]>();
  for (const names of byServer.values()) {
    if (names.length < 2 || names.length > max) continue;
    for (const name of names)
      siblings.set(
        name,
        names.filter((other) => other !== name),
      );
  }
  return siblings;
}

/**
 * The tools whose retrieval documents change when `changed` tools do: each tool's document holds
 * its API's other operations (tool-document.ts), so the tools themselves and their siblings in
 * every given sibling map (before and after the change).
 */
export function withSiblings(changed: Iterable<string>, ...siblingMaps: readonly ReadonlyMap<string, readonly string[]>[]): Set<string> {
  const out = new Set<string>();
  for (const name of changed) {
    out.add(name);
    for (const siblings of siblingMaps) for (const sibling of siblings.get(name) ?? []) out.add(sibling);
  }
  return out;
}

/** What a retrieval document shows of a sibling (tool-document.ts). */
export type SiblingSummary = Pick<ToolDefinition, "name" | "summary">;

/**
 * Same-API siblings with what a tool's document shows of them (name and summary), made from one
 * light row per tool (name, server URL, summary), so that no definition is parsed for them.
 * Summaries are kept only for tools that are someone's sibling.
 */
export class ApiFamilies {
  readonly siblings: Map<string, readonly string[]>;
  readonly #summaries = new Map<string, string>();

  constructor(rows: readonly Pick<ToolDefinition, "name" | "serverUrl" | "summary">[], max = MAX_SIBLINGS) {
    this.siblings = apiSiblings(rows, max);
    for (const row of rows) if (row.summary !== undefined && this.siblings.has(row.name)) this.#summaries.set(row.name, row.summary);
  }

  /** The other operations of `name`'s API, as its document shows them. */
  of(name: string): SiblingSummary[] {
    return (this.siblings.get(name) ?? []).map((sibling) => {
      const summary = this.#summaries.get(sibling);
      return summary === undefined ? { name: sibling } : { name: sibling, summary };
    });
  }
}
