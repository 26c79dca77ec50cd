import { END, START } from "./graph";

export interface WeightedGraph {
  nodes: { tool: string; score: number }[];
  edges: { from: string; to: string; count: number; weight: number }[];
}

/** A DOT quoted string of `text`, every character literal. */
function quote(text: string): string {
  return `"${escapeDot(text)}"`;
}

function escapeDot(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/**
 * The learned graph as Graphviz DOT: observed transitions only (the implied start→tool and
 * tool→end edges of untrained tools would drown the picture), labelled with their weight ×1000,
 * pen width by weight, and each tool's accumulated evaluator score in its label.
 */
export function toDot(graph: WeightedGraph, options: { minWeight?: number } = {}): string {
  const minWeight = options.minWeight ?? 0;
  const edges = graph.edges.filter((e) => e.weight >= minWeight);
  const used = new Set(edges.flatMap((e) => [e.from, e.to]));
  const lines = ["digraph toolnet {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];'];
  lines.push(`  ${quote(START)} [shape=circle, label="start"];`, `  ${quote(END)} [shape=doublecircle, label="end"];`);
  for (const node of graph.nodes) {
    if (!used.has(node.tool)) continue;
    const colour = node.score < 0 ? "mistyrose" : node.score > 0 ? "honeydew" : "white";
    lines.push(`  ${quote(node.tool)} [label="${escapeDot(node.tool)}\\nscore ${node.score}", style=filled, fillcolor=${colour}];`);
  }
  for (const edge of edges) {
    const weight = Math.round(edge.weight * 1000);
    const pen = (1 + edge.weight * 4).toFixed(2);
    lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)} [label="${weight}", penwidth=${pen}, tooltip="${edge.count} transitions"];`);
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}
