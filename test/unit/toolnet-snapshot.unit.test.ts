import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import {
  addTools,
  addTrajectories,
  addTrajectory,
  applyFeedback,
  createGraph,
  END,
  exportGraph,
  loadGraph,
  removeTool,
  START,
  successors,
  type ToolGraph,
} from "../../functions/toolnet/graph/index";

function trainedGraph(): ToolGraph {
  const graph = createGraph({ alpha: 0.8, beta: 0.4 });
  addTools(graph, ["GetUserToken", "AddAgenda", "AddAlarm", "Calculator", "Retired"]);
  addTrajectories(graph, [
    { id: "a", tools: ["GetUserToken", "AddAgenda", "AddAlarm"] },
    { id: "b", tools: ["GetUserToken", "AddAgenda"] },
    { id: "c", tools: ["Calculator", "Calculator"] },
    { id: "d", tools: ["Retired", "AddAlarm"] },
  ]);
  addTrajectory(graph, { id: "e", tools: ["Calculator", "NotYetRegistered"] }, { unknownTools: "skip" });
  applyFeedback(graph, { tools: ["GetUserToken", "AddAgenda", "GetUserToken"], scores: [3, -2, 2] });
  removeTool(graph, "Retired");
  return graph;
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

describe("export → load round trip", () => {
  it("gives back an equal graph, through JSON too", () => {
    const graph = trainedGraph();
    const snapshot = exportGraph(graph);
    expect(snapshot.format).toBe("toolnet-graph/1");
    expect(snapshot.settings).toEqual({ alpha: 0.8, beta: 0.4 });
    expect(snapshot.nodes).toEqual([
      { tool: "AddAgenda", score: -2 },
      { tool: "AddAlarm", score: 0 },
      { tool: "Calculator", score: 0 },
      { tool: "GetUserToken", score: 2.5 }, // mean of 3 and 2
    ]);
    // Observed transitions only; the removed tool's edges are gone, its trajectory is kept.
    expect(snapshot.edges).toContainEqual({ from: START, to: "GetUserToken", count: 2 });
    expect(snapshot.edges).toContainEqual({ from: "Calculator", to: "Calculator", count: 1 });
    expect(snapshot.edges.some((e) => e.from === "Retired" || e.to === "Retired")).toBe(false);
    expect(snapshot.trajectories.map((t) => t.id)).toEqual(["a", "b", "c", "d", "e"]);

    const reloaded = loadGraph(JSON.parse(JSON.stringify(snapshot)));
    expect(exportGraph(reloaded)).toEqual(snapshot);
    // Same ranking and prompt weights; exact weights may differ in the last bit, since the
    // reloaded graph sums eq. 7's denominator over its edges in another order.
    for (const from of [START, "GetUserToken", "AddAgenda", "Calculator"]) {
      const before = successors(graph, from, 10, { includeEnd: true });
      const after = successors(reloaded, from, 10, { includeEnd: true });
      expect(after.map(({ tool, weight }) => [tool, weight])).toEqual(before.map(({ tool, weight }) => [tool, weight]));
      after.forEach(({ exact }, i) => expect(exact).toBeCloseTo(before[i]?.exact ?? Number.NaN, 14));
    }
  });

  it("keeps idempotency and the stored trajectories across a reload", () => {
    const reloaded = loadGraph(exportGraph(trainedGraph()));
    expect(addTrajectory(reloaded, { id: "a", tools: ["GetUserToken", "AddAgenda", "AddAlarm"] }).unchanged).toEqual(["a"]);
    expect(caught(() => addTrajectory(reloaded, { id: "a", tools: ["AddAlarm"] })).code).toBe("trajectory_conflict");
    // Tools named by stored trajectories count as soon as they are registered.
    addTools(reloaded, ["Retired", "NotYetRegistered"]);
    const edges = exportGraph(reloaded).edges;
    expect(edges).toContainEqual({ from: "Retired", to: "AddAlarm", count: 1 });
    expect(edges).toContainEqual({ from: "Calculator", to: "NotYetRegistered", count: 1 });
    expect(edges).toContainEqual({ from: "NotYetRegistered", to: END, count: 1 });
  });

  it("an empty graph round-trips", () => {
    const empty = exportGraph(createGraph());
    expect(exportGraph(loadGraph(empty))).toEqual(empty);
  });
});

describe("loadGraph refuses corrupt snapshots", () => {
  const good = () => exportGraph(trainedGraph());

  it("wrong shape or format", () => {
    expect(caught(() => loadGraph(null)).code).toBe("invalid_snapshot");
    expect(caught(() => loadGraph({ ...good(), format: "toolnet-graph/0" })).code).toBe("invalid_snapshot");
    expect(caught(() => loadGraph({ ...good(), nodes: [{ tool: "A", score: "high" }] })).code).toBe("invalid_snapshot");
  });

  it("counts that disagree with the trajectories, in either direction", () => {
    const more = good();
    const bumped = more.edges.map((e, i) => (i === 0 ? { ...e, count: e.count + 1 } : e));
    expect(caught(() => loadGraph({ ...more, edges: bumped })).message).toMatch(/disagree with its trajectories/);
    expect(caught(() => loadGraph({ ...more, edges: more.edges.slice(1) })).code).toBe("invalid_snapshot");
    expect(caught(() => loadGraph({ ...more, edges: [...more.edges, { from: "AddAlarm", to: "Calculator", count: 1 }] })).code).toBe("invalid_snapshot");
  });

  it("reserved or duplicate tools, bad settings, duplicate trajectory ids", () => {
    const snapshot = good();
    expect(caught(() => loadGraph({ ...snapshot, nodes: [...snapshot.nodes, { tool: END, score: 0 }] })).code).toBe("invalid_snapshot");
    expect(caught(() => loadGraph({ ...snapshot, nodes: [...snapshot.nodes, { tool: "AddAlarm", score: 1 }] })).code).toBe("invalid_snapshot");
    expect(caught(() => loadGraph({ ...snapshot, settings: { alpha: 0.5, beta: 7 } })).code).toBe("invalid_snapshot");
    const dup = [...snapshot.trajectories, { id: "a", tools: ["GetUserToken", "AddAgenda", "AddAlarm"] }];
    expect(caught(() => loadGraph({ ...snapshot, trajectories: dup })).code).toBe("invalid_snapshot");
    const empty = [...snapshot.trajectories, { id: "z", tools: [] }];
    expect(caught(() => loadGraph({ ...snapshot, trajectories: empty })).code).toBe("invalid_snapshot");
  });
});
