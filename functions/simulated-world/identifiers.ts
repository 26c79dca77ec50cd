import { isRecord } from "./json";

/**
 * The identifier rule, by name only: `id`, `*_id`, `*Id` / `*ID` (camelCase), case-insensitive
 * for the bare `id`. Integer-typed parameters are not identifiers by type alone: TMDB's
 * `season_number`, `episode_number` and OpenCritic's `{year}` are ordinals a caller may choose
 * freely, and no response hands them out under an identifier key.
 */
export function isIdentifierName(name: string): boolean {
  return /^id$/i.test(name) || /_id$/i.test(name) || /[a-z0-9]I[dD]$/.test(name);
}

/** Adds to `into` every scalar value found under an identifier key anywhere in `body`. */
export function collectIdentifiers(body: unknown, into: Set<string>): void {
  // Iterative walk: recorded responses can be deep, and the world must not blow the stack.
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
    } else if (isRecord(node)) {
      for (const [key, value] of Object.entries(node)) {
        const id = isIdentifierName(key) ? identifierText(value) : undefined;
        if (id !== undefined) into.add(id);
        else stack.push(value);
      }
    }
  }
}

/** The text form under which an identifier value is handed out, or undefined for non-scalars. */
export function identifierText(value: unknown): string | undefined {
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The path parameter whose value a response's top-level `id` should carry: the template's last
 * parameter, when it is an identifier. `/movie/{movie_id}/credits` answers about the movie, so its
 * `id` is the movie's; `/tv/{tv_id}/season/{season_number}` answers about a season, whose own id
 * is not the requested `tv_id`, so nothing is echoed there.
 */
export function echoedParam(params: readonly string[]): string | undefined {
  const last = params.at(-1);
  return last !== undefined && isIdentifierName(last) ? last : undefined;
}

/**
 * Puts the requested identifier into the body's top-level `id`, keeping that field's JSON type
 * (a number stays a number when the requested value is numeric), as a real API returns the entity
 * that was asked for rather than the one in the documentation example.
 */
export function echoRequestedId(body: unknown, requested: string): void {
  if (!isRecord(body) || !("id" in body)) return;
  const current = body["id"];
  if (typeof current === "string") {
    body["id"] = requested;
  } else if (typeof current === "number") {
    const numeric = Number.isInteger(current) ? /^-?\d+$/.test(requested) : /^-?\d+(\.\d+)?$/.test(requested);
    if (numeric) body["id"] = Number(requested);
  }
}
