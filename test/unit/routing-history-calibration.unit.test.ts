import { describe, expect, it } from "vitest";
import { calibrate, historyLeads } from "../../functions/toolnet/history-calibration";
import { TaskMemory } from "../../functions/toolnet/task-memory";

describe("history calibration", () => {
  it("counts, over the tasks history voted for, how often its first vote and the words' first choice were the tool the task started with", () => {
    const calibration = calibrate([
      { started: "a", voted: "a", words: "b" },
      { started: "a", voted: "a", words: "a" },
      { started: "b", voted: "a", words: "b" },
      { started: "c", voted: undefined, words: "c" },
    ]);
    expect(calibration).toEqual({ voted: 3, history: 2, words: 2 });
  });

  it("lets history lead where it was right more often; a tie keeps the best match first; with nothing judged yet history leads", () => {
    expect(historyLeads({ voted: 4, history: 3, words: 1 })).toBe(true);
    expect(historyLeads({ voted: 4, history: 2, words: 2 })).toBe(false);
    expect(historyLeads({ voted: 4, history: 1, words: 3 })).toBe(false);
    expect(historyLeads({ voted: 0, history: 0, words: 0 })).toBe(true);
  });

  it("asks what the other remembered tasks vote for (a task does not vote for itself), and counts the memory's changes", () => {
    const memory = TaskMemory.build([
      { id: "x", task: "weather in Paris", tools: ["getWeather"] },
      { id: "y", task: "weather in Paris", tools: ["getForecast"] },
    ]);
    const version = memory.version;
    expect(memory.votes("weather in Paris", { excluding: "x" }).map((v) => v.name)).toEqual(["getForecast"]);
    expect(memory.votes("weather in Paris", { excluding: "y" }).map((v) => v.name)).toEqual(["getWeather"]);
    expect(
      memory
        .votes("weather in Paris")
        .map((v) => v.name)
        .sort(),
    ).toEqual(["getForecast", "getWeather"]);
    memory.remove("x");
    expect(memory.version).toBe(version + 1);
  });
});
