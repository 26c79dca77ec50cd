import { localPointerTarget } from "./json-pointer";
import { isRecord, type Json, type Warnings } from "./schema-copier";

/**
 * Before an OpenAPI document is dereferenced: a reference that cannot be resolved must cost only
 * what uses it, never the whole document (one `$ref` to a file beside the document used to reject
 * Kubernetes' 833 operations). So, in place:
 * - vendor extensions (`x-…` keys) that hold references are removed: the importer reads no
 *   extension, and their references often point at files that are not there;
 * - a reference that names nothing in the document (or another file or URL) is replaced by an
 *   open schema that says so, and one warning per reference names it and where it is used;
 * - a `$ref` whose value is not a string (a schema property named `$ref`) is removed with a
 *   warning: resolvers read every `$ref` key as a reference.
 */

/** Keys whose values are maps of names chosen by the author: an `x-` key inside is a name, not an extension. */
const NAME_MAPS = new Set([
  "properties",
  "patternProperties",
  "definitions",
  "$defs",
  "schemas",
  "parameters",
  "responses",
  "examples",
  "requestBodies",
  "headers",
  "securitySchemes",
  "links",
  "callbacks",
  "pathItems",
  "variables",
  "mapping",
  "encoding",
  "content",
  "paths",
  "webhooks",
  "dependentSchemas",
]);
const LOCATIONS_SHOWN = 3;

type Frame = { node: unknown; path: string[] };

/** Repairs `document`'s references in place; warnings say what was given up and where. */
export function repairReferences(document: Json, warnings: Warnings): void {
  const unresolved = new Map<string, { reason: string; locations: string[] }>();
  const stack: Frame[] = [{ node: document, path: [] }];
  while (stack.length > 0) {
    const frame = stack.pop();
    if (frame === undefined) break;
    const { node, path } = frame;
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push({ node: item, path: [...path, String(index)] }));
      continue;
    }
    if (!isRecord(node)) continue;
    if ("$ref" in node) repairOne(document, node, path, unresolved, warnings);
    const inNameMap = NAME_MAPS.has(path[path.length - 1] ?? "");
    for (const [key, value] of Object.entries(node)) {
      if (typeof value !== "object" || value === null) continue;
      if (!inNameMap && key.startsWith("x-")) {
        if (holdsReference(value)) delete node[key];
        continue;
      }
      stack.push({ node: value, path: [...path, key] });
    }
  }
  for (const [ref, { reason, locations }] of unresolved) {
    const shown = locations.slice(0, LOCATIONS_SHOWN).join(", ");
    const more = locations.length > LOCATIONS_SHOWN ? ` and ${locations.length - LOCATIONS_SHOWN} more places` : "";
    warnings.add(`Reference "${ref}" cannot be resolved (${reason}); left open where it is used: ${shown}${more}.`);
  }
}

function repairOne(document: Json, node: Json, path: string[], unresolved: Map<string, { reason: string; locations: string[] }>, warnings: Warnings): void {
  const ref = node.$ref;
  if (typeof ref !== "string") {
    delete node.$ref;
    warnings.add(`${toPointer(path)}: "$ref" is not a reference string (a property named "$ref"?); it is left out.`);
    return;
  }
  const reason = ref.startsWith("#")
    ? localPointerTarget(document, ref) === undefined
      ? "nothing in the document has that pointer"
      : undefined
    : "references to other files or URLs are not followed";
  if (reason === undefined) return;
  delete node.$ref;
  if (typeof node.description !== "string") node.description = `Unresolvable reference ${ref}; left open.`;
  const entry = unresolved.get(ref) ?? { reason, locations: [] };
  entry.locations.push(toPointer(path));
  unresolved.set(ref, entry);
}

/** Whether `value` holds a `$ref` anywhere (an extension field that does is dropped by the importer). */
export function holdsReference(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (isRecord(node)) {
      if ("$ref" in node) return true;
      for (const child of Object.values(node)) if (typeof child === "object" && child !== null) stack.push(child);
    }
  }
  return false;
}

/** RFC 6901 pointer as a URI fragment, the way `$ref` values spell them. */
export function toPointer(path: readonly string[]): string {
  return `#/${path.map((key) => key.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;
}
