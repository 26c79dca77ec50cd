import { repairSchemaKeywords } from "./schema-keywords";

/** Plain-JSON copies of dereferenced OpenAPI data, and the import's warning list. */

export type Json = Record<string, unknown>;

const MAX_SCHEMA_DEPTH = 64;
/** Nodes of one tool's copied schemas, at most: a tool must fit a storage row (2 MB) and a model's view. */
const MAX_SCHEMA_NODES = 5_000;
/**
 * References expanded inside one another, at most. Deeper ones become a stub naming the schema:
 * in a document whose schemas all reach one another (Microsoft Graph: a user's manager is a
 * directory object, whose owner is a user, …) full expansion made tools of megabytes (p50 70 KB,
 * the largest 70 MB), too big to store, route or show a model.
 */
export const MAX_REF_NESTING = 4;

/**
 * Copies dereferenced data into a fresh JSON tree. The parser shares and even cycles objects
 * (recursive schemas); tools must be independent and JSON.stringify-able, so a reference met
 * again inside its own expansion is cut there and replaced by a stub that says so.
 */
export class SchemaCopier {
  private nodes = 0;
  private readonly refSites: WeakMap<object, string>;
  private readonly warnings: Warnings;
  readonly label: string;

  constructor(refSites: WeakMap<object, string>, warnings: Warnings, label: string) {
    this.refSites = refSites;
    this.warnings = warnings;
    this.label = label;
  }

  /** A copied JSON Schema, its keywords made valid (see schema-keywords); `{}` when there is none. `what` names it in warnings. */
  schema(value: unknown, what: string): Json {
    const copy = this.value(value);
    if (!isRecord(copy)) return {};
    repairSchemaKeywords(copy, `${this.label}: ${what}`, (message) => this.warnings.add(message));
    return copy;
  }

  /** A copied JSON value. */
  value(value: unknown): unknown {
    return this.copy(value, [], new Set(), 0);
  }

  private copy(value: unknown, refs: string[], ancestors: Set<object>, depth: number): unknown {
    if (value === null || typeof value !== "object") return typeof value === "function" ? undefined : value;
    this.nodes += 1;
    if (this.nodes > MAX_SCHEMA_NODES || depth > MAX_SCHEMA_DEPTH) {
      this.warnings.add(`${this.label}: a schema is too large or too deep; it was cut short.`);
      // A list of plain values (`type: ["string", "null"]`, `enum`, `required`) is kept whole: cut
      // empty it would be invalid, and it holds no schema to grow. Anything else ends here, open.
      if (Array.isArray(value)) return value.every((item) => item === null || typeof item !== "object") ? [...value] : [];
      return {};
    }
    const ref = this.refSites.get(value);
    if (ref !== undefined && refs.includes(ref)) {
      this.warnings.add(`${this.label}: recursive schema ${ref} was cut where it refers to itself.`);
      return recursionStub(value, ref);
    }
    if (ref !== undefined && refs.length >= MAX_REF_NESTING) {
      this.warnings.add(`${this.label}: schemas nested more than ${MAX_REF_NESTING} references deep are not expanded.`);
      return referenceStub(value, `Reference to ${ref}, nested ${MAX_REF_NESTING} references deep; not expanded further.`);
    }
    if (ancestors.has(value)) {
      // A cycle that does not pass through a known reference; should not happen, but stay finite.
      this.warnings.add(`${this.label}: a self-containing value was cut.`);
      return Array.isArray(value) ? [] : {};
    }
    ancestors.add(value);
    const innerRefs = ref === undefined ? refs : [...refs, ref];
    const result: unknown = Array.isArray(value)
      ? value.map((item) => this.copy(item, innerRefs, ancestors, depth + 1) ?? null)
      : Object.fromEntries(
          Object.entries(value)
            .map(([key, item]) => [key, this.copy(key === "discriminator" ? withoutMapping(item) : item, innerRefs, ancestors, depth + 1)] as const)
            .filter(([, item]) => item !== undefined),
        );
    ancestors.delete(value);
    return result;
  }
}

/**
 * A discriminator without its `mapping`: the mapping points at the document's components, which a
 * tool does not carry, and in big documents it is most of a tool (Microsoft Graph's base entity
 * maps about 1,000 subtypes, 65 KB, inherited by nearly every schema).
 */
function withoutMapping(value: unknown): unknown {
  if (!isRecord(value) || !("mapping" in value)) return value;
  const { mapping: _mapping, ...rest } = value;
  return rest;
}

function recursionStub(value: object, ref: string): Json {
  return referenceStub(value, `Recursive reference to ${ref}; not expanded further.`);
}

function referenceStub(value: object, description: string): Json {
  const stub: Json = {};
  if (isRecord(value)) {
    if (typeof value.type === "string" || Array.isArray(value.type)) stub.type = copyJson(value.type);
    if (typeof value.title === "string") stub.title = value.title;
  }
  stub.description = description;
  return stub;
}

/** Warning list without repeats, in first-seen order. */
export class Warnings {
  private readonly seen = new Set<string>();

  add(message: string): void {
    this.seen.add(message);
  }

  list(): string[] {
    return [...this.seen];
  }
}

export function copyJson<T>(value: T): T {
  return structuredClone(value);
}

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
