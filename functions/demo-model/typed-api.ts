/**
 * Reads the typed API a run prompt shows (`declare const tools: { … }`, built by
 * functions/chain/typed-api.ts): each tool's name, its `METHOD /path` and its argument names.
 */

export interface ShownTool {
  readonly name: string;
  readonly method: string;
  /** Path template, e.g. `/person/{person_id}/movie_credits`. */
  readonly path: string;
  readonly parameters: readonly string[];
}

const OPERATION_LINE = /^\s*\*\s+(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)\s*$/;
const SIGNATURE_LINE = /^\s{2}([A-Za-z_$][\w$]*)\(args: (\{.*\})\): Promise</;

/** The tools of a typed API, in the order shown; a signature without an operation line is skipped. */
export function readTypedApi(text: string): ShownTool[] {
  const tools: ShownTool[] = [];
  let operation: { method: string; path: string } | undefined;
  for (const line of text.split("\n")) {
    const op = OPERATION_LINE.exec(line);
    if (op !== null) {
      operation = { method: op[1] ?? "GET", path: op[2] ?? "/" };
      continue;
    }
    const signature = SIGNATURE_LINE.exec(line);
    if (signature === null || operation === undefined) continue;
    tools.push({ name: signature[1] ?? "", ...operation, parameters: topLevelKeys(signature[2] ?? "{}") });
    operation = undefined;
  }
  return tools;
}

/** The property names of an object type's outermost level (`{ a: …; b?: { c: … } }` → a, b). */
export function topLevelKeys(objectType: string): string[] {
  const withoutDocs = objectType.replace(/\/\*\*[\s\S]*?\*\//g, "");
  const keys: string[] = [];
  let depth = 0;
  let token = "";
  for (const char of withoutDocs) {
    if (char === "{" || char === "<" || char === "(" || char === "[") depth++;
    if (char === "}" || char === ">" || char === ")" || char === "]") depth--;
    if (depth === 1 && char === ":") {
      const key = /["']?([\w$-]+)["']?\??\s*$/.exec(token)?.[1];
      if (key !== undefined) keys.push(key);
      token = "";
    } else if (depth === 1 && char === ";") {
      token = "";
    } else if (depth === 1 && char !== "{") {
      token += char;
    }
  }
  return keys;
}
