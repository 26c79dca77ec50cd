import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";

/**
 * Token counts with the real tokenizer: o200k_base, the encoding of GPT-4o, GPT-4.1 and the
 * o-series. Its tables take a while to unpack (hundreds of milliseconds), so the encoder is made
 * on first use and then kept for the life of the isolate.
 *
 * tiktoken splits text with the encoding's own pattern and encodes each piece on its own, so the
 * count of a text is the sum of its pieces' counts. Routing answers repeat the same pieces
 * (JSON keys, tool names, common words) all the time, so piece counts are remembered: the hot
 * path then only runs the pattern and looks pieces up, and the total is still exact.
 */
let encoder: Tiktoken | undefined;
const PIECES = new RegExp(o200kBase.pat_str, "gu");
const pieceCounts = new Map<string, number>();
const MAX_REMEMBERED_PIECES = 100_000;

function countPiece(piece: string): number {
  let n = pieceCounts.get(piece);
  if (n === undefined) {
    encoder ??= new Tiktoken(o200kBase);
    // Text that spells a special token ("<|endoftext|>") is counted as the ordinary text it is.
    n = encoder.encode(piece, [], []).length;
    if (pieceCounts.size >= MAX_REMEMBERED_PIECES) pieceCounts.clear();
    pieceCounts.set(piece, n);
  }
  return n;
}

/** Tokens of `text` under o200k_base. */
export function countTokens(text: string): number {
  let total = 0;
  for (const match of text.matchAll(PIECES)) total += countPiece(match[0]);
  return total;
}

/** Tokens of a value as JSON text (`JSON.stringify`, no spaces: what a client sends). */
export function countJsonTokens(value: unknown): number {
  return countTokens(JSON.stringify(value));
}
