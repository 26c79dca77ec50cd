import { describe, expect, it } from "vitest";
import { taskShape } from "../../functions/toolnet/task-shape";

const words = (text: string): string[] => text.split(/\s+/).filter((w) => w !== "");

describe("task shape (a task without its argument values)", () => {
  it("drops proper names, quoted text, numbers, dates, e-mail addresses and URLs", () => {
    expect(words(taskShape("Who is the director of Leonardo DiCaprio's latest movie?"))).toEqual(["Who", "is", "the", "director", "of", "latest", "movie?"]);
    expect(words(taskShape('Add "Meeting with John" at 2pm on 2023-09-12 and mail bob@example.com, see https://x.example/a'))).toEqual([
      "Add",
      "at",
      "on",
      "and",
      "mail",
      "see",
    ]);
  });

  it("keeps the first word of each sentence and acronyms", () => {
    expect(words(taskShape("Find the trending TV show. Tell me its rating."))).toEqual([
      "Find",
      "the",
      "trending",
      "TV",
      "show.",
      "Tell",
      "me",
      "its",
      "rating.",
    ]);
  });
});
