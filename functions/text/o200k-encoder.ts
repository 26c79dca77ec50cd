import { BytePairEncodingCore } from "gpt-tokenizer/BytePairEncodingCore";
import { O200KBase } from "gpt-tokenizer/encodingParams/o200k_base";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { decodeRanks } from "./o200k-ranks";

/**
 * The o200k_base encoder (GPT-4o, GPT-4.1, the o-series), built on first use from ranks that cost
 * nothing until then.
 *
 * The ranks are js-tiktoken's: one string literal of base64 tokens, which an isolate only scans
 * when it starts (gpt-tokenizer's own ranks module is a 200,000-entry array literal that every
 * isolate would build at startup). The encoder is gpt-tokenizer's: in workerd it adds 9.5 MiB of
 * live heap against js-tiktoken's 46.8 and is built in less than half the time (bench
 * tokenizer-load).
 */
export const O200K_PATTERN: string = o200kBase.pat_str;

/** Tokens of one piece of text (a match of O200K_PATTERN), special-token text counted as text. */
export type PieceCounter = (piece: string) => number;

export function o200kPieceCounter(): PieceCounter {
  const core = new BytePairEncodingCore({
    ...O200KBase(decodeRanks(o200kBase.bpe_ranks)),
    // The pattern token-count.ts splits with: V8 compiles a Unicode pattern once per source (tens
    // of milliseconds), and gpt-tokenizer's own spelling of it would be a second one.
    tokenSplitRegex: new RegExp(O200K_PATTERN, "gu"),
    // No merge cache: token-count.ts remembers whole pieces' counts already.
    mergeCacheSize: 0,
  });
  keepByteOrderMarks(core);
  // No special tokens allowed: "<|endoftext|>" in a text is ordinary text, as the model sees it.
  return (piece) => core.countNative(piece);
}

// Strict (what is not UTF-8 stays bytes, as gpt-tokenizer decides) and keeping a leading U+FEFF.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The text of UTF-8 bytes (undefined when they are not UTF-8), with a leading byte order mark:
 * gpt-tokenizer's own decoder drops it, and o200k_base has nine tokens that start with one
 * ("\uFEFF", "\uFEFFusing", …), which would then be looked up as another token or none.
 */
function textOf(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function startsWithByteOrderMark(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

interface RankLookups {
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined;
  getBpeRankFromString(text: string): number | undefined;
}

/**
 * gpt-tokenizer 4.0 looks merged bytes up by their decoded text, which loses a leading byte order
 * mark (U+FEFF then counts 2 tokens, not 1). Its lookup is private, so this encoder's own lookup is
 * replaced, for bytes that start with the mark only.
 */
function keepByteOrderMarks(core: BytePairEncodingCore): void {
  const lookups = core as unknown as RankLookups;
  const fromBytes = lookups.getBpeRankFromBytes.bind(core);
  const fromString = lookups.getBpeRankFromString.bind(core);
  lookups.getBpeRankFromBytes = (bytes) => {
    const text = startsWithByteOrderMark(bytes) ? textOf(bytes) : undefined;
    return text === undefined ? fromBytes(bytes) : fromString(text);
  };
}
