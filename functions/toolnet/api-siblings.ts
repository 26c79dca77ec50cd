import type { ToolDefinition } from "../tools/definition";

/**
 * Operations of the same API: tools registered with the same server URL. Only APIs small enough
 * for "same API" to narrow anything are kept (a tenant with one big API learns nothing from it).
 */

export const MAX_SIBLINGS = 25;

/** tool → the other operations of its API; tools of APIs larger than `max` (or alone) are absent. */
export function apiSiblings(defs: Iterable<ToolDefinition>, max = MAX_SIBLINGS): Map<string, readonly string[]> {
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
