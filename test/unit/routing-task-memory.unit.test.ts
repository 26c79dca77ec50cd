import { describe, expect, it } from "vitest";
import { TaskMemory } from "../../functions/toolnet/task-memory";

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

describe("task memory compares tasks by their shape, not their argument values", () => {
  const tasks = [
    { id: "coppola", task: "give me the number of movies directed by Sofia Coppola", tools: ["searchPerson", "personMovieCredits"] },
    { id: "nolan", task: "What is the most popular movie of Christopher Nolan?", tools: ["searchPerson", "personMovieCredits"] },
    { id: "titanic", task: 'When was "Titanic" released in 1997 theaters?', tools: ["searchMovie", "releaseDates"] },
    { id: "trending", task: "Which TV shows are trending today?", tools: ["trending"] },
    { id: "weather", task: "What is the weather in Paris tomorrow?", tools: ["geocode", "forecast"] },
  ];
  const memory = TaskMemory.build(tasks);

  it("finds the earlier task that differs only in the names it mentions", () => {
    // Without shapes the names (the rarest words) outweigh "movies directed by": no vote.
    expect(memory.votes("movies directed by Martin Charles Scorsese")[0]?.name).toBe("searchPerson");
    expect(memory.nearest("movies directed by Martin Charles Scorsese")[0]?.id).toBe("coppola");
  });

  it("keeps acronyms and the whole text of a task that is nothing but names", () => {
    expect(memory.votes("Which TV shows are trending?")[0]?.name).toBe("trending");
    expect(TaskMemory.build([{ id: "1", task: "Titanic", tools: ["searchMovie"] }]).votes("Titanic")[0]?.name).toBe("searchMovie");
  });

  it("votes for the tool similar tasks used right after a given tool, and nothing from tasks that never used it", () => {
    const next = memory.votes("movies directed by Greta Gerwig", { tools: { after: "searchPerson" } });
    expect(next.map((v) => v.name)).toEqual(["personMovieCredits"]);
    expect(memory.votes("movies directed by Greta Gerwig", { tools: { after: "forecast" } })).toEqual([]);
  });
});

/** Counts the lookups that scanned the memory (the class's seam). */
class CountingMemory extends TaskMemory {
  get scanned(): number {
    return this.scans;
  }
}

describe("task memory lookups of a chat's own task", () => {
  const remembered = [
    { id: "1", task: "Convert 100 US dollars to euros", tools: ["getRates", "convert"] },
    { id: "2", task: "Convert 20 pounds to yen", tools: ["getRates", "convert"] },
    { id: "3", task: "What is the weather in Paris tomorrow?", tools: ["geocode", "forecast"] },
  ];
  const counting = () => {
    const memory = new CountingMemory();
    for (const task of remembered) memory.add(task);
    return memory;
  };

  it("scans the memory once for a task asked at every step, with the same answers", () => {
    const memory = counting();
    const fresh = TaskMemory.build(remembered);
    const task = "Convert 5 US dollars to euros";
    const first = memory.votes(task, { tools: { after: "getRates" }, minSimilarity: 0.3 });
    for (let step = 0; step < 5; step += 1) expect(memory.votes(task, { tools: { after: "getRates" }, minSimilarity: 0.3 })).toEqual(first);
    expect(memory.scanned).toBe(1);
    expect(first).toEqual(fresh.votes(task, { tools: { after: "getRates" }, minSimilarity: 0.3 }));
    expect(first.map((v) => v.name)).toEqual(["convert"]);
    // Another threshold or neighbour count is another lookup.
    memory.votes(task, { tools: "first", minSimilarity: 0.1 });
    expect(memory.scanned).toBe(2);
  });

  it("forgets what it found when a task is added or removed", () => {
    const memory = counting();
    const task = "Convert 5 US dollars to euros";
    expect(memory.votes(task).map((v) => v.name)).toEqual(["getRates"]);
    memory.add({ id: "4", task: "Convert 5 US dollars to euros today", tools: ["bankRates"] });
    expect(memory.votes(task).map((v) => v.name)).toContain("bankRates");
    memory.remove("4");
    expect(memory.votes(task).map((v) => v.name)).toEqual(["getRates"]);
    expect(memory.scanned).toBe(3);
  });

  it("keeps the lookups of the 64 tasks asked most recently", () => {
    const memory = counting();
    const tasks = Array.from({ length: 65 }, (_, i) => `Convert ${i} dollars to euros, request ${"x".repeat(i + 1)}`);
    for (const task of tasks) memory.votes(task);
    expect(memory.scanned).toBe(65);
    // The first was dropped (asked longest ago); the last 64 are answered from memory.
    for (const task of tasks.slice(1)) memory.votes(task);
    expect(memory.scanned).toBe(65);
    memory.votes(tasks[0] ?? "");
    expect(memory.scanned).toBe(66);
  });
});
