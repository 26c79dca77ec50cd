import { localPointerTarget } from "../tools/json-pointer";
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
    const target = localPointerTarget(document, ref);
    if (target === undefined) return undefined;
    current = target;
  }
  return undefined; // a reference cycle: treat as unresolvable rather than loop
}
