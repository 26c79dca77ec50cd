import { SPLIT_MAPS } from "./document-units";

/**
 * One batch of a big document as a small document of its own: the top-level fields, a few path
 * items, and only the components they reach (directly or through other components). The usual
 * importer reads it as it would the whole document, so a batch's tools are the same as the ones
 * a synchronous import of the whole document makes.
 */

type Json = Record<string, unknown>;

/** The unit a local `$ref` lands in (`#/components/schemas/User/properties/id` → `/components/schemas/User`); undefined for others. */
export function refUnitPointer(ref: string): string | undefined {
  if (!ref.startsWith("#/")) return undefined;
  const tokens = ref.slice(2).split("/");
  const [top] = tokens;
  const depth = top === "components" ? 3 : top !== undefined && SPLIT_MAPS.has(top) && top !== "paths" ? 2 : 0;
  if (depth === 0 || tokens.length < depth) return undefined;
  // A fragment may be percent-encoded; pointer escapes (~0, ~1) stay as they are in stored pointers.
  return `/${tokens.slice(0, depth).map(percentDecoded).join("/")}`;
}

/** Every unit the local `$ref`s in `value` land in, added to `into`. */
export function collectRefUnits(value: unknown, into: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (const item of current) if (typeof item === "object" && item !== null) stack.push(item);
    } else if (typeof current === "object" && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        if (key === "$ref" && typeof item === "string") {
          const unit = refUnitPointer(item);
          if (unit !== undefined) into.add(unit);
        } else if (typeof item === "object" && item !== null) stack.push(item);
      }
    }
  }
}

/** The batch's document: `head` fields, its path items, and its components placed where their pointers say. */
export function assembleBatchDocument(head: Json, paths: { key: string; value: unknown }[], components: { pointer: string; value: unknown }[]): Json {
  const document: Json = { ...head, paths: Object.fromEntries(paths.map((p) => [p.key, p.value])) };
  for (const { pointer, value } of components) {
    const tokens = pointer.slice(1).split("/").map(unescapeToken);
    let parent = document;
    for (const token of tokens.slice(0, -1)) {
      const next = parent[token];
      if (typeof next === "object" && next !== null && !Array.isArray(next)) parent = next as Json;
      else {
        const created: Json = {};
        parent[token] = created;
        parent = created;
      }
    }
    parent[tokens.at(-1) ?? ""] = value;
  }
  return document;
}

function unescapeToken(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

function percentDecoded(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}
