/** A JSON object as read from a document: keys known, values still unchecked. */
export type JsonRecord = Record<string, unknown>;

/** True for plain JSON objects (not arrays, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at `key` when it is a JSON object, else undefined. */
export function recordAt(value: unknown, key: string): JsonRecord | undefined {
  if (!isRecord(value)) return undefined;
  const inner = value[key];
  return isRecord(inner) ? inner : undefined;
}

/** The value at `key` when it is a string, else undefined. */
export function stringAt(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const inner = value[key];
  return typeof inner === "string" ? inner : undefined;
}
