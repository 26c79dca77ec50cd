/**
 * Refuses JSON bodies nested deeper than a limit before anything parses them. Parsing itself
 * copes, but what comes after does not: structured clone over Durable Object RPC, recursive
 * copiers and canonicalisers overflow the stack on `{"a":{"a":…}}` 50,000 deep. Real tool
 * documents nest 17–18 levels (RestBench TMDB, autotools), so 64 leaves room.
 */
export const MAX_JSON_DEPTH = 64;

/** Deepest nesting of objects and arrays in JSON text, stopping as soon as it passes `limit`. */
export function jsonNestingDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c /* \ */) i++;
      else if (ch === 0x22 /* " */) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) depth--;
  }
  return deepest;
}
