import o200kBase from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { decodeRanks, utf8Units } from "../../functions/text/o200k-ranks";

// The reference: what the encoder was built from before the ranks were scanned in place.
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
function referenceValue(base64: string): string | number[] {
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return [...bytes];
  }
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe("o200k ranks decoded in place", () => {
  it("gives every one of o200k_base's tokens the value atob and a strict TextDecoder give", () => {
    const ranks = decodeRanks(o200kBase.bpe_ranks);
    let count = 0;
    for (const line of o200kBase.bpe_ranks.split("\n")) {
      if (line === "") continue;
      const [, first, ...tokens] = line.split(" ");
      for (const [i, token] of tokens.entries()) {
        expect(ranks[Number(first) + i]).toEqual(referenceValue(token));
        count += 1;
      }
    }
    expect(count).toBeGreaterThan(199_000);
    expect(ranks.filter((value) => typeof value !== "string").length).toBeGreaterThan(0);
  });

  it("decides what is UTF-8 as a fatal TextDecoder does, on random and edge-case bytes", () => {
    const random = seeded(7);
    const units = new Uint16Array(256);
    const cases: number[][] = [
      [0xef, 0xbb, 0xbf, 0x41], // a leading byte order mark is kept
      [0xc0, 0x80], // overlong
      [0xe0, 0x80, 0x80], // overlong
      [0xed, 0xa0, 0x80], // a surrogate
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xf0, 0x9f, 0x9a, 0x80], // 🚀
      [0xe6, 0x9d], // truncated
      [0x80],
    ];
    for (let n = 0; n < 20_000; n += 1) {
      const length = 1 + Math.floor(random() * 8);
      // Mostly bytes that form sequences, so valid and nearly valid ones are both common.
      const pool = [0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0x9f, 0xa0, 0x90, 0x8f];
      cases.push(Array.from({ length }, () => (random() < 0.5 ? (pool[Math.floor(random() * pool.length)] as number) : Math.floor(random() * 256))));
    }
    let valid = 0;
    for (const bytes of cases) {
      const input = Uint8Array.from(bytes);
      const count = utf8Units(input, input.length, units);
      let expected: string | undefined;
      try {
        expected = STRICT_UTF8.decode(input);
      } catch {
        expected = undefined;
      }
      expect(count === -1 ? undefined : String.fromCharCode(...units.subarray(0, count)), `bytes ${bytes.join(",")}`).toBe(expected);
      if (expected !== undefined) valid += 1;
    }
    expect(valid).toBeGreaterThan(1_000);
  });
});
