import { describe, expect, it } from "vitest";
import { RelevanceMemo } from "../../functions/routing/relevance-memo";
import { ToolIndex, toolDocument } from "../../functions/toolnet/retrieval";
import { ToolDefinition } from "../../functions/tools/definition";

/** A memo whose computations are counted: each returns its own number. */
function counted(memo: RelevanceMemo<number>) {
  let computed = 0;
  return {
    get computed() {
      return computed;
    },
    ranking: (task: string, version = 0, depth = 30, model?: string) =>
      memo.ranking({ task, depth, model }, version, () => {
        computed += 1;
        return computed;
      }),
  };
}

describe("the task-ranking memo (a chat's later steps reuse its first step's ranking)", () => {
  it("computes a task's ranking once, and again for another depth, model or task", () => {
    const memo = counted(new RelevanceMemo<number>());
    expect(memo.ranking("weather in Rome")).toBe(1);
    expect(memo.ranking("weather in Rome")).toBe(1);
    expect(memo.ranking("weather in Rome", 0, 8)).toBe(2);
    expect(memo.ranking("weather in Rome", 0, 30, "scripted-embeddings")).toBe(3);
    expect(memo.ranking("weather in Paris")).toBe(4);
    expect(memo.computed).toBe(4);
  });

  it("computes again when the index changed since (another version), and keeps the new ranking", () => {
    const memo = counted(new RelevanceMemo<number>());
    expect(memo.ranking("weather", 3)).toBe(1);
    expect(memo.ranking("weather", 4)).toBe(2);
    expect(memo.ranking("weather", 4)).toBe(2);
    expect(memo.computed).toBe(2);
  });

  it("drops the least recently used ranking when full, by entries and by characters", () => {
    const memo = counted(new RelevanceMemo<number>(2));
    memo.ranking("a");
    memo.ranking("b");
    memo.ranking("a"); // used: "b" is now the oldest
    memo.ranking("c");
    expect(memo.ranking("a")).toBe(1);
    expect(memo.ranking("b")).toBe(4);
    // Keys are "30\0\0" and the task: 4 + task characters.
    const small = new RelevanceMemo<number>(256, 20);
    const bounded = counted(small);
    bounded.ranking("0123456789"); // 14 characters
    bounded.ranking("abcdefghij"); // 14 more: the first goes
    expect(small.size).toBe(1);
    expect(bounded.ranking("abcdefghij")).toBe(2);
    // A task longer than the whole bound is not kept.
    bounded.ranking("x".repeat(30));
    expect(small.size).toBe(1);
  });

  it("forgets everything on clear", () => {
    const memo = new RelevanceMemo<number>();
    const asked = { task: "weather", depth: 30, model: undefined };
    memo.ranking(asked, 0, () => 1);
    memo.clear();
    expect(memo.ranking(asked, 0, () => 2)).toBe(2);
  });
});

describe("a tool index's version", () => {
  const def = (name: string, description: string): ToolDefinition =>
    ToolDefinition.parse({
      name,
      method: "GET",
      serverUrl: "https://api.example.com",
      path: `/${name}`,
      operation: `GET /${name}`,
      description,
      parameters: [],
    });

  it("changes with every tool added, replaced or removed, and only then", () => {
    const index = ToolIndex.build([toolDocument(def("getWeather", "Current weather."))]);
    const built = index.version;
    index.search("weather", 5);
    expect(index.version).toBe(built);
    index.add(toolDocument(def("getForecast", "Weather forecast.")));
    expect(index.version).toBeGreaterThan(built);
    const added = index.version;
    index.add(toolDocument(def("getForecast", "Weather forecast for a week.")));
    expect(index.version).toBeGreaterThan(added);
    const replaced = index.version;
    expect(index.remove("nothing")).toBe(false);
    expect(index.version).toBe(replaced);
    index.remove("getForecast");
    expect(index.version).toBeGreaterThan(replaced);
  });
});
