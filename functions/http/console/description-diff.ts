import { diffWords } from "diff";

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/**
 * A word diff of two descriptions (jsdiff) as HTML: removed words in <del>, added ones in <ins>,
 * everything escaped. Used to show what Play2Prompt changed in a tool's description.
 */
export function wordDiffHtml(before: string, after: string): string {
  return diffWords(before, after)
    .map((part) => (part.added ? `<ins>${escapeHtml(part.value)}</ins>` : part.removed ? `<del>${escapeHtml(part.value)}</del>` : escapeHtml(part.value)))
    .join("");
}
