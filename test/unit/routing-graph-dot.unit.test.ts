import { fromDot } from "ts-graphviz";
import { describe, expect, it } from "vitest";
import { toDot } from "../../functions/toolnet/graph-dot";

const graph = {
  nodes: [
    { tool: "getSearchMovie", score: 2 },
    { tool: "getMovieMovieIdCredits", score: -1 },
  ],
  edges: [{ from: "getSearchMovie", to: "getMovieMovieIdCredits", count: 3, weight: 0.75 }],
};

describe("Graphviz DOT export", () => {
  it("breaks a node label into tool name and score with one DOT line break, not a literal backslash", () => {
    const dot = toDot(graph);
    expect(dot).toContain('label="getSearchMovie\\nscore 2"');
    expect(dot).not.toContain("\\\\n");
  });

  it("escapes quotes and backslashes in names so they stay inside their string", () => {
    const dot = toDot({ nodes: [{ tool: 'a"b\\c', score: 0 }], edges: [{ from: 'a"b\\c', to: 'a"b\\c', count: 1, weight: 1 }] });
    expect(dot).toContain('"a\\"b\\\\c" -> "a\\"b\\\\c"');
  });

  // A real DOT parser (ts-graphviz) reads it back: one node per tool, with the two-line label.
  it("parses as DOT, with each tool's label holding its name and score", () => {
    const parsed = fromDot(toDot(graph));
    const node = parsed.getNode("getSearchMovie");
    expect(node?.attributes.get("label")).toBe("getSearchMovie\\nscore 2");
    expect(parsed.edges).toHaveLength(1);
  });
});
