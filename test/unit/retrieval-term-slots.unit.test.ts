import { describe, expect, it } from "vitest";
import { termIdIn, termSlots } from "../../functions/toolnet/retrieval/term-slots";

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
