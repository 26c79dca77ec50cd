import { isRecord } from "./json";

// Only local references ("#/components/..."): the world serves self-contained documents, and
// following remote references would need network access the world must not have.
const MAX_REF_HOPS = 32;

/** Follows a local `$ref` chain inside `document`; returns `value` itself when it is no reference. */
export function resolveRef(document: unknown, value: unknown): unknown {
  let current = value;
  for (let hop = 0; hop < MAX_REF_HOPS; hop++) {
    if (!isRecord(current)) return current;
    const ref = current["$ref"];
    if (typeof ref !== "string") return current;
    const target = pointerTarget(document, ref);
    if (target === undefined) return undefined;
    current = target;
  }
  return undefined; // a reference cycle: treat as unresolvable rather than loop
}

function pointerTarget(document: unknown, ref: string): unknown {
  if (ref === "#") return document;
  if (!ref.startsWith("#/")) return undefined;
  let node = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node)) node = node[key];
    else return undefined;
  }
  return node;
}
