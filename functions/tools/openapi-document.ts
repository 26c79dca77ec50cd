import { isRecord, type Json, type Warnings } from "./schema-copier";

/** What every operation of an OpenAPI document is built with: the document's context, and readers of its untyped JSON. */

export type DocumentContext = {
  servers: unknown;
  security: unknown;
  securitySchemes: Json;
  serverOverride: string | undefined;
  /** Where the document was fetched from, when it was (relative server URLs resolve against it). */
  documentUrl: string | undefined;
  refSites: WeakMap<object, string>;
  warnings: Warnings;
  /** The document's `info.title`, carried by every tool. */
  apiTitle: string | undefined;
};

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The `example`, else the first value of the named `examples`, of a parameter or media type object. */
export function ownExample(object: Json): unknown {
  if (object.example !== undefined) return object.example;
  if (isRecord(object.examples)) {
    for (const example of Object.values(object.examples)) {
      if (isRecord(example) && example.value !== undefined) return example.value;
    }
  }
  return undefined;
}

export function dig(value: unknown, keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = isRecord(current) ? current[key] : undefined;
  return current;
}
