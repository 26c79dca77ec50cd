import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { END, START } from "../../functions/toolnet/graph";
import { toSvg } from "../../functions/toolnet/graph-svg";

const graph = {
  nodes: [
    { tool: "getSearchMovie", score: 2 },
    { tool: "getMovieMovieIdCredits", score: -1 },
    { tool: "getPersonPersonId", score: 0 },
  ],
  edges: [
    { from: START, to: "getSearchMovie", count: 4, weight: 1 },
    { from: "getSearchMovie", to: "getMovieMovieIdCredits", count: 3, weight: 0.75 },
    { from: "getMovieMovieIdCredits", to: "getPersonPersonId", count: 1, weight: 0.25 },
    { from: "getPersonPersonId", to: "getSearchMovie", count: 1, weight: 0.1 },
    { from: "getPersonPersonId", to: END, count: 1, weight: 0.9 },
  ],
};

/** Each node group's label and the x of its box, from the picture itself. */
function boxes(svg: string): Map<string, number> {
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(svg) as {
    svg: { g: { class: string; title: string; rect?: { x: string } }[] };
  };
  return new Map(parsed.svg.g.filter((g) => g.class === "node").map((g) => [String(g.title), Number(g.rect?.x)]));
}

describe("SVG picture of the learned graph", () => {
  it("is well-formed XML with one box per tool that has an observed transition, plus start and end", () => {
    const svg = toSvg(graph);
    expect(XMLValidator.validate(svg)).toBe(true);
    expect([...boxes(svg).keys()].sort()).toEqual(["end", "getMovieMovieIdCredits", "getPersonPersonId", "getSearchMovie", "start"]);
    expect(svg).toContain(">750</text>"); // the weight ×1000 on its edge
  });

  it("lays a learned chain out from start to end, left to right, in spite of the loop back", () => {
    const x = boxes(toSvg(graph));
    const order = ["start", "getSearchMovie", "getMovieMovieIdCredits", "getPersonPersonId", "end"].map((n) => x.get(n) ?? Number.NaN);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(5);
  });

  it("escapes names so they cannot break out of the markup", () => {
    const svg = toSvg({ nodes: [{ tool: 'a<b>&"c', score: 0 }], edges: [{ from: START, to: 'a<b>&"c', count: 1, weight: 1 }] });
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).not.toContain("<b>");
  });

  it("leaves out edges lighter than minWeight", () => {
    const svg = toSvg(graph, { minWeight: 0.5 });
    expect(svg).toContain(">750</text>");
    expect(svg).not.toContain(">250</text>");
    expect(svg).not.toContain(">100</text>");
  });

  it("draws a long learned chain without running out of stack", () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => `t${i}`);
    const edges = chain.map((to, i) => ({ from: i === 0 ? START : (chain[i - 1] as string), to, count: 1, weight: 1 }));
    expect(() => toSvg({ nodes: [], edges })).not.toThrow();
  });
});
