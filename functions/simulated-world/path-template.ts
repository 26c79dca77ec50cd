/** A compiled path template such as `/movie/{movie_id}/credits`. */
export interface PathTemplate {
  readonly template: string;
  /** Parameter names in the order they appear. */
  readonly params: readonly string[];
  /** Per segment: 2 literal, 1 literal with parameters, 0 a bare parameter; higher is more specific. */
  readonly specificity: readonly number[];
  /** Parameter values (decoded) when `path` matches, else undefined. */
  match(path: string): Record<string, string> | undefined;
}

const PARAM = /\{([^{}]+)\}/g;

/** Parameter names in a template, in order: `/a/{x}/b/{y}` → ["x", "y"]. */
export function templateParams(template: string): string[] {
  return [...template.matchAll(PARAM)].map((m) => m[1] ?? "");
}

/** Removes a trailing slash (except for the root) so `/a/` and `/a` route alike. */
export function normalizePath(path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : path;
  return trimmed === "" ? "/" : trimmed;
}

/** Compiles a template; segments are matched one by one against the decoded request path. */
export function compilePathTemplate(template: string): PathTemplate {
  const normalized = normalizePath(template);
  const segments = normalized.split("/").slice(1).map(compileSegment);
  return {
    template: normalized,
    params: templateParams(normalized),
    specificity: segments.map((s) => s.specificity),
    match(path: string) {
      const raw = normalizePath(path).split("/").slice(1);
      if (raw.length !== segments.length) return undefined;
      const values: Record<string, string> = {};
      for (const [i, segment] of segments.entries()) {
        const decoded = safeDecode(raw[i] ?? "");
        if (decoded === undefined) return undefined;
        const found = segment.regex.exec(decoded);
        if (!found) return undefined;
        for (const [j, name] of segment.names.entries()) values[name] = found[j + 1] ?? "";
      }
      return values;
    },
  };
}

interface CompiledSegment {
  regex: RegExp;
  names: string[];
  specificity: number;
}

function compileSegment(segment: string): CompiledSegment {
  const names: string[] = [];
  let source = "";
  let last = 0;
  for (const m of segment.matchAll(PARAM)) {
    // Lazy groups still reach the anchored end, and let `{id}.json` stop before the literal.
    source += `${escapeRegex(segment.slice(last, m.index))}(.+?)`;
    names.push(m[1] ?? "");
    last = m.index + m[0].length;
  }
  source += escapeRegex(segment.slice(last));
  const bare = names.length === 1 && segment === `{${names[0] ?? ""}}`;
  const specificity = names.length === 0 ? 2 : bare ? 0 : 1;
  return { regex: new RegExp(`^${source}$`), names, specificity };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined; // malformed percent-encoding matches nothing
  }
}

/** Compares specificity vectors: positive when `a` is more specific than `b`. */
export function compareSpecificity(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
