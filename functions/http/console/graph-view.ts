import { END, START } from "../../toolnet/graph";
import { isBroken, type ToolStatusRow } from "./tool-status";
import type { GraphView } from "./views/graph";

/** The graph the page draws: every tool, start/end when transitions use them, learned edges (pure). */
export function graphView(
  rows: ToolStatusRow[],
  weighted: { nodes: { tool: string; score: number }[]; edges: { from: string; to: string; count: number; weight: number }[] },
): GraphView {
  const scores = new Map(weighted.nodes.map((n) => [n.tool, n.score]));
  const nodes: GraphView["nodes"] = rows.map((row) => {
    const score = scores.get(row.name) ?? 0;
    return { id: row.name, kind: "tool", score, broken: isBroken(row, score), calls: row.calls, successRate: row.successRate, recentScores: row.recentScores };
  });
  const used = new Set(weighted.edges.flatMap((e) => [e.from, e.to]));
  if (used.has(START)) nodes.unshift({ id: START, kind: "start", score: 0, broken: false, calls: 0, successRate: null, recentScores: [] });
  if (used.has(END)) nodes.push({ id: END, kind: "end", score: 0, broken: false, calls: 0, successRate: null, recentScores: [] });
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const edges: GraphView["edges"] = weighted.edges.flatMap((e) => {
    const from = index.get(e.from);
    const to = index.get(e.to);
    return from === undefined || to === undefined ? [] : [[from, to, Math.round(e.weight * 1000), e.count]];
  });
  return { nodes, edges };
}
