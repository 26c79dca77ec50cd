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
