import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { toolViews } from "../../functions/toolnet/answer-budget";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { ASCII_PIECES, countJsonArrayTokens, countTokens, trailingPunctuation } from "../../functions/text/token-count";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { readFileSync } from "node:fs";

// An independent o200k_base encoder (the full js-tiktoken entry point), not the service's module.
const encoding = getEncoding("o200k_base");
const tokens = (text: string): number => encoding.encode(text, [], []).length;
const entry = (value: unknown) => ({ json: JSON.stringify(value), tokens: tokens(JSON.stringify(value)) });

describe("countJsonArrayTokens: an array's tokens from its entries' stored counts", () => {
  it("equals the tokenizer's count of the array's JSON for every RestBench TMDB view, in many orders", async () => {
    const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object;
    const { tools } = await importOpenApi(document);
    const views = tools.flatMap((def) => {
      const v = toolViews(def);
      return [v.compact, v.requiredOnly];
    });
    const entries = views.map(entry);
    for (let start = 0; start < entries.length; start += 7) {
      const some = [...entries.slice(start, start + 9), ...entries.slice(0, start % 5)];
      expect(countJsonArrayTokens(some)).toBe(tokens(JSON.stringify(some.map((e) => JSON.parse(e.json) as unknown))));
    }
    expect(countJsonArrayTokens([])).toBe(tokens("[]"));
  });

  it("stays exact where entries' edges join their neighbours unusually (spaces, marks, digits, one-character edges)", () => {
    const odd = [
      { a: "ends with a space " },
      { a: "two spaces  " },
      { a: "a mark é\u0301" },
      { a: 12345 },
      { a: ["x", "?!"] },
      { a: "e\u0301" },
      "plain string",
      ["a"],
      [1, 2],
      { "": "" },
      { a: "emoji 🚀" },
      { a: "quote's" },
    ];
    const entries = odd.map(entry);
    for (let i = 0; i < entries.length; i += 1) {
      for (let j = 0; j < entries.length; j += 1) {
        const pair = [entries[i], entries[j], entries[(i + j) % entries.length]] as { json: string; tokens: number }[];
        expect(countJsonArrayTokens(pair), `${pair.map((e) => e.json).join(" | ")}`).toBe(tokens(`[${pair.map((e) => e.json).join(",")}]`));
      }
    }
  });

  it("agrees with countTokens on the same text", () => {
    const views = [
      { type: "function", function: { name: "a", description: "b." } },
      { type: "function", function: { name: "c", description: "d" } },
    ].map(entry);
    expect(countJsonArrayTokens(views)).toBe(countTokens(`[${views.map((v) => v.json).join(",")}]`));
  });
});

describe("trailingPunctuation: the run of punctuation o200k_base's pattern keeps as a text's last piece", () => {
  // The pattern's piece (` ?[^\s\p{L}\p{N}]+`) at a text's end, where a combining mark belongs to the word before.
  const trailing = / ?[^\s\p{L}\p{N}\p{M}]+$/u;

  it("finds what the Unicode regex finds, for view JSON and for texts ending in spaces, marks, digits, letters and non-ASCII", async () => {
    const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object;
    const { tools } = await importOpenApi(document);
    const ends = [
      "",
      "}",
      '"}}}',
      " }]",
      "  }",
      "\t}",
      '\n"}',
      "a",
      "1",
      "a.",
      "x ?!",
      " ",
      "é",
      "e\u0301",
      "e\u0301}",
      "🚀",
      "a🚀",
      "a 🚀",
      "}🚀}",
      "\u00a0}",
      "»",
      "x\u0001",
      "𝒜}",
      "東京。",
      "_",
      "-_-",
    ];
    const texts = [
      ...tools.flatMap((def) => [JSON.stringify(toolViews(def).compact), JSON.stringify(toolViews(def).requiredOnly)]),
      ...ends.flatMap((end) => [end, `{"a":"b${end}`, `word${end}`, `x ${end}`, `東${end}`]),
    ];
    for (const text of texts) expect(trailingPunctuation(text), JSON.stringify(text)).toBe(trailing.exec(text)?.[0]);
  });
});

describe("countTokens", () => {
  it("splits ASCII text with the fast pattern exactly as o200k_base's own pattern does", async () => {
    const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object;
    const { tools } = await importOpenApi(document);
    const unicode = new RegExp(o200kBase.pat_str, "gu");
    const texts = [
      ...tools.flatMap((def) => [JSON.stringify(def), JSON.stringify(toolViews(def).compact)]),
      "Don't SPLIT it's WE'RE they'LL\n\n  two  spaces\t\ttabs \r\n 1234567 3.14 a/b/c\n/ x//y ?!... --flag=VALUE_1 CamelCaseWord HTTPServer",
    ].filter((text) => !/[^\x00-\x7f]/.test(text));
    expect(texts.length).toBeGreaterThan(50);
    for (const text of texts) expect(text.match(ASCII_PIECES)).toEqual(text.match(unicode));
    for (const text of texts.slice(0, 20)) expect(countTokens(text)).toBe(tokens(text));
    expect(countTokens("naïve café, 東京 🚀")).toBe(tokens("naïve café, 東京 🚀"));
  });
});
