import type { SampleValue } from "./protocol";

/** Samples: the scalars of a probed response, kept so that later tools can use them (data flow). */

export interface ObserveOptions {
  /** Total values kept. Default 150. */
  maxValues?: number;
  /** Items looked at per array. Default 3. */
  perArray?: number;
  /** Default 6. */
  maxDepth?: number;
  /** Longer strings are not kept: they are text, not arguments. Default 200. */
  maxStringLength?: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function pathKey(prefix: string, key: string): string {
  if (IDENTIFIER.test(key)) return prefix === "" ? key : `${prefix}.${key}`;
  return `${prefix}[${JSON.stringify(key)}]`;
}

/** Scalars of a response with their concrete paths (`results[0].id`), breadth-first, capped. */
export function observeValues(response: unknown, options: ObserveOptions = {}): SampleValue[] {
  const maxValues = options.maxValues ?? 150;
  const perArray = options.perArray ?? 3;
  const maxDepth = options.maxDepth ?? 6;
  const maxString = options.maxStringLength ?? 200;
  const out: SampleValue[] = [];
  // Breadth-first: top-level fields (the ones other tools usually need) are kept before deep ones.
  let level: { path: string; value: unknown }[] = [{ path: "", value: response }];
  for (let depth = 0; depth <= maxDepth && level.length > 0 && out.length < maxValues; depth++) {
    const next: { path: string; value: unknown }[] = [];
    for (const { path, value } of level) {
      if (out.length >= maxValues) break;
      if (typeof value === "string") {
        if (value !== "" && value.length <= maxString) out.push({ path, value });
      } else if (typeof value === "number") {
        if (Number.isFinite(value)) out.push({ path, value });
      } else if (typeof value === "boolean") {
        out.push({ path, value });
      } else if (Array.isArray(value)) {
        value.slice(0, perArray).forEach((item, i) => next.push({ path: `${path}[${i}]`, value: item }));
      } else if (typeof value === "object" && value !== null) {
        for (const [key, child] of Object.entries(value)) next.push({ path: pathKey(path, key), value: child });
      }
    }
    level = next;
  }
  return out;
}

export interface PathParts {
  /** Keys from the root to the leaf, array indices dropped. */
  keys: string[];
  /** Array indices on the way (0 for the first item). */
  indices: number[];
}

export function splitPath(path: string): PathParts {
  const keys: string[] = [];
  const indices: number[] = [];
  for (const match of path.matchAll(/\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/g)) {
    if (match[1] !== undefined) indices.push(Number(match[1]));
    else if (match[2] !== undefined) keys.push(String(JSON.parse(match[2])));
    else if (match[3] !== undefined) keys.push(match[3]);
  }
  return { keys, indices };
}
