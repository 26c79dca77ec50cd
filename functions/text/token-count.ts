import { isAsciiDigit, isAsciiLower, isAsciiSpace, isAsciiUpper } from "./ascii-chars";
import { O200K_PATTERN, o200kPieceCounter, type PieceCounter } from "./o200k-encoder";

/**
 * Token counts with the real tokenizer: o200k_base, the encoding of GPT-4o, GPT-4.1 and the
 * o-series. Its tables take a while to unpack (a few hundred milliseconds), so the encoder is made
 * on first use and then kept for the life of the isolate (text/o200k-encoder.ts).
 *
 * tiktoken splits text with the encoding's own pattern and encodes each piece on its own, so the
 * count of a text is the sum of its pieces' counts. Routing answers repeat the same pieces
 * (JSON keys, tool names, common words) all the time, so piece counts are remembered: the hot
 * path then only runs the pattern and looks pieces up, and the total is still exact.
 */
let countEncoded: PieceCounter | undefined;
const PIECES = new RegExp(O200K_PATTERN, "gu");
/**
 * The same pattern for ASCII text, without Unicode property classes (several times faster in V8):
 * on ASCII, \p{L} is A-Za-z, \p{N} 0-9, upper/title/modifier/other letters and marks A-Z, lower
 * and modifier/other letters and marks a-z. Tests check it splits as the Unicode one does.
 */
export const ASCII_PIECES = new RegExp(asciiPattern(O200K_PATTERN), "g");
const NON_ASCII = /[^\x00-\x7f]/;

function asciiPattern(pattern: string): string {
  const ascii = pattern
    .replaceAll("\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}", "A-Z")
    .replaceAll("\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}", "a-z")
    .replaceAll("\\p{L}\\p{N}", "A-Za-z0-9")
    .replaceAll("\\p{N}{1,3}", "[0-9]{1,3}");
  if (ascii.includes("\\p{")) throw new Error(`o200k_base's pattern changed; no ASCII form for ${pattern}`);
  return ascii;
}
const pieceCounts = new Map<string, number>();
const MAX_REMEMBERED_PIECES = 100_000;

function countPiece(piece: string): number {
  let n = pieceCounts.get(piece);
  if (n === undefined) {
    countEncoded ??= o200kPieceCounter();
    // Text that spells a special token ("<|endoftext|>") is counted as the ordinary text it is.
    n = countEncoded(piece);
    if (pieceCounts.size >= MAX_REMEMBERED_PIECES) pieceCounts.clear();
    pieceCounts.set(piece, n);
  }
  return n;
}

/** Tokens of `text` under o200k_base. */
export function countTokens(text: string): number {
  // Short texts (a prompt block's sentences, the join of two tools entries) recur in every
  // answer: each is counted once.
  if (text.length <= SHORT_TEXT_CHARS) {
    let n = shortCounts.get(text);
    if (n === undefined) {
      n = countPieces(text);
      if (shortCounts.size >= MAX_REMEMBERED_TEXTS) shortCounts.clear();
      shortCounts.set(text, n);
    }
    return n;
  }
  return countPieces(text);
}

const SHORT_TEXT_CHARS = 200;
const MAX_REMEMBERED_TEXTS = 10_000;
const shortCounts = new Map<string, number>();

function countPieces(text: string): number {
  let total = 0;
  for (const piece of text.match(NON_ASCII.test(text) ? PIECES : ASCII_PIECES) ?? []) total += countPiece(piece);
  return total;
}

/** Tokens of a value as JSON text (`JSON.stringify`, no spaces: what a client sends). */
export function countJsonTokens(value: unknown): number {
  return countTokens(JSON.stringify(value));
}

/**
 * One entry of a JSON array whose token count is known: its JSON text and that text's tokens.
 * Routing answers are arrays of stored tool views, each counted when it was stored.
 */
export interface CountedJson {
  readonly json: string;
  readonly tokens: number;
}

/**
 * A run of punctuation, which o200k_base's pattern keeps as one piece (` ?[^\s\p{L}\p{N}]+`): at
 * the start of a text, and at its end (there a combining mark belongs to the word before).
 */
const LEADING_PUNCTUATION = /^[^\s\p{L}\p{N}]+/u;
const TRAILING_PUNCTUATION = / ?[^\s\p{L}\p{N}\p{M}]+$/u;
const ENDS_WITH_MARK = /\p{M}$/u;

/**
 * What TRAILING_PUNCTUATION matches in `text` (undefined: nothing). A `$`-anchored Unicode regex
 * tries every position of the text, so the common case, an ASCII run of punctuation closing a JSON
 * entry (`"}}}`), is found by scanning back from the end; any other character there is left to the
 * regex.
 */
export function trailingPunctuation(text: string): string | undefined {
  let start = text.length;
  for (; start > 0; start -= 1) {
    const code = text.charCodeAt(start - 1);
    if (code >= 0x80) return TRAILING_PUNCTUATION.exec(text)?.[0];
    if (isAsciiSpace(code) || isAsciiDigit(code) || isAsciiUpper(code) || isAsciiLower(code)) break;
  }
  if (start === text.length) return undefined;
  return text.slice(start > 0 && text.charCodeAt(start - 1) === 0x20 ? start - 1 : start);
}

/** ENDS_WITH_MARK on `text` up to `end`: only a non-ASCII character can be a mark. */
function endsWithMark(text: string, end: number): boolean {
  return end > 0 && text.charCodeAt(end - 1) >= 0x80 && ENDS_WITH_MARK.test(text.slice(0, end));
}

interface Edges {
  lead: string;
  trail: string;
  /** Tokens of the entry less those of its first and last piece. */
  inner: number;
}

const edgesOf = new WeakMap<CountedJson, Edges | null>();

/**
 * An entry's first and last piece, when both are punctuation runs that join their neighbours'
 * in an array (`}}},{"`): then the array's count is the entries' counts with only the joins
 * recounted. null when the entry does not start and end that way.
 */
function edges(entry: CountedJson): Edges | null {
  let known = edgesOf.get(entry);
  if (known !== undefined) return known;
  const lead = LEADING_PUNCTUATION.exec(entry.json)?.[0];
  const trail = trailingPunctuation(entry.json);
  // A single punctuation mark before a word is part of the word's piece ("{a" is not "{" + "a").
  known =
    lead === undefined ||
    trail === undefined ||
    lead.length < 2 ||
    lead.length + trail.length >= entry.json.length ||
    endsWithMark(entry.json, entry.json.length - trail.length)
      ? null
      : { lead, trail, inner: entry.tokens - countTokens(lead) - countTokens(trail) };
  edgesOf.set(entry, known);
  return known;
}

/**
 * Tokens of `[e1,e2,…]` (JSON.stringify of the entries), exactly, from the entries' own counts:
 * the tokenizer splits text into pieces and counts each on its own, and entries of this shape
 * change only the punctuation piece where two of them meet. Falls back to counting the text.
 */
export function countJsonArrayTokens(entries: readonly CountedJson[]): number {
  if (entries.length === 0) return countTokens("[]");
  let total = 0;
  let before = "[";
  for (const entry of entries) {
    const e = edges(entry);
    if (e === null) return countTokens(`[${entries.map((x) => x.json).join(",")}]`);
    total += countTokens(before + e.lead) + e.inner;
    before = `${e.trail},`;
  }
  return total + countTokens(`${before.slice(0, -1)}]`);
}
