import { z } from "zod";
import { graphFailure, isGraphFailure } from "./errors";
import type { Failure } from "../../common/failures";
import { START } from "./node-ids";
import { addTools, createGraph, type ToolGraph } from "./tool-graph";
import { addTrajectories } from "./static-construction";

/**
 * The graph as plain data, for the tenant's Durable Object to store as rows and rebuild from.
 * Weights are not stored: they follow from counts, scores and settings (eq. 5–8), so a
 * snapshot cannot hold weights that disagree with them. Structural edges (start → tool, tool →
 * itself, tool → end) are implied by the node list; `edges` lists observed transitions only.
 * `trajectories` is what the counts are made of: keeping it is what makes a re-import
 * idempotent across restarts, and loading checks the counts against it.
 */

export const SNAPSHOT_FORMAT = "toolnet-graph/1";

export const ToolGraphSnapshot = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  settings: z.object({ alpha: z.number(), beta: z.number() }),
  /** Tools with their accumulated scores s_i; start and end are implied. */
  nodes: z.array(z.object({ tool: z.string(), score: z.number().finite() })),
  /** Observed transition counts; `from` may be START, `to` may be END. */
  edges: z.array(z.object({ from: z.string(), to: z.string(), count: z.number().int().positive() })),
  trajectories: z.array(z.object({ id: z.string(), tools: z.array(z.string()) })),
});
export type ToolGraphSnapshot = z.infer<typeof ToolGraphSnapshot>;

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The graph as plain, JSON-safe data, sorted so that equal graphs export equal values. */
export function exportGraph(graph: ToolGraph): ToolGraphSnapshot {
  const nodes = [...graph.tools.values()].map((node) => ({ tool: node.id, score: node.score })).sort((a, b) => byString(a.tool, b.tool));
  const edges: { from: string; to: string; count: number }[] = [];
  for (const source of [graph.start, ...graph.tools.values()]) {
    for (const [to, { count }] of source.out) if (count > 0) edges.push({ from: source.id, to, count });
  }
  edges.sort((a, b) => byString(a.from, b.from) || byString(a.to, b.to));
  const trajectories = [...graph.trajectories].map(([id, tools]) => ({ id, tools: [...tools] })).sort((a, b) => byString(a.id, b.id));
  return { format: SNAPSHOT_FORMAT, settings: { ...graph.settings }, nodes, edges, trajectories };
}

/**
 * Rebuilds a graph from exportGraph's output (or rows shaped like it). Refuses anything that
 * does not parse, and edge counts that differ from what the stored trajectories give.
 */
export function loadGraph(data: unknown): ToolGraph {
  const parsed = ToolGraphSnapshot.safeParse(data);
  if (!parsed.success) {
    throw invalid(`The graph snapshot does not parse: ${z.prettifyError(parsed.error)}`);
  }
  const snapshot = parsed.data;
  try {
    const graph = createGraph(snapshot.settings);
    const names = snapshot.nodes.map((node) => node.tool);
    if (new Set(names).size !== names.length) throw invalid("The graph snapshot lists a tool twice.");
    addTools(graph, names);
    for (const { tool, score } of snapshot.nodes) {
      const node = graph.tools.get(tool);
      if (node !== undefined) node.score = score;
    }
    // Stored trajectories may name tools removed since (their transitions are not counted), and
    // were checked against the length limit in force when they were imported.
    addTrajectories(graph, snapshot.trajectories, { unknownTools: "skip", maxLength: Number.MAX_SAFE_INTEGER });
    if (graph.trajectories.size !== snapshot.trajectories.length) {
      throw invalid("The graph snapshot lists a trajectory id twice.");
    }
    checkCounts(graph, snapshot.edges);
    graph.version = 0;
    return graph;
  } catch (error) {
    // Bad names or trajectories inside a snapshot are a corrupt snapshot, whatever the cause.
    if (isGraphFailure(error) && error.code !== "invalid_snapshot") {
      throw invalid(`The graph snapshot is inconsistent: ${error.message}`);
    }
    throw error;
  }
}

function checkCounts(graph: ToolGraph, edges: ToolGraphSnapshot["edges"]): void {
  const differences: string[] = [];
  let expected = 0;
  for (const { from, to, count } of edges) {
    const source = from === START ? graph.start : graph.tools.get(from);
    const actual = source?.out.get(to)?.count ?? 0;
    if (actual !== count) differences.push(`${from} → ${to}: ${count} stored, ${actual} from trajectories`);
    expected += 1;
  }
  let actualEdges = 0;
  for (const source of [graph.start, ...graph.tools.values()]) {
    for (const edge of source.out.values()) if (edge.count > 0) actualEdges += 1;
  }
  if (actualEdges !== expected && differences.length === 0) {
    differences.push(`${expected} edges stored, ${actualEdges} from trajectories`);
  }
  if (differences.length > 0) {
    throw invalid(`The graph snapshot's edge counts disagree with its trajectories: ${differences.slice(0, 5).join("; ")}.`);
  }
}

function invalid(message: string): Failure {
  return graphFailure({ code: "invalid_snapshot", message });
}
