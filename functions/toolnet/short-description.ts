import type { ToolDefinition } from "../tools/definition";

/** Characters of a tool's one-line description in route answers (the rest is cut, with "…"). */
export const SHORT_DESCRIPTION_CHARS = 160;

/** Whitespace runs as one space, trimmed. */
function collapsed(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * A tool's summary (else description) on one line, at most `limit` characters. Descriptions run to
 * kilobytes and an answer shows one per candidate, so a long one is collapsed from a prefix only:
 * the collapsed prefix begins the collapsed whole (a whitespace run cut at the prefix's end still
 * collapses to one space), so when it is longer than `limit` + 1 the cut is the same.
 */
export function shortDescription(def: Pick<ToolDefinition, "summary" | "description"> | undefined, limit = SHORT_DESCRIPTION_CHARS): string {
  const raw = def?.summary ?? def?.description ?? "";
  if (raw.length > 4 * limit) {
    const head = raw
      .slice(0, 4 * limit)
      .replace(/\s+/g, " ")
      .trimStart();
    if (head.length > limit + 1) return `${head.slice(0, limit - 1)}…`;
  }
  const text = collapsed(raw);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
