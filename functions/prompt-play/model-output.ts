/**
 * Reading the optimisation model's answers. Small models wrap JSON in fences, add prose around
 * it, or answer with the bare object; all of that is accepted. Anything unreadable comes back as
 * undefined, which the searches treat as a rejected sample: a bad answer must never end a job.
 */

export type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function tryObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text.trim());
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Balanced `{…}` spans of the text (string-aware), earliest first; capped so a pathological answer stays cheap. */
function objectSpans(text: string, max = 20): string[] {
  const spans: string[] = [];
  for (let start = text.indexOf("{"); start !== -1 && spans.length < max; start = text.indexOf("{", start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{") depth++;
      else if (c === "}") {
        depth--;
        if (depth === 0) {
          spans.push(text.slice(start, i + 1));
          break;
        }
      }
    }
  }
  return spans;
}

/** The JSON object in a model answer: a fenced block, the bare answer, or the first object inside prose. */
export function parseModelJson(text: string): JsonObject | undefined {
  const fenced = [...text.matchAll(/```[A-Za-z0-9_-]*[^\S\n]*\n?([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  for (const candidate of [...fenced, text]) {
    const parsed = tryObject(candidate);
    if (parsed !== undefined) return parsed;
  }
  for (const span of objectSpans(text)) {
    const parsed = tryObject(span);
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

/** A non-empty trimmed string field (the first of `keys` present), else undefined. */
export function readString(obj: JsonObject, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = obj[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return undefined;
}

/** A yes/no field, accepting JSON booleans and the usual words. */
export function readBoolean(obj: JsonObject, ...keys: string[]): boolean | undefined {
  for (const key of keys) {
    const value = obj[key];
    if (typeof value === "boolean") return value;
    if (typeof value === "string") {
      const word = value.trim().toLowerCase();
      if (["true", "yes", "valid", "y"].includes(word)) return true;
      if (["false", "no", "invalid", "n"].includes(word)) return false;
    }
  }
  return undefined;
}

/** A finite number in [min, max] (numeric strings and "7/10" included), else undefined. */
export function readNumber(obj: JsonObject, min: number, max: number, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = obj[key];
    const n = typeof value === "number" ? value : typeof value === "string" ? Number.parseFloat(value) : Number.NaN;
    if (Number.isFinite(n) && n >= min && n <= max) return n;
  }
  return undefined;
}

/**
 * Tool arguments from a proposal: `{"arguments": {...}}` (also `args`/`parameters`, or the
 * object as a JSON string), else the bare object itself when it has no such wrapper.
 */
export function readArguments(obj: JsonObject): JsonObject | undefined {
  for (const key of ["arguments", "args", "parameters", "invocation"]) {
    if (!(key in obj)) continue;
    const value = obj[key];
    if (isObject(value)) return value;
    if (typeof value === "string") return tryObject(value);
    return undefined;
  }
  return obj;
}

/** JSON with object keys sorted at every level: equal data gives equal text, whatever the key order. */
export function stableJson(value: unknown): string {
  const seen = new WeakSet<object>();
  const normalise = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(normalise);
    if (isObject(v)) {
      // A cycle cannot come from JSON; cut it rather than overflow the stack.
      if (seen.has(v)) return "[cycle]";
      seen.add(v);
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, normalise(v[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(normalise(value)) ?? "undefined";
}
