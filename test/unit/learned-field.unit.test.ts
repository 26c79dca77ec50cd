import { describe, expect, it } from "vitest";
import { attributeRequest, EVIDENCE_WEIGHT, FAILED_CALL_SHARE, LATER_TOOL_SHARE } from "../../functions/toolnet/learned-attribution";
import { LearnedField, SOURCES_PER_TOOL, TERMS_PER_TOOL, UNMATCHED_TERM, withLearnedField } from "../../functions/toolnet/retrieval/learned-field";

/** Own-text affinity from word lists: a part matches a tool by the words they share. */
const affinityFrom =
  (own: Record<string, string[]>) =>
  (part: string, tools: readonly string[]): number[] =>
    tools.map((tool) => (own[tool] ?? []).filter((word) => part.toLowerCase().includes(word)).length);

describe("attribution of a request's words", () => {
  it("gives a one-tool request's words (its shape: no names, numbers or quoted text) to that tool", () => {
    const words = attributeRequest('Dig up the flick "Heat" Michael Mann made in 1995', { tools: ["searchMovie"] }, "observed", () => []);
    expect([...(words.get("searchMovie")?.keys() ?? [])].sort()).toEqual(["dig", "flick", "made"]);
  });

  it("splits a multi-tool request by the part each tool's own text matches, later tools weighing less", () => {
    const words = attributeRequest(
      "Find the flight to the coast, then book a room for two nights",
      { tools: ["searchFlights", "bookHotel"] },
      "explicit",
      affinityFrom({ searchFlights: ["flight"], bookHotel: ["room", "book"] }),
    );
    expect(Object.fromEntries(words.get("searchFlights") ?? [])).toEqual({ find: 2, flight: 2, coast: 2 });
    expect(Object.fromEntries(words.get("bookHotel") ?? [])).toEqual({
      book: 2 * LATER_TOOL_SHARE,
      room: 2 * LATER_TOOL_SHARE,
      two: 2 * LATER_TOOL_SHARE,
      night: 2 * LATER_TOOL_SHARE,
    });
  });

  it("teaches a first tool that no part names the whole request (a sign-in before the action)", () => {
    const words = attributeRequest("Set an alarm for tomorrow", { tools: ["getUserToken", "addAlarm"] }, "observed", affinityFrom({ addAlarm: ["alarm"] }));
    expect([...(words.get("getUserToken")?.keys() ?? [])].sort()).toEqual(["alarm", "set", "tomorrow"]);
    expect(words.get("addAlarm")?.get("alarm")).toBe(LATER_TOOL_SHARE);
  });

  it("teaches a first tool the request's words did not find that it was found another way, at its words' weight", () => {
    const chosen = { tools: ["askAnything", "weatherToday"], failed: new Set(["askAnything"]) };
    const unmatched = attributeRequest("How many moons has the planet", { ...chosen, unmatchedFirst: true }, "observed", () => []);
    expect(unmatched.get("askAnything")?.get(UNMATCHED_TERM)).toBe(EVIDENCE_WEIGHT.observed * FAILED_CALL_SHARE);
    expect(unmatched.get("weatherToday")?.has(UNMATCHED_TERM) ?? false).toBe(false);
    const found = attributeRequest("How many moons has the planet", { ...chosen, unmatchedFirst: false }, "observed", () => []);
    expect(found.get("askAnything")?.has(UNMATCHED_TERM)).toBe(false);
  });

  it("weighs a tool whose calls all failed less", () => {
    const words = attributeRequest("dig up the flick", { tools: ["searchMovie"], failed: new Set(["searchMovie"]) }, "observed", () => []);
    expect(words.get("searchMovie")?.get("flick")).toBe(EVIDENCE_WEIGHT.observed * FAILED_CALL_SHARE);
  });
});

