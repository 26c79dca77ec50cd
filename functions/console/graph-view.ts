import { END, START } from "../routing/graph";
import { isBroken, type ToolStatusRow } from "./tool-status";
import type { GraphView } from "./views/graph";

/** The graph the page draws: every tool, start/end when transitions use them, learned edges (pure). */
export function graphView(rows: ToolStatusRow[], weighted: { nodes: { tool: string; score: number }[]; edges: { from: string; to: string; count: number; weight: number }[] }): GraphView {
  const scores = new Map(weighted.nodes.map((n) => [n.tool, n.score]));
  const nodes: GraphView["nodes"] = rows.map((row) => {
    const score = scores.get(row.name) ?? 0;
    return { id: row.name, kind: "tool", score, broken: isBroken(row, score), calls: row.calls, successRate: row.successRate, recentScores: row.recentScores };
  });
  const known = new Set(nodes.map((n) => n.id));
  const used = new Set(weighted.edges.flatMap((e) => [e.from, e.to]));
  if (used.has(START)) nodes.unshift({ id: START, kind: "start", score: 0, broken: false, calls: 0, successRate: null, recentScores: [] });
  if (used.has(END)) nodes.push({ id: END, kind: "end", score: 0, broken: false, calls: 0, successRate: null, recentScores: [] });
  const drawable = new Set([...known, START, END]);
  const edges = weighted.edges.filter((e) => drawable.has(e.from) && drawable.has(e.to)).map((e) => ({ from: e.from, to: e.to, weight: e.weight, count: e.count }));
  return { nodes, edges };
}
