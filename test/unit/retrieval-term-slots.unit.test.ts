import { describe, expect, it } from "vitest";
import { termIdIn, termSlots } from "../../functions/toolnet/retrieval/term-slots";
import { nameTables, StoredNames, wellFormedNames } from "../../functions/toolnet/retrieval/stored-names";

describe("term slots", () => {
  it("finds every term's id and no other word, collisions and all", () => {
    const terms = Array.from({ length: 5_000 }, (_, i) => `term${i.toString(36)}`);
    const slots = termSlots(terms);
    expect(slots.length).toBe(16_384);
    terms.forEach((term, id) => expect(termIdIn(slots, terms, term)).toBe(id));
    for (const word of ["", "term", "termzzzz", "tërm1", "TERM1"]) expect(termIdIn(slots, terms, word)).toBe(-1);
  });

  it("answers for no terms and for one", () => {
    expect(termIdIn(termSlots([]), [], "any")).toBe(-1);
    expect(termIdIn(termSlots(["only"]), ["only"], "only")).toBe(0);
  });
});

describe("stored names", () => {
  it("finds each name's position and reads each name back, in any script, and refuses damaged tables", () => {
    const names = ["getMovie", "créerFacture", "検索", "searchPeople", ...Array.from({ length: 300 }, (_, i) => `tool_${i}`)];
    const tables = nameTables(names);
    expect(wellFormedNames(tables)).toBe(true);
    // As read back from storage: views into one buffer.
    const stored = new StoredNames(tables);
    expect(stored.count).toBe(names.length);
    names.forEach((name, position) => expect(stored.positionOf(name)).toBe(position));
    for (const word of ["", "getmovie", "tool_300", "検"]) expect(stored.positionOf(word)).toBe(-1);
    expect(stored.at(2)).toBe("検索");
    expect(stored.all()).toEqual(names);
    expect(wellFormedNames({ ...tables, bytes: tables.bytes.subarray(1) })).toBe(false);
  });

  it("stores each name's UTF-8 bytes, as encoded one by one, for any text (astral, lone surrogates)", () => {
    const oneByOne = (list: string[]) => list.map((name) => [...new TextEncoder().encode(name)]);
    const asStored = (list: string[]) => {
      const { offsets, bytes } = nameTables(list);
      return list.map((_, i) => [...bytes.subarray(offsets[i] ?? 0, offsets[i + 1] ?? 0)]);
    };
    for (const list of [
      ["getMovie", "créerFacture", "検索", "ü", "x".repeat(70)],
      ["emoji😀name", "plain"],
      // A lone high surrogate then a lone low one: joined they would make one pair.
      ["end\ud83d", "\ude00start", "lone\udc00"],
    ])
      expect(asStored(list)).toEqual(oneByOne(list));
  });
});
