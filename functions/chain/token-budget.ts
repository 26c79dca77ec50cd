/**
 * Everything fed back to the model (errors, tool outputs, earlier programs) is cut to a token
 * budget, and says so. Tokens are estimated at 4 characters each: a real tokenizer's tables are
 * megabytes, too much for every Worker start, and the estimate errs on the generous side for code
 * and JSON (benchmarks count with a real tokenizer).
 */

export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The text, or its head and tail with a note of what was cut, within `budget` tokens. */
export function clipToTokens(text: string, budget: number): { text: string; truncated: boolean } {
  const maxChars = Math.max(0, budget) * CHARS_PER_TOKEN;
  if (text.length <= maxChars) return { text, truncated: false };
  const keep = Math.max(0, maxChars - 120);
  const head = text.slice(0, Math.ceil(keep * 0.7));
  const tail = text.slice(text.length - Math.floor(keep * 0.3));
  const cut = text.length - head.length - tail.length;
  return {
    text: `${head}\n[… truncated: ${cut} characters (about ${estimateTokens(text.slice(head.length, text.length - tail.length))} tokens) left out to fit the token budget …]\n${tail}`,
    truncated: true,
  };
}
