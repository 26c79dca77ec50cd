import { describe, expect, it } from "vitest";
import { attributeRequest, RIVAL_SHARE, rivalWords } from "../../functions/toolnet/learned-attribution";
import { LearnedField, UNMATCHED_TERM } from "../../functions/toolnet/retrieval/learned-field";

/**
 * Competition for a request's words (issue 45, the careless chatbot): a conversation that chose
 * one tool takes a share of its words away from the tools its words ranked above it.
 */

describe("what a chosen tool's request takes from its rivals", () => {
  const learned = attributeRequest("convert my euros into dollars", { tools: ["convertCurrency"] }, "observed", () => []);
  const chosen = learned.get("convertCurrency") ?? new Map<string, number>();

  it("takes RIVAL_SHARE of the chosen tool's weight, only on words use taught the rival, never more than use gave", () => {
    const fromUse = new Map([
      ["euro", 1],
      ["dollar", 0.1],
      ["cat", 1],
    ]);
    const taken = rivalWords(learned, "convertCurrency", [{ tool: "catPictures", fromUse }]);
    expect(Object.fromEntries(taken.get("catPictures") ?? [])).toEqual({
      euro: -RIVAL_SHARE * (chosen.get("euro") ?? 0),
      dollar: -Math.min(RIVAL_SHARE * (chosen.get("dollar") ?? 0), 0.1),
    });
  });

  it("takes nothing a rival learned from example requests alone", () => {
    expect(rivalWords(learned, "convertCurrency", [{ tool: "exchangeRates", fromUse: new Map() }]).size).toBe(0);
  });

  it("takes nothing from a rival that holds none of the words, from a tool the request chose, or the pseudo-word", () => {
    const unmatched = new Map([["convertCurrency", new Map([...chosen, [UNMATCHED_TERM, 1]])]]);
    const taken = rivalWords(unmatched, "convertCurrency", [
      {
        tool: "catPictures",
        fromUse: new Map([
          ["cat", 1],
          [UNMATCHED_TERM, 1],
        ]),
      },
      { tool: "convertCurrency", fromUse: new Map([["euro", 1]]) },
    ]);
    expect(taken.size).toBe(0);
  });
});

describe("a source that only takes words away", () => {
  it("is no evidence for the tool: its field's confidence counts only the sources that teach it", () => {
    const field = new LearnedField();
    field.set(
      "careless",
      "catPictures",
      new Map([
        ["euro", 1],
        ["dollar", 1],
        ["rate", 1],
      ]),
    );
    field.set("other", "convertCurrency", new Map([["money", 1]]));
    const before = field.search("today's rate", 10).find((r) => r.name === "catPictures")?.score ?? 0;
    field.set(
      "later",
      "catPictures",
      new Map([
        ["euro", -RIVAL_SHARE],
        ["dollar", -RIVAL_SHARE],
      ]),
    );
    expect(field.strongest("catPictures", 10).sources).toBe(1);
    // "rate" was not taken away: its score moves only by the field's shorter length, never by a second source's confidence.
    const after = field.search("today's rate", 10).find((r) => r.name === "catPictures")?.score ?? 0;
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(before * 1.2);
  });
});
