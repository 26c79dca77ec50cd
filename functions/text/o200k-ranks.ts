/** Decoding js-tiktoken's ranks string into gpt-tokenizer's ranks, fast enough for an isolate's first count. */

/**
 * js-tiktoken's rank lines, "! <first rank> <base64 token> <base64 token> …", as gpt-tokenizer's
 * ranks. Scanned in place into reused buffers: 200,000 tokens made through `split`, `atob` and a
 * TextDecoder call each were half of building the encoder (bench tokenizer-load --profile).
 */
export function decodeRanks(lines: string): (string | number[])[] {
  const ranks: (string | number[])[] = [];
  const bytes = new Uint8Array(MAX_TOKEN_BYTES);
  const units = new Uint16Array(MAX_TOKEN_BYTES);
  for (const line of lines.split("\n")) {
    if (line === "") continue;
    const rankStart = line.indexOf(" ") + 1;
    let start = line.indexOf(" ", rankStart) + 1;
    let rank = Number(line.slice(rankStart, start - 1));
    while (start > 0 && start < line.length) {
      const space = line.indexOf(" ", start);
      const end = space === -1 ? line.length : space;
      const length = base64Bytes(line, start, end, bytes);
      const unitCount = utf8Units(bytes, length, units);
      ranks[rank] =
        unitCount === -1 ? Array.from(bytes.subarray(0, length)) : String.fromCharCode.apply(null, units.subarray(0, unitCount) as unknown as number[]);
      rank += 1;
      start = end + 1;
    }
  }
  return ranks;
}

/** o200k_base's longest token is 128 bytes. */
const MAX_TOKEN_BYTES = 256;
const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_VALUE = new Uint8Array(128);
for (let i = 0; i < BASE64_DIGITS.length; i += 1) BASE64_VALUE[BASE64_DIGITS.charCodeAt(i)] = i;

/** Decodes the base64 of `text[start, end)` into `bytes`; returns how many bytes. */
function base64Bytes(text: string, start: number, end: number, bytes: Uint8Array): number {
  let stop = end;
  while (stop > start && text.charCodeAt(stop - 1) === 61 /* = */) stop -= 1;
  let length = 0;
  let bits = 0;
  let held = 0;
  for (let i = start; i < stop; i += 1) {
    bits = (bits << 6) | (BASE64_VALUE[text.charCodeAt(i)] as number);
    held += 6;
    if (held >= 8) {
      held -= 8;
      bytes[length] = (bits >> held) & 0xff;
      length += 1;
    }
  }
  return length;
}

/**
 * The UTF-16 code units of UTF-8 `bytes`, strictly (overlong forms, surrogates and truncated
 * sequences are not UTF-8, as a fatal TextDecoder decides; a leading U+FEFF is kept); -1 when the
 * bytes are not UTF-8, and the token stays bytes.
 */
export function utf8Units(bytes: Uint8Array, length: number, units: Uint16Array): number {
  let count = 0;
  for (let i = 0; i < length; ) {
    const lead = bytes[i] as number;
    const size = lead < 0x80 ? 1 : lead < 0xc2 ? 0 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf5 ? 4 : 0;
    if (size === 0 || i + size > length) return -1;
    if (size === 1) {
      units[count] = lead;
      count += 1;
      i += 1;
      continue;
    }
    const second = bytes[i + 1] as number;
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    if (second < low || second > high) return -1;
    let code = (lead & (0xff >> (size + 1))) * 64 + (second & 0x3f);
    for (let k = 2; k < size; k += 1) {
      const next = bytes[i + k] as number;
      if ((next & 0xc0) !== 0x80) return -1;
      code = code * 64 + (next & 0x3f);
    }
    if (code >= 0x10000) {
      units[count] = 0xd800 + ((code - 0x10000) >> 10);
      units[count + 1] = 0xdc00 + ((code - 0x10000) & 0x3ff);
      count += 2;
    } else {
      units[count] = code;
      count += 1;
    }
    i += size;
  }
  return count;
}
