import { describe, expect, it } from "vitest";
import { hybridSearch, toolDocument, ToolIndex } from "../../functions/toolnet/retrieval";
import { coverTaskWords, searchCoveringWords } from "../../functions/toolnet/retrieval/term-coverage";
import { ToolDefinition } from "../../functions/tools/definition";

const tool = (name: string, description: string): ToolDefinition =>
  ToolDefinition.parse({ name, method: "GET", serverUrl: `https://${name.toLowerCase()}.example.com`, path: "/", operation: "GET /", description });

/** Six look-alike chart tools, one PDF export, and unrelated tools: a two-need request's wordier need has many siblings. */
const charts = ["bar", "line", "pie", "scatter", "area", "radar"].map((kind) =>
  tool(`${kind}Chart`, `Draw a ${kind} chart of ranking data: chart title, chart colours, chart size.`),
);
const others = [
  tool("exportPdf", "Save a document as PDF."),
  tool("getWeather", "Provide you with the latest weather information."),
  tool("sendMessage", "Deliver a note to a contact."),
];
const index = ToolIndex.build([...charts, ...others].map((d) => toolDocument(d)));
const task = "Draw a bar chart of the reading ranking with a chart title, chart colours and a chart size, and save it as PDF.";
const top = (ranked: { name: string }[], k: number) => ranked.slice(0, k).map((r) => r.name);

describe("coverage of a task's words", () => {
  it("reports each tool's impact per distinct word of the task, and nothing for a tool not indexed", () => {
    const [bar, pdf, missing] = index.termImpacts(task, ["barChart", "exportPdf", "noSuchTool"]);
    const words = bar?.length ?? 0;
    expect(words).toBeGreaterThan(3);
    expect(pdf?.length).toBe(words);
    expect([...(missing ?? [])]).toEqual(new Array(words).fill(0));
    // The export matches words of the task the chart tool does not.
    const matched = (row: Float64Array | undefined) => [...(row ?? [])].flatMap((v, w) => (v > 0 ? [w] : []));
    expect(matched(pdf).some((w) => !matched(bar).includes(w))).toBe(true);
    // Summed over the words it matches, times their count, a tool's impacts are its search score (no word repeats here but "chart").
    const once = index.termImpacts("save document pdf", ["exportPdf"])[0] ?? new Float64Array();
    const score = index.search("save document pdf", 1)[0]?.score ?? 0;
    expect([...once].reduce((a, b) => a + b, 0) * once.filter((v) => v > 0).length).toBeCloseTo(score, 9);
  });

  it("reads a search's own rescoring for what each ranked tool matches: the same as asking for it afterwards", () => {
    for (const text of [task, "chart chart pdf", "save the weather report as a document"]) {
      const { ranked, impacts } = index.searchMatching(text, 30);
      expect(ranked).toEqual(index.search(text, 30));
      expect(impacts.map((row) => [...row])).toEqual(
        index
          .termImpacts(
            text,
            ranked.map((r) => r.name),
          )
          .map((row) => [...row]),
      );
    }
  });

  it("puts both needs of a two-need task in the top 5, where the plain ranking gives one need's look-alikes", () => {
    const plain = index.search(task, 30);
    expect(top(plain, 5)).not.toContain("exportPdf");
    const covered = searchCoveringWords(index, task, 30);
    expect(top(covered, 5)).toContain("exportPdf");
    // The best match stays first, nothing is lost or added, and scores stay in order.
    expect(covered[0]?.name).toBe(plain[0]?.name);
    expect(covered.map((r) => r.name).sort()).toEqual(plain.map((r) => r.name).sort());
    expect(covered.map((r) => r.score)).toEqual(plain.map((r) => r.score));
    // Off, it is the plain ranking.
    expect(searchCoveringWords(index, task, 30, { coverage: 0 })).toEqual(plain);
  });

  it("leaves a one-need task's ranking alone when every candidate matches the same words", () => {
    const ranked = [
      { name: "a", score: 3 },
      { name: "b", score: 2 },
      { name: "c", score: 1 },
    ];
    const same = [new Float64Array([1, 1]), new Float64Array([0.5, 0.5]), new Float64Array([0.2, 0.2])];
    expect(coverTaskWords(ranked, same).map((r) => r.name)).toEqual(["a", "b", "c"]);
    // A tool matching a word no tool above matches rises over a better-scored look-alike
    // (0.6 × 2.5 / 3 + 0.4 × 0.6 / 1.6 = 0.65 against 0.6 × 2.9 / 3 = 0.58).
    const novel = [new Float64Array([1, 0]), new Float64Array([0.9, 0]), new Float64Array([0, 0.6])];
    const rescored = [
      { name: "a", score: 3 },
      { name: "b", score: 2.9 },
      { name: "c", score: 2.5 },
    ];
    expect(coverTaskWords(rescored, novel).map((r) => r.name)).toEqual(["a", "c", "b"]);
  });

  it("covers the lexical ranking fused with embeddings too", () => {
    // Vectors that rank only unrelated tools: the export still enters the top 5 through coverage of the lexical ranking.
    const vectors: [string, number[]][] = [...charts, ...others].map((d, i) => [d.name, d.name === "getWeather" ? [1, 0] : [0, 1 + i]]);
    const ranked = hybridSearch(index, task, [1, 0], vectors, { k: 10 });
    expect(top(ranked, 5)).toContain("exportPdf");
  });
});
