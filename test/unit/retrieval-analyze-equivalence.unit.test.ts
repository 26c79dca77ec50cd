import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/lib/stats";
import { corpusItems } from "../../bench/lib/tool-corpus";
import { analyze, QueryTermIds, queryTerms, splitWords, termOf } from "../../functions/toolnet/retrieval/analyze";
import { stem } from "../../functions/toolnet/retrieval/stem";
import { TOOL_DOC_FIELDS, toolDocument } from "../../functions/toolnet/retrieval/tool-document";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { referenceAnalyze, referenceQueryTerms, referenceSplitWords, referenceStem, referenceTermOf } from "../helpers/reference-analysis";

/**
 * The analysis's fast paths (an ASCII scan instead of Unicode regular expressions, a stemmer
 * reading char codes) must give exactly what the regular expressions and the slicing stemmer
 * gave (test/helpers/reference-analysis.ts), or stored indexes and rankings would change: checked
 * on every text of the shared data, the tool documents the benches index, Unicode edge cases and
 * random strings.
 */

// The real tool-use data the repo carries: the simulated world's and the tests' own copies.
const DATA_DIRS = ["kv-seed/world", "test/fixtures/data"];

/** Every string (keys and values) of every JSON file under `dir`. */
function dataStrings(dir: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        out.push(key);
        walk(inner);
      }
    }
  };
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...dataStrings(path));
    else if (name.endsWith(".json")) walk(JSON.parse(readFileSync(path, "utf8")));
  }
  return out;
}

function randomText(next: () => number, alphabet: readonly string[], length: number): string {
  let text = "";
  for (let i = 0; i < length; i += 1) text += alphabet[Math.floor(next() * alphabet.length)] ?? "";
  return text;
}

const UNICODE_CASES = [
  "Étapes du colis CA107308006SI",
  "caféRésumé naïveÉlan ÀLaCarte",
  "ÉCOLENormale straßeGROSS STRASSE Maße",
  "İstanbul ıIİi DİYARBAKIR kırmızıRenk",
  "ΣΟΦΙΑ ΟΔΟΣ οδός ΑΣ_Β",
  "東京タワー tokyoTower 北京2024年 中文API接口",
  "ǅemal ǈubljana ǋ ǲ titlecaseǅ",
  "ª º µ ² ³ ½ Ⅻ ① ٣ ४ 𝐀𝐁𝐜 𝟘𝟙",
  "getÜberweisungen parseHTMLÄnderung XMLHttpRequest ÄÖÜäöü",
  "mp3Player IPv6Address HTTP2Server v2API 3DModels",
  "",
  " /{}_-. ",
  "ABC abcDEFghi aBCd ABCdEFg a1B A1b HTMLParser",
  "e\u0301cole combining\u0301Mark",
];

const ASCII_ALPHABET = [..."aeiouyAEIOUYbcdfghjklmnpqrstvwxzBCDFGHJKLMNPQRSTVWXZ0123456789 _-./{}:,;'\"?!()[]\t\n"];
const MIXED_ALPHABET = [...ASCII_ALPHABET, ..."éÉßẞİıΣσςЖж中文ǅªµ²Ⅻ", "𝐀", "𝐜", "\u0301"];

describe("analysis fast paths give the reference analysis's output", () => {
  let texts: string[] = [];

  beforeAll(async () => {
    const documents = importToolList(corpusItems()).tools.map((def) => toolDocument(def));
    const tmdb = (await importOpenApi(JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object)).tools.map((def) =>
      toolDocument(def),
    );
    const documentTexts = [...documents, ...tmdb].flatMap((doc) => TOOL_DOC_FIELDS.map((field) => doc[field]));
    const next = seededRandom(16);
    const randomTexts = Array.from({ length: 4_000 }, (_, i) => randomText(next, i % 2 === 0 ? ASCII_ALPHABET : MIXED_ALPHABET, 1 + Math.floor(next() * 60)));
    texts = [...new Set([...DATA_DIRS.flatMap((dir) => dataStrings(dir)), ...documentTexts, ...UNICODE_CASES, ...randomTexts])];
  });

  it("reads the whole carried data (StableToolBench, RestBench, API-Bank, AutoTools) and the benches' tool documents", () => {
    expect(texts.length).toBeGreaterThan(30_000);
    const queries = (JSON.parse(readFileSync("test/fixtures/data/stabletoolbench/retrieval_queries.json", "utf8")) as { query: string }[]).map((q) => q.query);
    expect(queries).toHaveLength(704);
    const all = new Set(texts);
    expect(queries.every((query) => all.has(query))).toBe(true);
  });

  it("splits every text into the same words, and analyses and queries it into the same terms", () => {
    for (const text of texts) {
      expect(splitWords(text), text).toEqual(referenceSplitWords(text));
      expect(analyze(text), text).toEqual(referenceAnalyze(text));
      expect(queryTerms(text), text).toEqual(referenceQueryTerms(text));
    }
    // About 40,000 texts: seconds alone, but more than the default 30 s on a loaded 2-core machine.
  }, 120_000);

  it("gives a search the index ids of those terms, with every word remembered or not", () => {
    // A vocabulary of the terms of every other text, so that many terms are unknown (-1).
    const vocabulary = new Map<string, number>();
    texts.forEach((text, i) => {
      if (i % 2 === 0) for (const term of referenceQueryTerms(text)) if (!vocabulary.has(term)) vocabulary.set(term, vocabulary.size);
    });
    const ids = new QueryTermIds((term) => vocabulary.get(term) ?? -1);
    for (const round of ["first", "remembered"]) {
      for (const text of texts) expect(ids.of(text), `${text} (${round})`).toEqual(referenceQueryTerms(text).map((term) => vocabulary.get(term) ?? -1));
    }
  });

  it("stems every word and adjacent compound of those texts, and random a–z words, the same", () => {
    const words = new Set<string>();
    for (const text of texts) {
      const split = referenceSplitWords(text);
      split.forEach((word, i) => {
        words.add(word);
        if (i > 0) words.add(`${split[i - 1] ?? ""}${word}`);
      });
    }
    const next = seededRandom(1980);
    const letters = [..."aeiouyyyybcdfghlmnprstzsseeddiinngg"];
    for (let i = 0; i < 100_000; i += 1) words.add(randomText(next, letters, 1 + Math.floor(next() * 12)));
    expect(words.size).toBeGreaterThan(200_000);
    for (const word of words) {
      expect(stem(word), word).toBe(referenceStem(word));
      expect(termOf(word), word).toBe(referenceTermOf(word));
    }
    // 200,000 words through two stemmers: ≈ 15 s on a quiet machine, 53 s seen at load 8.
  }, 120_000);

  it("agrees on the Unicode edge cases, where the ASCII path must not be taken", () => {
    for (const text of UNICODE_CASES) expect(splitWords(text), text).toEqual(referenceSplitWords(text));
    expect(splitWords("İstanbul")).toEqual(["i̇stanbul"]);
    expect(splitWords("ÉCOLENormale")).toEqual(["école", "normale"]);
    expect(splitWords("straßeGROSS")).toEqual(["straße", "gross"]);
  });
});