describe("the learned field", () => {
  it("ranks by learned words, and a source's words leave with it", () => {
    const field = new LearnedField();
    field.set("c1", "searchMovie", new Map([["flick", 1]]));
    field.set("c2", "tvSeasons", new Map([["episod", 1]]));
    expect(field.search("which flick", 10).map((r) => r.name)).toEqual(["searchMovie"]);
    expect(field.remove("c1")).toEqual(["searchMovie"]);
    expect(field.search("which flick", 10)).toEqual([]);
  });

  it("takes words away with a negative contribution", () => {
    const field = new LearnedField();
    field.set("c1", "searchMovie", new Map([["flick", 1]]));
    field.set("c2", "searchMovie", new Map([["flick", -2]]));
    expect(field.search("flick", 10)).toEqual([]);
  });

  it("keeps each tool's strongest terms and newest sources only", () => {
    const field = new LearnedField();
    field.set("big", "tool", new Map(Array.from({ length: TERMS_PER_TOOL + 10 }, (_, i) => [`term${i}`, i + 1])));
    expect(field.strongest("tool", 1000).terms).toHaveLength(TERMS_PER_TOOL);
    expect(field.search("term0", 10)).toEqual([]);
    const faded: string[] = [];
    for (let i = 0; i < SOURCES_PER_TOOL; i += 1) faded.push(...field.set(`s${i}`, "tool", new Map([["new", 1]])));
    expect(faded).toEqual(["big"]);
    expect(field.strongest("tool", 10).sources).toBe(SOURCES_PER_TOOL);
  });

  it("searches as if one source had taught nothing, exactly as a field that never had it", () => {
    const sources: [string, string, [string, number][]][] = [
      [
        "c1",
        "searchMovie",
        [
          ["flick", 2],
          ["dig", 1],
        ],
      ],
      [
        "c2",
        "searchMovie",
        [
          ["flick", 1],
          ["film", 1],
        ],
      ],
      [
        "c3",
        "tvSeasons",
        [
          ["episod", 2],
          ["flick", 1],
        ],
      ],
      ["c3", "searchPerson", [["actor", 1]]],
      [
        "c4",
        "searchPerson",
        [
          ["actor", 2],
          ["film", 1],
        ],
      ],
    ];
    const fieldOf = (left: string | undefined) => {
      const field = new LearnedField();
      for (const [source, tool, words] of sources) if (source !== left) field.set(source, tool, new Map(words));
      return field;
    };
    const whole = fieldOf(undefined);
    for (const left of ["c1", "c2", "c3", "c4", "never"]) {
      for (const text of ["dig up a flick", "film actor", "episod flick film"]) {
        expect(whole.search(text, 10, 50, left)).toEqual(fieldOf(left).search(text, 10));
      }
    }
    // The view leaves the field itself as it was.
    expect(whole.search("dig up a flick", 10)).toEqual(fieldOf(undefined).search("dig up a flick", 10));
  });

  it("finds a tool chosen where the words found nothing for any request, below a tool whose learned words match, and does not show that as a word", () => {
    const field = new LearnedField();
    for (const source of ["c1", "c2"]) field.set(source, "askAnything", new Map([[UNMATCHED_TERM, 1]]));
    field.set(
      "c1",
      "askAnything",
      new Map([
        ["moon", 1],
        [UNMATCHED_TERM, 1],
      ]),
    );
    for (const source of ["c3", "c4"]) {
      field.set(
        source,
        "searchMovie",
        new Map([
          ["flick", 1],
          ["blockbust", 1],
        ]),
      );
    }
    expect(field.search("who painted that portrait", 10).map((r) => r.name)).toEqual(["askAnything"]);
    expect(field.search("which blockbuster flick", 10).map((r) => r.name)).toEqual(["searchMovie", "askAnything"]);
    expect(field.strongest("askAnything", 10)).toEqual({ terms: [{ term: "moon", weight: 1 }], sources: 2 });
    // Its sources leave as any word's do.
    field.remove("c1");
    field.remove("c2");
    expect(field.search("who painted that portrait", 10)).toEqual([]);
  });

  it("adds learned scores to own-text scores at a weight", () => {
    const own = [
      { name: "a", score: 3 },
      { name: "b", score: 2 },
    ];
    const learned = [
      { name: "b", score: 4 },
      { name: "c", score: 1 },
    ];
    expect(withLearnedField(own, learned, 0.5)).toEqual([
      { name: "b", score: 4 },
      { name: "a", score: 3 },
      { name: "c", score: 0.5 },
    ]);
    expect(withLearnedField(own, learned, 0)).toEqual(own);
  });
});
