import { describe, expect, it } from "vitest";
import { cosine, fuseRankings, rankByCosine, RRF_K, type Vector } from "../../functions/toolnet/retrieval/fusion";
import { hybridSearch, LEXICAL_LEAD } from "../../functions/toolnet/retrieval/hybrid";
import type { Ranked } from "../../functions/toolnet/retrieval/ranked";
import { toolDocument } from "../../functions/toolnet/retrieval/tool-document";
import { ToolIndex } from "../../functions/toolnet/retrieval/tool-index";
import { ToolDefinition } from "../../functions/tools/definition";

const list = (...names: string[]) => names.map((name) => ({ name }));

describe("fuseRankings (reciprocal rank fusion)", () => {
  it("sums 1 / (60 + rank) over rankings, ranks from 1", () => {
    const fused = fuseRankings([list("x", "y", "z"), list("y", "w")]);
    expect(fused.map((r) => r.name)).toEqual(["y", "x", "w", "z"]);
    const score = Object.fromEntries(fused.map((r) => [r.name, r.score]));
    expect(score.y).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(score.x).toBeCloseTo(1 / 61, 12);
    expect(score.w).toBeCloseTo(1 / 62, 12);
    expect(score.z).toBeCloseTo(1 / 63, 12);
    expect(RRF_K).toBe(60);
  });

  it("uses the given k and weights", () => {
    const fused = fuseRankings([list("a", "b"), list("b", "a")], { k: 1, weights: [3, 1] });
    // a: 3/(1+1) + 1/(1+2) = 1.8333…; b: 3/(1+2) + 1/(1+1) = 1.5
    expect(fused).toEqual([
      { name: "a", score: expect.closeTo(3 / 2 + 1 / 3, 12) },
      { name: "b", score: expect.closeTo(3 / 3 + 1 / 2, 12) },
    ]);
  });

  it("counts a tool repeated within one ranking once, at its best rank", () => {
    const fused = fuseRankings([list("a", "a", "b")], { k: 0 });
    expect(fused).toEqual([
      { name: "a", score: 1 },
      { name: "b", score: 1 / 3 },
    ]);
  });

  it("breaks ties by name and honours limit", () => {
    const fused = fuseRankings([list("m", "b"), list("b", "m")], { limit: 1 });
    expect(fused).toEqual([{ name: "b", score: expect.closeTo(1 / 61 + 1 / 62, 12) }]);
  });

  it("accepts scored rankings and empty input", () => {
    expect(fuseRankings([])).toEqual([]);
    expect(fuseRankings([[], []])).toEqual([]);
    const scored: Ranked[] = [{ name: "a", score: 99 }];
    expect(fuseRankings([scored]).map((r) => r.name)).toEqual(["a"]);
  });
});

describe("cosine and rankByCosine", () => {
  it("computes cosine similarity for number[] and Float32Array alike", () => {
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 2, 3], new Float32Array([2, 4, 6]))).toBeCloseTo(1, 6);
    expect(cosine([1, 1], [-1, -1])).toBeCloseTo(-1, 12);
    expect(cosine([3, 4], [4, 3])).toBeCloseTo(24 / 25, 12);
  });

  it("is 0 for a zero vector and throws on different lengths", () => {
    expect(cosine([0, 0], [1, 1])).toBe(0);
    expect(() => cosine([1, 2], [1, 2, 3])).toThrow(RangeError);
  });

  it("ranks tools by similarity, best first, at most k", () => {
    const vectors: [string, Vector][] = [
      ["far", [0, 1]],
      ["near", new Float32Array([1, 0.1])],
      ["mid", [1, 1]],
    ];
    expect(rankByCosine([1, 0], vectors).map((r) => r.name)).toEqual(["near", "mid", "far"]);
    expect(rankByCosine([1, 0], vectors, 1).map((r) => r.name)).toEqual(["near"]);
    expect(rankByCosine([1, 0], [])).toEqual([]);
  });
});

describe("hybridSearch", () => {
  const tool = (name: string, summary: string) =>
    toolDocument(ToolDefinition.parse({ name, method: "GET", serverUrl: "https://x.example", path: `/${name}`, operation: `GET /${name}`, summary }));
  const index = ToolIndex.build([tool("alpha", "weather forecast"), tool("beta", "rain radar"), tool("gamma", "stock prices")]);
  const vectors: [string, Vector][] = [
    ["alpha", [1, 0, 0]],
    ["beta", [0, 1, 0]],
    ["gamma", [0, 0, 1]],
    ["removedTool", [0, 1, 0.01]],
  ];

  it("is the lexical ranking when there is no query vector", () => {
    expect(hybridSearch(index, "weather forecast", undefined, vectors, { k: 5 })).toEqual(index.search("weather forecast", 5));
  });

  it("fuses lexical and cosine rankings by RRF, ignoring vectors of tools not in the index", () => {
    const fused = hybridSearch(index, "weather forecast", [0, 1, 0], vectors, { k: 3, lexicalLead: 0 });
    // lexical: alpha (1); cosine: beta (1), alpha (2) and gamma (2) tie at 0 → alpha before gamma by name.
    expect(fused).toEqual([
      { name: "alpha", score: expect.closeTo(1 / 61 + 1 / 62, 12) },
      { name: "beta", score: expect.closeTo(1 / 61, 12) },
      { name: "gamma", score: expect.closeTo(1 / 63, 12) },
    ]);
  });

  it("lets the embedding ranking surface a tool with no word in common", () => {
    const names = hybridSearch(index, "umbrella needed?", [0, 1, 0], vectors, { k: 1 }).map((r) => r.name);
    expect(names).toEqual(["beta"]);
  });

  it("keeps strong lexical matches in front (LEXICAL_LEAD) and fuses the embeddings into the rest", () => {
    const wide = ToolIndex.build([
      tool("forecast", "weather forecast for a city"),
      tool("radar", "rain radar weather map"),
      tool("umbrella", "should I take an umbrella"),
      tool("stocks", "stock prices"),
    ]);
    const dense: [string, Vector][] = [
      ["forecast", [0, 0, 1]],
      ["radar", [0, 1, 0]],
      ["umbrella", [0, 0.9, 0.1]],
      ["stocks", [0, 0.2, 0.8]],
    ];
    const names = (options: Parameters<typeof hybridSearch>[4]) => hybridSearch(wide, "weather forecast", [0, 1, 0], dense, options).map((r) => r.name);
    // Plain RRF: the embeddings' favourite, a weaker lexical match, passes the task's own best match.
    expect(names({ k: 4, lexicalLead: 0 })).toEqual(["radar", "forecast", "umbrella", "stocks"]);
    // With a lead, the strong lexical match stays first; the embeddings order what is left (a paraphrase still enters).
    expect(names({ k: 4, lexicalLead: LEXICAL_LEAD })).toEqual(["forecast", "radar", "umbrella", "stocks"]);
    // A match the task cannot call as asked does not lead: the next callable one does.
    expect(names({ k: 4, lexicalLead: LEXICAL_LEAD, canLead: (tool) => tool !== "forecast" })[0]).toBe("radar");
  });
});
