import { describe, expect, it } from "vitest";
import { exampleTasks } from "../../functions/http/console/route-examples";

const tool = (name: string, source: string, description?: string) => ({ name, source, description });

describe("the routing page's example tasks", () => {
  it("takes each description's first sentence, spread over the sources", () => {
    const tasks = exampleTasks([
      tool("getMovieReviews", "tmdb", "Get the user reviews for a movie.\n\nSupports paging."),
      tool("getMovieCredits", "tmdb", "Get the cast and crew for a movie. Returns JSON."),
      tool("getSearchTv", "tmdb", "Search for a TV show."),
      tool("getForecast", "weather", "Get the weather forecast for a city"),
    ]);
    expect(tasks).toEqual([
      "Get the cast and crew for a movie",
      "Get the weather forecast for a city",
      "Get the user reviews for a movie",
      "Search for a TV show",
    ]);
  });

  it("skips tools without a usable description and repeated tasks", () => {
    const tasks = exampleTasks([
      tool("a", "x"),
      tool("b", "x", "Short."),
      tool("c", "x", `Very long ${"words ".repeat(30)}`),
      tool("d", "x", "List the open invoices of a customer"),
      tool("e", "y", "list the open invoices of a customer."),
    ]);
    expect(tasks).toEqual(["List the open invoices of a customer"]);
  });

  it("gives nothing for an empty catalog, and at most the number asked for", () => {
    expect(exampleTasks([])).toEqual([]);
    const many = Array.from({ length: 30 }, (_, i) => tool(`t${i}`, "s", `Fetch the record number ${i} of the ledger`));
    expect(exampleTasks(many, 3)).toHaveLength(3);
  });
});
