import { graphFailure, unknownTools } from "./errors";
import { END, START, assertToolNames } from "./node-ids";
import { resolveSettings, type GraphSettings } from "./settings";
import { forEachTransition } from "./trajectory";

/**
 * The ToolNet graph G = (V, E) of one tenant, in memory (§3). V = tools ∪ {start, end}. Each
 * node's `out` map holds exactly its out-neighbours oneigh(v): start → every tool; a tool →
 * itself, → end, and → every tool observed after it. Only counts and scores are stored; weights
 * (eq. 5–8) are computed when read, from one node's out-neighbours, so a read never scans the
 * graph and an update never rewrites weights elsewhere.
 */

/** An edge v_i → v_j: `count` is its observed 2-gram count (0 for a never-observed structural edge). */
export interface Edge {
  readonly target: GraphNode;
  count: number;
}

/** One node: its accumulated score and its out-edges. */
export interface GraphNode {
  readonly id: string;
  /** s_i of eq. 7: the sum over iterations of the evaluator's score Δ_i⁽ⁿ⁾. Stays 0 for start and end. */
  score: number;
  /** oneigh(v) by target id. */
  readonly out: Map<string, Edge>;
  /** Sum of the counts in `out`: eq. 5's denominator. */
  outTotal: number;
}

export interface ToolGraph {
  settings: GraphSettings;
  readonly start: GraphNode;
  readonly end: GraphNode;
  readonly tools: Map<string, GraphNode>;
  /**
   * Every imported trajectory as given. Edge counts are always exactly the transitions of these
   * trajectories whose two ends are both in the graph, so removing and re-adding a tool restores
   * its counts, and a trajectory imported before all of its tools exist is well defined.
   */
  readonly trajectories: Map<string, readonly string[]>;
  /**
   * Tool name → ids of stored trajectories naming it, including names not (yet) in the graph.
   * Also how removeTool finds a tool's observed predecessors without a reverse edge index.
   */
  readonly trajectoriesByTool: Map<string, Set<string>>;
  /** Incremented by every change, for callers that cache rankings. */
  version: number;
}

function newNode(id: string): GraphNode {
  return { id, score: 0, out: new Map(), outTotal: 0 };
}

/** An empty graph: start and end only, with the given (or default) α and β. */
export function createGraph(settings: Partial<GraphSettings> = {}): ToolGraph {
  return {
    settings: resolveSettings(settings),
    start: newNode(START),
    end: newNode(END),
    tools: new Map(),
    trajectories: new Map(),
    trajectoriesByTool: new Map(),
    version: 0,
  };
}

/** Changes α and/or β; weights follow at once, since they are computed when read. */
export function updateSettings(graph: ToolGraph, settings: Partial<GraphSettings>): GraphSettings {
  graph.settings = resolveSettings({ ...graph.settings, ...settings });
  graph.version += 1;
  return graph.settings;
}

/** True when `name` is a tool node of the graph. */
export function hasTool(graph: ToolGraph, name: string): boolean {
  return graph.tools.has(name);
}

/** The node for an id: start, end or a tool. */
export function nodeOf(graph: ToolGraph, id: string): GraphNode | undefined {
  if (id === START) return graph.start;
  if (id === END) return graph.end;
  return graph.tools.get(id);
}

/** Structural edges exist whether observed or not (§3): start → tool, tool → itself, tool → end. */
function isStructural(from: string, to: string): boolean {
  return from === START || from === to || to === END;
}

/** Adds or removes one observed transition (`delta` ±1). Does nothing unless both ends are present. */
export function countTransition(graph: ToolGraph, from: string, to: string, delta: 1 | -1): void {
  const source = nodeOf(graph, from);
  const target = nodeOf(graph, to);
  if (source === undefined || target === undefined || source === graph.end || target === graph.start) return;
  let edge = source.out.get(to);
  if (edge === undefined) {
    if (delta < 0) return; // cannot happen while the counts invariant holds; never go negative
    edge = { target, count: 0 };
    source.out.set(to, edge);
  }
  if (edge.count + delta < 0) return;
  edge.count += delta;
  source.outTotal += delta;
  if (edge.count === 0 && !isStructural(from, to)) source.out.delete(to);
}

/**
 * Adds tool nodes, each with its structural edges (start → it, it → itself, it → end), so a new
 * tool is reachable at once. Transitions of stored trajectories that name it are counted now.
 * Returns the names that were new; names already present are left as they are.
 */
export function addTools(graph: ToolGraph, names: readonly string[]): string[] {
  assertToolNames(names);
  const added: string[] = [];
  for (const name of names) {
    if (graph.tools.has(name)) continue;
    const node = newNode(name);
    graph.tools.set(name, node);
    graph.start.out.set(name, { target: node, count: 0 });
    node.out.set(name, { target: node, count: 0 });
    node.out.set(END, { target: graph.end, count: 0 });
    added.push(name);
    recountStoredTransitions(graph, name);
  }
  if (added.length > 0) graph.version += 1;
  return added;
}

/** Adds one tool node; false when it was already there. */
export function addTool(graph: ToolGraph, name: string): boolean {
  return addTools(graph, [name]).length === 1;
}

/** Counts the stored transitions touching `name` whose other end is present (until now it was absent). */
function recountStoredTransitions(graph: ToolGraph, name: string): void {
  for (const id of graph.trajectoriesByTool.get(name) ?? []) {
    const tools = graph.trajectories.get(id);
    if (tools === undefined) continue;
    forEachTransition(tools, (from, to) => {
      if (from === name || to === name) countTransition(graph, from, to, 1);
    });
  }
}

/**
 * Removes a tool: its node, its score and every edge into or out of it. Its predecessors'
 * weights renormalise by themselves (eq. 5 and 7 divide by what is left). Stored trajectories
 * are kept, so re-adding the tool restores its static counts (not its score).
 */
export function removeTool(graph: ToolGraph, name: string): boolean {
  if (!graph.tools.has(name)) return false;
  // Its observed predecessors are the tools before it in stored trajectories (counts come from
  // nowhere else), plus start, which has an edge to every tool.
  const predecessors = new Set<string>([START]);
  for (const id of graph.trajectoriesByTool.get(name) ?? []) {
    forEachTransition(graph.trajectories.get(id) ?? [], (from, to) => {
      if (to === name && from !== name) predecessors.add(from);
    });
  }
  for (const from of predecessors) {
    const source = nodeOf(graph, from);
    const edge = source?.out.get(name);
    if (source === undefined || edge === undefined) continue;
    source.out.delete(name);
    source.outTotal -= edge.count;
  }
  graph.tools.delete(name);
  graph.version += 1;
  return true;
}

/** The tool node for `name`, or an unknown_tool error naming `where`. */
export function requireTool(graph: ToolGraph, name: string, where: string): GraphNode {
  const node = graph.tools.get(name);
  if (node === undefined) throw unknownTools([name], where);
  return node;
}

/** The node transitions leave from (start or a tool), or an error: end has no successors. */
export function requireSource(graph: ToolGraph, from: string, where: string): GraphNode {
  if (from === END) {
    throw graphFailure({ code: "invalid_options", message: `${where}: the end node has no successors.` });
  }
  return from === START ? graph.start : requireTool(graph, from, where);
}
