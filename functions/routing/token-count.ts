import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";

/**
 * Token counts with the real tokenizer: o200k_base, the encoding of GPT-4o, GPT-4.1 and the
 * o-series. Its tables take a while to unpack (hundreds of milliseconds), so the encoder is made
 * on first use and then kept for the life of the isolate.
 */
let encoder: Tiktoken | undefined;

/** Tokens of `text` under o200k_base. */
export function countTokens(text: string): number {
  encoder ??= new Tiktoken(o200kBase);
  // Text that spells a special token ("<|endoftext|>") is counted as the ordinary text it is.
  return encoder.encode(text, [], []).length;
}

/** Tokens of a value as JSON text (`JSON.stringify`, no spaces: what a client sends). */
export function countJsonTokens(value: unknown): number {
  return countTokens(JSON.stringify(value));
}
