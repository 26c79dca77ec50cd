import { describe, expect, it } from "vitest";
import { SHORT_DESCRIPTION_CHARS, shortDescription } from "../../functions/toolnet/short-description";

/** The plain definition: the whole text collapsed, then cut. */
function reference(text: string, limit = SHORT_DESCRIPTION_CHARS): string {
  const collapsed = text.replace(/\s+/g, " ").trim();
  return collapsed.length > limit ? `${collapsed.slice(0, limit - 1)}…` : collapsed;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("shortDescription", () => {
  it("prefers the summary, falls back to the description, and collapses whitespace", () => {
    expect(shortDescription({ summary: "  Find   a\nmovie ", description: "long" })).toBe("Find a movie");
    expect(shortDescription({ summary: undefined, description: "Get\tweather" })).toBe("Get weather");
    expect(shortDescription(undefined)).toBe("");
  });

  it("cuts a long text at the limit with an ellipsis", () => {
    const text = "word ".repeat(500);
    const short = shortDescription({ summary: undefined, description: text });
    expect(short).toHaveLength(SHORT_DESCRIPTION_CHARS);
    expect(short.endsWith("…")).toBe(true);
  });

  it("gives what collapsing the whole text gives, for texts of every shape around the prefix it reads", () => {
    const random = seeded(16);
    const pieces = [" ", "  ", "\n\n\t ", " ".repeat(700), "a", "bc", "déjà", "x".repeat(150), "\u00a0", "\u2003 ", "🙂"];
    for (let i = 0; i < 3_000; i += 1) {
      const parts: string[] = [];
      const count = 1 + Math.floor(random() * 120);
      for (let j = 0; j < count; j += 1) parts.push(pieces[Math.floor(random() * pieces.length)] ?? "");
      const text = parts.join("");
      for (const limit of [SHORT_DESCRIPTION_CHARS, 5, 1]) {
        expect(shortDescription({ summary: undefined, description: text }, limit), JSON.stringify(text.slice(0, 80))).toBe(reference(text, limit));
      }
    }
  });

  it("reads a prefix when the text starts with a long whitespace run or is mostly whitespace", () => {
    for (const text of [
      `${" ".repeat(639)}a${" ".repeat(2000)}b`,
      `${" ".repeat(5_000)}tail`,
      `a ${" ".repeat(700)}${"b".repeat(300)}`,
      "a".repeat(161),
      `${"a".repeat(160)}   `,
    ]) {
      expect(shortDescription({ summary: undefined, description: text })).toBe(reference(text));
    }
  });
});
