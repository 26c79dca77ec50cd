import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import {
  addTool,
  addTools,
  addTrajectories,
  addTrajectory,
  createGraph,
  END,
  exportGraph,
  hasTool,
  removeTool,
  removeTrajectory,
  START,
  transitionWeights,
  type ToolGraph,
} from "../../functions/toolnet/graph/index";

/** Observed counts as { "from → to": count }, from the exported edge list. */
function counts(graph: ToolGraph): Record<string, number> {
  return Object.fromEntries(exportGraph(graph).edges.map((e) => [`${e.from} → ${e.to}`, e.count]));
}

function staticWeights(graph: ToolGraph, from: string): Record<string, number> {
  return Object.fromEntries(transitionWeights(graph, from).map(({ to, weight }) => [to, weight]));
}

function caught(fn: () => unknown): Failure {
  try {
    fn();
  } catch (error) {
    if (error instanceof Failure) return error;
    throw error;
  }
  throw new Error("expected a graph Failure");
}

describe("static construction (eq. 5)", () => {
  it("counts 2-grams including start → first and last → end, on a tiny corpus", () => {
    const graph = createGraph({ beta: 1 }); // β = 1: weights are eq. 5 alone
    addTools(graph, ["GetUserToken", "AddAgenda", "AddAlarm", "Calculator"]);
    const result = addTrajectories(graph, [
      { id: "a", tools: ["GetUserToken", "AddAgenda", "AddAlarm"] },
      { id: "b", tools: ["GetUserToken", "AddAgenda"] },
      { id: "c", tools: ["GetUserToken", "AddAlarm"] },
      { id: "d", tools: ["Calculator", "Calculator"] }, // a real API-Bank self-transition
    ]);
    expect(result).toEqual({ added: ["a", "b", "c", "d"], unchanged: [], transitions: 13, skippedTools: [] });
    expect(counts(graph)).toEqual({
      [`${START} → GetUserToken`]: 3,
      [`${START} → Calculator`]: 1,
      "GetUserToken → AddAgenda": 2,
      "GetUserToken → AddAlarm": 1,
      "AddAgenda → AddAlarm": 1,
      [`AddAgenda → ${END}`]: 1,
      [`AddAlarm → ${END}`]: 2,
      "Calculator → Calculator": 1,
      [`Calculator → ${END}`]: 1,
    });
    // start: GetUserToken 3/4, Calculator 1/4, the never-first tools 0.
    expect(staticWeights(graph, START)).toEqual({ GetUserToken: 0.75, AddAgenda: 0, AddAlarm: 0, Calculator: 0.25 });
    // GetUserToken: AddAgenda 2/3, AddAlarm 1/3; self and end exist, unobserved.
    expect(staticWeights(graph, "GetUserToken")).toEqual({ AddAgenda: 2 / 3, AddAlarm: 1 / 3, GetUserToken: 0, [END]: 0 });
    expect(staticWeights(graph, "AddAgenda")).toEqual({ AddAlarm: 0.5, [END]: 0.5, AddAgenda: 0 });
    expect(staticWeights(graph, "Calculator")).toEqual({ Calculator: 0.5, [END]: 0.5 });
  });

  it("is incremental: a new trajectory only adds its own transitions", () => {
    const graph = createGraph({ beta: 1 });
    addTools(graph, ["A", "B"]);
    addTrajectory(graph, { id: "1", tools: ["A", "B"] });
    addTrajectory(graph, { id: "2", tools: ["A", "A", "B"] });
    expect(counts(graph)).toEqual({ [`${START} → A`]: 2, "A → B": 2, "A → A": 1, [`B → ${END}`]: 2 });
    expect(staticWeights(graph, "A")).toEqual({ B: 2 / 3, A: 1 / 3, [END]: 0 });
  });
});

describe("idempotency per trajectory id", () => {
  it("importing the same id with the same tools again changes nothing", () => {
    const graph = createGraph();
    addTools(graph, ["A", "B"]);
    addTrajectory(graph, { id: "run-1", tools: ["A", "B"] });
    const before = exportGraph(graph);
    const again = addTrajectories(graph, [
      { id: "run-1", tools: ["A", "B"] },
      { id: "run-1", tools: ["A", "B"] },
    ]);
    expect(again).toEqual({ added: [], unchanged: ["run-1", "run-1"], transitions: 0, skippedTools: [] });
    expect(exportGraph(graph)).toEqual(before);
  });

  it("the same id with a different sequence is a conflict; removeTrajectory makes replacement explicit", () => {
    const graph = createGraph();
    addTools(graph, ["A", "B"]);
    addTrajectory(graph, { id: "run-1", tools: ["A", "B"] });
    const before = exportGraph(graph);
    const error = caught(() => addTrajectory(graph, { id: "run-1", tools: ["B", "A"] }));
    expect(error.code).toBe("trajectory_conflict");
    expect(error.names).toEqual(["run-1"]);
    expect(exportGraph(graph)).toEqual(before);
    // Within one batch too, and the batch is refused as a whole.
    const batch = caught(() =>
      addTrajectories(graph, [
        { id: "run-2", tools: ["A"] },
        { id: "run-2", tools: ["B"] },
      ]),
    );
    expect(batch.code).toBe("trajectory_conflict");
    expect(exportGraph(graph)).toEqual(before);

    expect(removeTrajectory(graph, "run-1")).toBe(true);
    expect(removeTrajectory(graph, "run-1")).toBe(false);
    expect(exportGraph(graph).edges).toEqual([]);
    addTrajectory(graph, { id: "run-1", tools: ["B", "A"] });
    expect(counts(graph)).toEqual({ [`${START} → B`]: 1, "B → A": 1, [`A → ${END}`]: 1 });
  });
});

