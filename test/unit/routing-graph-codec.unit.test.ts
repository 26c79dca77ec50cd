import { describe, expect, it } from "vitest";
import { addTools, addTrajectories, createGraph, exportGraph, learnedSuccessors, removeTool, successors, START } from "../../functions/toolnet/graph";
import { attachTrajectories, decodeGraph, encodeGraph, GRAPH_CODEC_FORMAT, storedNodesMade } from "../../functions/toolnet/graph/graph-codec";

const TOOLS = ["search", "details", "credits", "reviews", "similar"];
const TRAJECTORIES = [
  { id: "a", tools: ["search", "details", "credits"] },
  { id: "b", tools: ["search", "credits"] },
  { id: "c", tools: ["search", "details", "details", "reviews"] },
  { id: "d", tools: ["similar", "ghost", "reviews"] },
];

function built() {
  const graph = createGraph({ alpha: 0.5 });
  addTools(graph, TOOLS);
  addTrajectories(graph, TRAJECTORIES, { unknownTools: "skip" });
  return graph;
}

describe("graph codec", () => {
  it("decodes to the same counts, edge order and rankings without recounting trajectories", () => {
    const graph = built();
    const decoded = decodeGraph(encodeGraph(graph), { alpha: 0.5 });
    expect(decoded).toBeDefined();
    if (decoded === undefined) return;
    expect(decoded.trajectories.size).toBe(0);
    for (const from of [START, ...TOOLS]) {
      expect(successors(decoded, from, 10, { includeEnd: true })).toEqual(successors(graph, from, 10, { includeEnd: true }));
      expect(learnedSuccessors(decoded, from)).toEqual(learnedSuccessors(graph, from));
    }
    for (const name of TOOLS) expect([...(decoded.tools.get(name)?.out.keys() ?? [])]).toEqual([...(graph.tools.get(name)?.out.keys() ?? [])]);
    attachTrajectories(decoded, TRAJECTORIES);
    expect(exportGraph(decoded)).toEqual(exportGraph(graph));
    // With trajectories attached it changes as the original does.
    removeTool(decoded, "details");
    removeTool(graph, "details");
    expect(exportGraph(decoded)).toEqual(exportGraph(graph));
  });

  it("refuses bytes of another format", () => {
    const bytes = encodeGraph(built());
    const text = new TextDecoder().decode(bytes).replace(GRAPH_CODEC_FORMAT, "atc-graph-edges/0");
    expect(decodeGraph(new TextEncoder().encode(text))).toBeUndefined();
    expect(decodeGraph(new Uint8Array(3))).toBeUndefined();
  });
});

describe("graph codec, lazy nodes", () => {
  it("makes a decoded graph's nodes only when asked for, and knows its tools without making them", () => {
    const decoded = decodeGraph(encodeGraph(built()));
    expect(decoded).toBeDefined();
    if (decoded === undefined) return;
    expect(decoded.tools.size).toBe(TOOLS.length);
    expect(decoded.tools.has("credits")).toBe(true);
    expect(decoded.tools.has("ghost")).toBe(false);
    expect(storedNodesMade(decoded)).toBe(0);
    // A node and the targets of its out-edges, nothing else.
    const details = decoded.tools.get("details");
    expect(details?.out.size).toBe(4);
    expect(storedNodesMade(decoded)).toBe(3);
    expect(decoded.tools.get("details")).toBe(details);
    // Listing the tools makes every node, in the stored order, the ones made already kept.
    expect([...decoded.tools.keys()]).toEqual(TOOLS);
    expect(decoded.tools.get("details")).toBe(details);
    expect(details?.out.get("credits")?.target).toBe(decoded.tools.get("credits"));
  });
});
