import { describe, expect, it } from "vitest";
import { TaskMemory } from "../../functions/routing/task-memory";

describe("task memory (first-step learning)", () => {
  const memory = TaskMemory.build([
    { id: "1", task: "Convert 100 US dollars to euros", tools: ["getRates", "convert"] },
    { id: "2", task: "Convert 20 pounds to yen", tools: ["getRates", "convert"] },
    { id: "3", task: "What is the weather in Paris tomorrow?", tools: ["geocode", "forecast"] },
  ]);

  it("lets the nearest earlier tasks vote for their first tool", () => {
    const votes = memory.votes("Convert 5 US dollars to euros");
    expect(votes[0]).toMatchObject({ name: "getRates" });
    expect(votes.map((v) => v.name)).not.toContain("geocode");
  });

  it("votes for every tool of similar tasks when asked (run candidate sets), earlier tools first", () => {
    expect(memory.votes("Convert 5 euros to dollars", { tools: "all" }).map((v) => v.name)).toEqual(["getRates", "convert"]);
  });

  it("gives no votes to a task that shares no meaningful word with any earlier one", () => {
    expect(memory.votes("Book a table for two")).toEqual([]);
    expect(memory.votes("the of and")).toEqual([]);
  });

  it("forgets a removed task and replaces a task added again under its id", () => {
    const copy = TaskMemory.build([{ id: "1", task: "Convert dollars", tools: ["convert"] }]);
    copy.add({ id: "1", task: "Weather in Rome", tools: ["forecast"] });
    expect(copy.size).toBe(1);
    expect(copy.votes("Convert dollars")).toEqual([]);
    copy.remove("1");
    expect(copy.votes("Weather in Rome")).toEqual([]);
  });
});
