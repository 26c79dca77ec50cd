import { observeValues } from "../probing";
import type { SampleValue } from "../probing/protocol";
import { ID_WORDS, nameWords } from "../probing/vocabulary";
import type { ToolDefinition } from "../tools/definition";

/**
 * What a tool is known to return, as output samples for data flow (data-flow.ts): probed samples,
 * else the fields its documented response schema promises, else those of its response example.
 */

const MAX_FIELDS = 200;
/** Probed samples kept for routing per protocol version (paths matter, not values). */
export const MAX_ROUTING_SAMPLES = 100;
const MAX_SCHEMA_DEPTH = 6;

/**
 * The scalar fields a JSON Schema promises, as sample paths (`results[0].id`) with a neutral
 * value: only names and nesting decide a data-flow match, and a number coerces to any scalar type.
 */
export function schemaFields(schema: unknown, maxFields = MAX_FIELDS): SampleValue[] {
  const out: SampleValue[] = [];
  let level: { path: string; schema: unknown }[] = [{ path: "", schema }];
  for (let depth = 0; depth <= MAX_SCHEMA_DEPTH && level.length > 0 && out.length < maxFields; depth += 1) {
    const next: { path: string; schema: unknown }[] = [];
    for (const { path, schema: node } of level) {
      if (out.length >= maxFields) break;
      if (typeof node !== "object" || node === null) continue;
      const s = node as Record<string, unknown>;
      const variants = [s.anyOf, s.oneOf, s.allOf].find(Array.isArray) as unknown[] | undefined;
      if (variants !== undefined) {
        for (const variant of variants) next.push({ path, schema: variant });
        continue;
      }
      const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
      if (type === "array" || (type === undefined && s.items !== undefined)) {
        next.push({ path: `${path}[0]`, schema: s.items });
      } else if (type === "object" || (type === undefined && typeof s.properties === "object" && s.properties !== null)) {
        for (const [key, child] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
          next.push({ path: path === "" ? key : `${path}.${key}`, schema: child });
        }
      } else if (type !== "boolean" && path !== "") {
        out.push({ path, value: 1 });
      }
    }
    level = next;
  }
  return out;
}

/** What a tool is known to return: probed samples first, else its documented schema, else its example. */
export function outputFields(def: ToolDefinition, probed: readonly SampleValue[] = []): SampleValue[] {
  if (probed.length > 0) return [...probed];
  if (def.responseSchema !== undefined) {
    const fields = schemaFields(def.responseSchema);
    if (fields.length > 0) return fields;
  }
  return def.responseExample === undefined ? [] : observeValues(def.responseExample, { maxValues: MAX_FIELDS });
}

/** An output sample's path read for data flow: its keys without array indexes, its leaf field, and whether that leaf is an identifier. */
export interface SamplePath {
  readonly keys: readonly string[];
  readonly leaf: string;
  readonly isId: boolean;
}

/** `results[0].id` → keys results, id; leaf id; an identifier. */
export function samplePath(path: string): SamplePath {
  const keys = path.replace(/\[\d+\]/g, "").split(".");
  const leaf = keys[keys.length - 1] ?? "";
  const leafWords = nameWords(leaf);
  return { keys, leaf, isId: leafWords.length > 0 && leafWords.every((w) => ID_WORDS.has(w)) };
}
