import { graphFailure } from "./errors";

/**
 * The two special nodes of ToolNet (§3: V = T ∪ {start, end}). Their ids use angle brackets,
 * which no registered tool name can contain (tool names are identifiers, see
 * functions/tools/tool-names.ts); the graph still refuses them as tool names, because it also
 * accepts other naming schemes (RestBench's "GET /search/person").
 */
export const START = "<start>";
export const END = "<end>";

/** Longest tool name the graph accepts; far above any real name, it only stops garbage. */
export const MAX_NODE_NAME_LENGTH = 256;

/** True for the ids of the start and end nodes. */
export function isReservedId(name: string): boolean {
  return name === START || name === END;
}

/** Names in `names` that cannot be tool nodes: empty, over-long, or reserved. */
export function invalidToolNames(names: Iterable<string>): string[] {
  const bad = new Set<string>();
  for (const name of names) {
    // typeof: names also arrive from parsed JSON, where the type annotation promises nothing
    const ok = typeof name === "string" && name.length > 0 && name.length <= MAX_NODE_NAME_LENGTH;
    if (!ok || isReservedId(name)) bad.add(name);
  }
  return [...bad];
}

/** Throws when any of `names` cannot be a tool node. */
export function assertToolNames(names: Iterable<string>): void {
  const bad = invalidToolNames(names);
  if (bad.length === 0) return;
  const reserved = bad.filter(isReservedId);
  if (reserved.length > 0) {
    throw graphFailure({
      code: "reserved_name",
      message: `${reserved.join(", ")} ${reserved.length === 1 ? "is a reserved node id" : "are reserved node ids"}, not tool names.`,
      names: reserved,
    });
  }
  throw graphFailure({
    code: "invalid_tool_name",
    message: `Tool names must be strings of 1–${MAX_NODE_NAME_LENGTH} characters; got ${bad.map((n) => JSON.stringify(String(n).slice(0, 40))).join(", ")}.`,
    names: bad.map(String),
  });
}
