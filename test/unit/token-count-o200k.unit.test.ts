import { readFileSync } from "node:fs";
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { randomInt, seededRandom } from "../../bench/lib/stats";
import { countJsonTokens, countTokens } from "../../functions/text/token-count";

// The reference: js-tiktoken's full o200k_base encoder (special-token text encoded as text), which
// the service used before its encoder became gpt-tokenizer's. Every count must be the same.
const reference = getEncoding("o200k_base");
const referenceCount = (text: string): number => reference.encode(text, [], []).length;

function expectSameCounts(texts: readonly string[]): void {
  const differing = texts.filter((text) => countTokens(text) !== referenceCount(text));
  expect(differing.slice(0, 5).map((text) => [JSON.stringify(text).slice(0, 200), countTokens(text), referenceCount(text)])).toEqual([]);
}

// Real tool definitions: RapidAPI operations (several languages) and RapidAPI tool documentation.
const apiCorpus = JSON.parse(readFileSync("test/fixtures/data/stabletoolbench/api_corpus.json", "utf8")) as unknown[];
const foodTools = JSON.parse(readFileSync("kv-seed/world/autotools/tools/food.tools.json", "utf8")) as { endpoints: unknown[] };
const definitions = [...apiCorpus, ...foodTools.endpoints].map((definition) => JSON.stringify(definition, null, 1));

const SPECIAL_TOKEN_TEXTS = [
  "<|endoftext|>",
  "<|fim_prefix|>",
  "<|fim_middle|>",
  "<|fim_suffix|>",
  "<|im_start|>",
  "<|im_end|>",
  "<|im_sep|>",
  "<|endofprompt|>",
  "<|endoftext",
  "|>",
];
// Scripts, emoji sequences, combining marks, right-to-left text, byte order marks, odd spaces, a lone surrogate.
const FRAGMENTS = [
  "héllo wörld",
  "naïve café",
  "e\u0301",
  "Ελληνικά",
  "Русский текст",
  "العربية",
  "עברית",
  "हिन्दी",
  "中文分词测试",
  "日本語のテキスト",
  "한국어 문장",
  "ไทย",
  "😀",
  "👩‍👩‍👧‍👦",
  "🇫🇷",
  "🚀🚀🚀",
  "\uFEFF",
  "\uFEFFusing System;",
  "\uFEFF\uFEFF",
  "\uFEFF//",
  "\u00A0",
  "\u3000",
  "\t\t",
  "\r\n",
  "\n\n\n",
  "   ",
  "'s",
  "'LL",
  "\uD800",
];

function digitRun(random: () => number): string {
  const length = 1 + randomInt(random, 60);
  let digits = "";
  for (let i = 0; i < length; i += 1) digits += String(randomInt(random, 10));
  return [digits, `${digits}.${digits}`, `-${digits}`, `${digits}px`, `v${digits}`][randomInt(random, 5)] as string;
}

function randomCodePoint(random: () => number): string {
  const ranges = [
    [0x20, 0x7e],
    [0xa0, 0x24f],
    [0x370, 0x3ff],
    [0x400, 0x4ff],
    [0x590, 0x6ff],
    [0x900, 0x97f],
    [0x3040, 0x30ff],
    [0x4e00, 0x9fff],
    [0xac00, 0xd7a3],
    [0x1f300, 0x1faff],
    [0x10000, 0x10ffff],
  ] as const;
  const [low, high] = ranges[randomInt(random, ranges.length)] as readonly [number, number];
  return String.fromCodePoint(low + randomInt(random, high - low + 1));
}

/** A text of real definition slices, fragments, digit runs, special-token text and random characters. */
function mixedText(random: () => number): string {
  let text = "";
  const parts = 1 + randomInt(random, 8);
  for (let i = 0; i < parts; i += 1) {
    const definition = definitions[randomInt(random, definitions.length)] as string;
    const start = randomInt(random, definition.length);
    const choices = [
      () => definition.slice(start, start + 1 + randomInt(random, 300)),
      () => FRAGMENTS[randomInt(random, FRAGMENTS.length)] as string,
      () => digitRun(random),
      () => SPECIAL_TOKEN_TEXTS[randomInt(random, SPECIAL_TOKEN_TEXTS.length)] as string,
      () => Array.from({ length: 1 + randomInt(random, 12) }, () => randomCodePoint(random)).join(""),
      () => " ".repeat(1 + randomInt(random, 6)),
    ];
    text += (choices[randomInt(random, choices.length)] as () => string)();
  }
  return text;
}

describe("countTokens: exactly o200k_base's counts", () => {
  it("counts every real tool definition as js-tiktoken does", () => {
    expect(definitions.length).toBeGreaterThan(2_000);
    expectSameCounts(definitions);
    for (const definition of apiCorpus.slice(0, 200)) expect(countJsonTokens(definition)).toBe(referenceCount(JSON.stringify(definition)));
  });

  it("counts random mixes of definition slices, scripts, emoji, digit runs and special-token text as js-tiktoken does", () => {
    const random = seededRandom(42);
    expectSameCounts(Array.from({ length: 3_000 }, () => mixedText(random)));
  });

  it("counts special-token text as ordinary text, and byte order marks as o200k_base's own tokens", () => {
    expectSameCounts([...SPECIAL_TOKEN_TEXTS, SPECIAL_TOKEN_TEXTS.join(" "), `a${SPECIAL_TOKEN_TEXTS.join("")}b`]);
    expect(countTokens("\uFEFF")).toBe(1);
    expectSameCounts(["\uFEFF", "\uFEFFusing System;", "x \uFEFF\uFEFF y", "\uFEFFnamespace", "a\uFEFFb", "\uFEFF출장안마", "\uFEFFé"]);
  });

  it("counts long digit runs and whitespace runs as js-tiktoken does", () => {
    const random = seededRandom(7);
    const digits = Array.from({ length: 300 }, () => digitRun(random));
    const spaces = [" ".repeat(40), "\t".repeat(9), "\n".repeat(30), " \n ".repeat(7), `a${" ".repeat(17)}b`, "\u00A0 \u3000 x"];
    expectSameCounts([...digits, digits.join(" "), ...spaces]);
  });
});
