/**
 * Tool names: generated programs call `tools.<name>(...)`, so every name must be a plain
 * identifier, unique within one import, and the same every time the same source is imported.
 */

export const MAX_TOOL_NAME_LENGTH = 100;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `name` can be used as a tool name as it is. */
export function isToolName(name: string): boolean {
  return name.length <= MAX_TOOL_NAME_LENGTH && IDENTIFIER.test(name);
}

/**
 * camelCase identifier from free text: words are runs of ASCII letters and digits; an all-caps
 * word (`GET`, `URL`) is lower-cased, other words keep their inner capitals (`listPets`).
 * `GET_movie-movie_id-reviews` → `getMovieMovieIdReviews`. Empty string when nothing is left.
 */
export function toIdentifier(raw: string): string {
  // Accents are dropped rather than splitting words: "café" → "cafe".
  const words =
    raw
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .match(/[A-Za-z0-9]+/g) ?? [];
  const name = words
    .map((word, index) => {
      const normal = word === word.toUpperCase() ? word.toLowerCase() : word;
      const first = index === 0 ? normal.charAt(0).toLowerCase() : normal.charAt(0).toUpperCase();
      return first + normal.slice(1);
    })
    .join("");
  if (name === "") return "";
  // Identifiers cannot start with a digit.
  const safe = /^[0-9]/.test(name) ? `_${name}` : name;
  return safe.slice(0, MAX_TOOL_NAME_LENGTH);
}

/** Name for an operation without operationId: `GET /pets/{petId}/toys` → `getPetsByPetIdToys`. */
export function nameFromOperation(method: string, path: string): string {
  const words = [method.toLowerCase()];
  for (const segment of path.split("/")) {
    const placeholder = /^\{(.+)\}$/.exec(segment);
    if (placeholder?.[1] !== undefined) words.push("by", placeholder[1]);
    else if (segment !== "") words.push(segment);
  }
  return toIdentifier(words.join(" ")) || "operation";
}

/**
 * Hands out unique names in claim order: the first claimant keeps the base name, later ones get
 * `_2`, `_3`… (shortened so the result stays within the length limit).
 */
export class NameRegistry {
  private readonly taken = new Set<string>();

  /** True when `name` was already handed out. */
  has(name: string): boolean {
    return this.taken.has(name);
  }

  /** Marks `name` as handed out (by an earlier part of the same import). */
  reserve(name: string): void {
    this.taken.add(name);
  }

  /** Returns `base` or the first free `base_N`, and reserves it. */
  claim(base: string): string {
    let name = base.slice(0, MAX_TOOL_NAME_LENGTH);
    for (let n = 2; this.taken.has(name); n += 1) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
    }
    this.taken.add(name);
    return name;
  }
}
