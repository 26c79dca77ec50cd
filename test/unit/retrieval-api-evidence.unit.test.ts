import { describe, expect, it } from "vitest";
import { apiSiblings } from "../../functions/toolnet/api-siblings";
import { hybridSearch, hybridTwoWays, toolDocument, ToolIndex, withApiEvidence } from "../../functions/toolnet/retrieval";
import { searchCoveringWords, searchTwoWays } from "../../functions/toolnet/retrieval/term-coverage";
import { ToolDefinition } from "../../functions/tools/definition";
import { apiEvidenceCatalog } from "../helpers/api-evidence-catalog";

const op = (api: string, name: string, description: string): ToolDefinition =>
  ToolDefinition.parse({ name, method: "GET", serverUrl: `https://${api}.example.com`, path: `/${name}`, operation: `GET /${name}`, description });

const defs = apiEvidenceCatalog(op);
const byName = new Map(defs.map((d) => [d.name, d]));
const siblings = apiSiblings(defs);
const siblingsOf = (tool: string) => siblings.get(tool) ?? [];
const index = ToolIndex.build(defs.map((d) => toolDocument(d, { siblings: siblingsOf(d.name).flatMap((n) => byName.get(n) ?? []) })));
const task = "Inception: who is in the cast, and what do reviews say?";
const top = (ranked: { name: string }[], k: number) => ranked.slice(0, k).map((r) => r.name);

describe("API evidence", () => {
  it("finds a task's tool through its API's other operations: a match its API does not back gives way", () => {
    const plain = searchCoveringWords(index, task, 10);
    expect(top(plain, 3)).not.toContain("movieCredits");
    const withApis = searchCoveringWords(index, task, 10, { siblingsOf });
    expect(top(withApis, 3)).toEqual(["showCast", "movieReviews", "movieCredits"]);
    // The shop's one matching operation is lowered; nothing is lost or added.
    expect(withApis.find((r) => r.name === "productReviews")?.score).toBeLessThan(plain.find((r) => r.name === "productReviews")?.score ?? 0);
    expect(withApis.map((r) => r.name).sort()).toEqual(plain.map((r) => r.name).sort());
    // At weight 0 it is the search without it; the lexical part of the hybrid search weighs it too.
    expect(searchCoveringWords(index, task, 10, { siblingsOf, apiWeight: 0 })).toEqual(plain);
    expect(hybridSearch(index, task, undefined, [], { k: 10, siblingsOf })).toEqual(withApis);
  });

  it("ranks a task both ways from one search: without API evidence (a later step's) and with it", () => {
    const both = searchTwoWays(index, task, 10, { siblingsOf });
    expect(both.plain).toEqual(searchCoveringWords(index, task, 10));
    expect(both.withApis).toEqual(searchCoveringWords(index, task, 10, { siblingsOf }));
    expect(top(both.plain, 3)).not.toEqual(top(both.withApis, 3));
    // Fused with embeddings, the same two lexical rankings lead.
    const vectors: [string, number[]][] = defs.map((d, i) => [d.name, [1, i]]);
    const fused = hybridTwoWays(index, task, [0, 1], vectors, { k: 10, siblingsOf });
    expect(fused.plain).toEqual(hybridSearch(index, task, [0, 1], vectors, { k: 10 }));
    expect(fused.withApis).toEqual(hybridSearch(index, task, [0, 1], vectors, { k: 10, siblingsOf }));
    expect(top(fused.withApis, 3)).toContain("movieCredits");
    expect(top(fused.plain, 3)).not.toContain("movieCredits");
  });

  it("never lowers a tool alone in its API: its strong match keeps its score and its place", () => {
    // API c's four operations match well together; w is alone in its API and ranks third.
    const api = new Map([
      ["c1", ["c2", "c3", "c4"]],
      ["c2", ["c1", "c3", "c4"]],
      ["c3", ["c1", "c2", "c4"]],
      ["c4", ["c1", "c2", "c3"]],
    ]);
    const ranked = [
      { name: "c1", score: 10 },
      { name: "c2", score: 9 },
      { name: "w", score: 8.5 },
      { name: "c3", score: 8 },
      { name: "c4", score: 7.9 },
    ];
    const rescored = withApiEvidence(ranked, (tool) => api.get(tool) ?? []);
    expect(rescored.map((r) => r.name)).toEqual(["c1", "c2", "w", "c3", "c4"]);
    expect(rescored.find((r) => r.name === "w")?.score).toBe(8.5);
    // Tools the API backs keep their scores too: a tool's API lifts it no higher than its own text.
    expect(rescored.map((r) => r.score)).toEqual([10, 9, 8.5, 8, 7.9]);
  });

  it("keeps the best match first and lowers a tool by part of what its own match exceeds its API's backing", () => {
    // b1 is best but alone-ish in a big API of no matches; a1, a2 back each other.
    const api = new Map<string, string[]>([
      ["b1", ["b2", "b3", "b4", "b5"]],
      ["a1", ["a2"]],
      ["a2", ["a1"]],
      ["b2", ["b1", "b3", "b4", "b5"]],
    ]);
    const ranked = [
      { name: "b1", score: 10 },
      { name: "b2", score: 9 },
      { name: "a1", score: 8 },
      { name: "a2", score: 7 },
    ];
    const rescored = withApiEvidence(ranked, (tool) => api.get(tool) ?? []);
    expect(rescored.map((r) => r.name)).toEqual(["b1", "a1", "a2", "b2"]);
    // b2: share 0.9, API b's backing (1 + 0.9) / 5 = 0.38 against a's 0.75: (0.9 + 2 × 0.38 / 0.75) / 3 of 10.
    expect(rescored.find((r) => r.name === "b2")?.score).toBeCloseTo((10 * (0.9 + (2 * 0.38) / 0.75)) / 3, 9);
    expect(rescored[0]).toEqual({ name: "b1", score: 10 });
    // No siblings anywhere: the ranking as it was.
    expect(withApiEvidence(ranked, () => [])).toEqual(ranked);
  });
});