describe("bad trajectories are refused, whole batch, nothing counted", () => {
  function graphAB(): ToolGraph {
    const graph = createGraph();
    addTools(graph, ["A", "B"]);
    return graph;
  }

  it("unknown tools: an error listing each once", () => {
    const graph = graphAB();
    const error = caught(() =>
      addTrajectories(graph, [
        { id: "ok", tools: ["A", "B"] },
        { id: "bad", tools: ["A", "Ghost", "B", "Ghost", "Phantom"] },
      ]),
    );
    expect(error.code).toBe("unknown_tool");
    expect(error.names).toEqual(["Ghost", "Phantom"]);
    expect(error.message).toBe("2 unknown tools in the trajectories: Ghost, Phantom.");
    expect(graph.trajectories.size).toBe(0);
    expect(exportGraph(graph).edges).toEqual([]);
  });

  it("unknown tools with skip: transitions through them are dropped, not bridged, and come back when the tool is added", () => {
    const graph = graphAB();
    const result = addTrajectory(graph, { id: "t", tools: ["A", "Ghost", "B"] }, { unknownTools: "skip" });
    expect(result.skippedTools).toEqual(["Ghost"]);
    expect(result.transitions).toBe(2); // start→A and B→end; neither A→Ghost, Ghost→B nor A→B
    expect(counts(graph)).toEqual({ [`${START} → A`]: 1, [`B → ${END}`]: 1 });
    expect(addTool(graph, "Ghost")).toBe(true);
    expect(counts(graph)).toEqual({ [`${START} → A`]: 1, "A → Ghost": 1, "Ghost → B": 1, [`B → ${END}`]: 1 });
  });

  it("empty trajectories, absurd lengths, reserved names and malformed steps", () => {
    const graph = graphAB();
    expect(caught(() => addTrajectory(graph, { id: "e", tools: [] })).code).toBe("invalid_trajectory");
    expect(caught(() => addTrajectory(graph, { id: "", tools: ["A"] })).code).toBe("invalid_trajectory");
    const long = Array.from({ length: 257 }, (_, i) => (i % 2 === 0 ? "A" : "B"));
    expect(caught(() => addTrajectory(graph, { id: "long", tools: long })).message).toMatch(/257 steps; at most 256/);
    expect(addTrajectory(graph, { id: "long", tools: long }, { maxLength: 300 }).transitions).toBe(258);
    expect(caught(() => addTrajectory(graph, { id: "r", tools: ["A", END] })).code).toBe("reserved_name");
    expect(caught(() => addTrajectory(graph, { id: "r", tools: [START, "A"] })).code).toBe("reserved_name");
    const notAName = JSON.parse('{"id": "n", "tools": ["A", 3]}') as { id: string; tools: string[] };
    expect(caught(() => addTrajectory(graph, notAName)).code).toBe("invalid_trajectory");
  });

  it("cycles are ordinary transitions", () => {
    const graph = createGraph({ beta: 1 });
    addTools(graph, ["A", "B"]);
    addTrajectory(graph, { id: "cycle", tools: ["A", "B", "A", "B", "A"] });
    expect(counts(graph)).toEqual({ [`${START} → A`]: 1, "A → B": 2, "B → A": 2, [`A → ${END}`]: 1 });
    expect(staticWeights(graph, "A")).toEqual({ B: 2 / 3, [END]: 1 / 3, A: 0 });
  });
});

describe("adding and removing tools", () => {
  it("a new tool is reachable from start and reaches itself and end; names are checked", () => {
    const graph = createGraph();
    expect(addTools(graph, ["A", "A", "B"])).toEqual(["A", "B"]);
    expect(addTool(graph, "A")).toBe(false);
    expect(transitionWeights(graph, START).map((w) => w.to)).toEqual(["A", "B"]);
    expect(transitionWeights(graph, "A").map((w) => w.to)).toEqual(["A", END]);
    expect(caught(() => addTool(graph, START)).code).toBe("reserved_name");
    expect(caught(() => addTool(graph, END)).code).toBe("reserved_name");
    expect(caught(() => addTool(graph, "")).code).toBe("invalid_tool_name");
    expect(caught(() => addTool(graph, "x".repeat(257))).code).toBe("invalid_tool_name");
    expect(caught(() => addTools(graph, JSON.parse("[3]") as string[])).code).toBe("invalid_tool_name");
    expect(addTool(graph, "GET /search/person")).toBe(true); // RestBench names are fine
  });

  it("removing a tool drops its edges and score, and its predecessors renormalise; re-adding restores counts", () => {
    const graph = createGraph({ beta: 1 });
    addTools(graph, ["A", "B", "C"]);
    addTrajectories(graph, [
      { id: "t1", tools: ["A", "B"] },
      { id: "t2", tools: ["A", "C"] },
      { id: "t3", tools: ["A", "B", "A"] },
    ]);
    const before = exportGraph(graph);
    expect(staticWeights(graph, "A")).toEqual({ B: 0.5, C: 0.25, [END]: 0.25, A: 0 });

    expect(removeTool(graph, "B")).toBe(true);
    expect(removeTool(graph, "B")).toBe(false);
    expect(hasTool(graph, "B")).toBe(false);
    // A's observations left: C 1, end 1 (t3's A→B and B→A went with B).
    expect(staticWeights(graph, "A")).toEqual({ C: 0.5, [END]: 0.5, A: 0 });
    expect(staticWeights(graph, START)).toEqual({ A: 1, C: 0 });
    expect(counts(graph)).toEqual({ [`${START} → A`]: 3, "A → C": 1, [`A → ${END}`]: 1, [`C → ${END}`]: 1 });
    expect(caught(() => transitionWeights(graph, "B")).code).toBe("unknown_tool");

    addTool(graph, "B");
    expect(exportGraph(graph)).toEqual(before);
  });
});
