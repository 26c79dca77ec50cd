/**
 * The value a local JSON Pointer reference (`#`, `#/a/b~1c`, RFC 6901 in a URI fragment) names
 * inside `document`; undefined when it names nothing or is not local. Remote references are never
 * followed: schemas and documents here are self-contained, and fetching would be network access.
 */
export function localPointerTarget(document: unknown, ref: string): unknown {
  if (ref === "#") return document;
  if (!ref.startsWith("#/")) return undefined;
  let node = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (typeof node === "object" && node !== null) node = (node as Record<string, unknown>)[key];
    else return undefined;
  }
  return node;
}
