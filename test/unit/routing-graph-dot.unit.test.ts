import { execFileSync } from "node:child_process";
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

  // Graphviz (`apt-get install graphviz`) is what the README's `dot -Tsvg` line needs; .ci/run installs it.
  it("renders with Graphviz into two text lines per tool node", () => {
    const svg = execFileSync("dot", ["-Tsvg"], { input: toDot(graph) }).toString();
    expect(svg).toContain(">getSearchMovie</text>");
    expect(svg).toContain(">score 2</text>");
  });
});
