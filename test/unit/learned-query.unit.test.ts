import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/lib/stats";
import { queryTerms } from "../../functions/toolnet/retrieval/analyze";
import { LearnedQueryTerms } from "../../functions/toolnet/retrieval/learned-query";

/** The learned field's memoised query analysis gives `queryTerms`' terms, in order, whatever it remembered before. */

const WORDS = [
  "Can",
  "you",
  "find",
  "flights",
  "to",
  "Paris",
  "2024",
  "the",
  "weather",
  "in",
  "New",
  "York",
  "convert",
  "USD",
  "emails",
  "running",
  "runs",
  "a",
  "is",
];

function randomText(random: () => number): string {
  return Array.from({ length: 1 + Math.floor(random() * 12) }, () => WORDS[Math.floor(random() * WORDS.length)] ?? "a").join(random() < 0.5 ? " " : ", ");
}

describe("the learned field's query terms", () => {
  it("are queryTerms' terms and compounds, in order, then the extra term", () => {
    const terms = new LearnedQueryTerms();
    const random = seededRandom(3);
    for (let n = 0; n < 500; n += 1) {
      const text = randomText(random);
      expect([...terms.of(text, "#extra")]).toEqual([...queryTerms(text), "#extra"]);
    }
    expect([...terms.of("", "#extra")]).toEqual(["#extra"]);
  });

  it("stay right after its dictionary of terms fills and starts again", () => {
    const terms = new LearnedQueryTerms();
    const known = "find flights to Paris";
    // Words remembered before the dictionary starts again, asked again after.
    expect([...terms.of(known, "#")]).toEqual([...queryTerms(known), "#"]);
    // More distinct terms than the dictionary keeps (50,000), a few texts at a time.
    for (let n = 0; n < 52_000; n += 40) {
      const text = Array.from({ length: 40 }, (_, i) => `zq${(n + i).toString(36)}x`).join(" ");
      expect([...terms.of(text, "#")]).toEqual([...queryTerms(text), "#"]);
      // Known words asked now and then: remembered right up to the moment the dictionary starts again.
      if (n % 1_000 === 0) expect([...terms.of(known, "#")]).toEqual([...queryTerms(known), "#"]);
    }
    expect([...terms.of(known, "#")]).toEqual([...queryTerms(known), "#"]);
  });
});
