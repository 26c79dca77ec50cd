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
    for (const name of names) siblings.set(name, names.filter((other) => other !== name));
  }
  return siblings;
}
