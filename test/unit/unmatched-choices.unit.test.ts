import { describe, expect, it } from "vitest";
import { UNMATCHED_CHOICES, unmatchedChoices } from "../../functions/toolnet/first-step-prior";
import { LearnedField, UNMATCHED_TERM } from "../../functions/toolnet/retrieval/learned-field";
import { fuseFirstStep } from "../../functions/toolnet/signal-fusion";

/** One conversation's words for a tool, with the pseudo-word when the words alone had not found it. */
const taught = (words: readonly string[], unmatched: boolean): Map<string, number> =>
  new Map([...words.map((word): [string, number] => [word, 1]), ...(unmatched ? [[UNMATCHED_TERM, 1] as [string, number]] : [])]);

/** A field where `askAnything` was chosen past the words in three conversations, `defineWord` in one, and `searchMovie` always found by its words. */
function fieldOfChoices(): LearnedField {
  const field = new LearnedField();
  field.set("c1", "askAnything", taught(["moon", "jupit"], true));
  field.set("c2", "askAnything", taught(["born", "einstein"], true));
  field.set("c3", "askAnything", taught(["calori", "appl"], true));
  field.set("c4", "defineWord", taught(["mean", "serendip"], true));
  field.set("c5", "searchMovie", taught(["flick", "blockbust"], false));
  field.set("c6", "searchMovie", taught(["film", "director"], false));
  return field;
}

const searchOf =
  (field: LearnedField) =>
  (text: string, size: number, limit: number, excluding?: string): ReturnType<LearnedField["search"]> =>
    field.search(text, size, limit, excluding);

describe("the tools chosen where the words found nothing", () => {
  it("are the tools that learned the pseudo-word, the most often so chosen first; a tool always found by its words is not one", () => {
    const choices = unmatchedChoices(searchOf(fieldOfChoices()), 20);
    expect(choices).toEqual(["askAnything", "defineWord"]);
  });

  it("leave a replayed conversation's own choice out, and keep at most UNMATCHED_CHOICES", () => {
    expect(unmatchedChoices(searchOf(fieldOfChoices()), 20, "c4")).toEqual(["askAnything"]);
    const many = new LearnedField();
    for (let i = 0; i < UNMATCHED_CHOICES + 3; i += 1) many.set(`c${i}`, `tool${i}`, taught([`word${i}`], true));
    expect(unmatchedChoices(searchOf(many), 20)).toHaveLength(UNMATCHED_CHOICES);
  });

  it("at a first step, lift such a tool the words rank just below the first 5 into them at weight 0.25, never before the best match; muted, nothing changes", () => {
    const relevance = Array.from({ length: 8 }, (_, i) => ({ name: i === 6 ? "askAnything" : `word${i}`, score: 10 - i }));
    const at = (weight: number) => fuseFirstStep({ relevance, history: [], unmatched: { tools: ["askAnything", "defineWord"], weight } });
    const lifted = at(0.25).map((c) => c.tool);
    expect(lifted.slice(0, 5)).toContain("askAnything");
    expect(lifted[0]).toBe("word0");
    // A tool the words do not rank at all stays below every tool they do: the list only tips near-misses.
    expect(lifted.indexOf("defineWord")).toBeGreaterThanOrEqual(relevance.length);
    expect(at(0.25).find((c) => c.tool === "askAnything")?.why).toEqual({ relevance: { rank: 7 }, unmatched: { rank: 1 } });
    expect(at(0).map((c) => c.tool)).toEqual(relevance.map((r) => r.name));
  });
});
