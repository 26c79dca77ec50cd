import { END, START } from "./graph";
import type { WeightedGraph } from "./graph-dot";

/**
 * The learned graph as a standalone SVG picture, drawn by the service itself (no Graphviz needed):
 * observed transitions only, laid out left to right from start to end. A tool's column is the
 * length of the longest observed path from start to it (cycles are cut where a depth-first walk
 * from start meets a tool already on its path), so a chain the tenant learned reads as a row of
 * boxes; edges are labelled with their weight ×1000 and drawn wider when heavier, and each tool's
 * box is tinted by its accumulated evaluator score (red below zero, green above).
 */
export function toSvg(graph: WeightedGraph, options: { minWeight?: number } = {}): string {
  const minWeight = options.minWeight ?? 0;
  const edges = graph.edges.filter((e) => e.weight >= minWeight);
  const columns = columnsOf(edges);
  const scores = new Map(graph.nodes.map((n) => [n.tool, n.score]));
  const place = placeNodes(columns);
  const width = Math.max(1, ...[...place.values()].map((p) => p.x + BOX_WIDTH)) + MARGIN;
  const height = Math.max(1, ...[...place.values()].map((p) => p.y + BOX_HEIGHT)) + MARGIN;

  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    "<title>ToolNet graph: learned transitions</title>",
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
  ];
  for (const edge of edges) parts.push(edgeSvg(edge, place));
  for (const [node, at] of place) parts.push(nodeSvg(node, at, scores.get(node) ?? 0));
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

const BOX_WIDTH = 220;
const BOX_HEIGHT = 40;
const COLUMN_GAP = 90;
const ROW_GAP = 24;
const MARGIN = 20;

interface Point {
  x: number;
  y: number;
}

/**
 * Each node's column: the longest observed path from start to it, end after every other node.
 * One depth-first walk drops the edges that close a cycle (back edges) and yields a topological
 * order of the rest, so the longest paths take one pass: linear in nodes and edges.
 */
function columnsOf(edges: WeightedGraph["edges"]): Map<string, number> {
  const successors = new Map<string, string[]>();
  for (const e of edges) if (e.to !== END) successors.set(e.from, [...(successors.get(e.from) ?? []), e.to]);
  const roots = [START, ...new Set(edges.map((e) => e.from).filter((n) => n !== START))];
  const state = new Map<string, "open" | "done">();
  const postOrder: string[] = [];
  const forward = new Map<string, string[]>();
  for (const root of roots) {
    if (state.has(root)) continue;
    // Iterative: a long learned chain must not overflow the stack.
    const stack: { node: string; next: number }[] = [{ node: root, next: 0 }];
    state.set(root, "open");
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: string; next: number };
      const out = successors.get(top.node) ?? [];
      if (top.next >= out.length) {
        state.set(top.node, "done");
        postOrder.push(top.node);
        stack.pop();
        continue;
      }
      const to = out[top.next++] as string;
      if (state.get(to) === "open") continue; // closes a cycle: not used for columns
      forward.set(top.node, [...(forward.get(top.node) ?? []), to]);
      if (!state.has(to)) {
        state.set(to, "open");
        stack.push({ node: to, next: 0 });
      }
    }
  }
  const column = new Map<string, number>();
  for (const node of postOrder.reverse()) {
    // A tool no observed path from start reaches (its first step was never learned) starts in column 1.
    const here = column.get(node) ?? (node === START ? 0 : 1);
    column.set(node, here);
    for (const to of forward.get(node) ?? []) column.set(to, Math.max(column.get(to) ?? 0, here + 1));
  }
  if (edges.some((e) => e.to === END)) column.set(END, Math.max(0, ...column.values()) + 1);
  return column;
}

/** Top-left corners: columns left to right, nodes of a column top to bottom by name. */
function placeNodes(columns: Map<string, number>): Map<string, Point> {
  const byColumn = new Map<number, string[]>();
  for (const [node, c] of columns) byColumn.set(c, [...(byColumn.get(c) ?? []), node]);
  const place = new Map<string, Point>();
  for (const [c, nodes] of byColumn) {
    nodes.sort();
    nodes.forEach((node, row) => place.set(node, { x: MARGIN + c * (BOX_WIDTH + COLUMN_GAP), y: MARGIN + row * (BOX_HEIGHT + ROW_GAP) }));
  }
  return place;
}

function edgeSvg(edge: WeightedGraph["edges"][number], place: Map<string, Point>): string {
  const from = place.get(edge.from);
  const to = place.get(edge.to);
  if (from === undefined || to === undefined) return "";
  const x1 = from.x + BOX_WIDTH;
  const y1 = from.y + BOX_HEIGHT / 2;
  const x2 = to.x;
  const y2 = to.y + BOX_HEIGHT / 2;
  // A backward or same-column edge (a loop the tenant learned) bends below the boxes.
  const bend = x2 <= x1 ? Math.max(from.y, to.y) + BOX_HEIGHT * 2 : (y1 + y2) / 2;
  const d = x2 <= x1 ? `M${x1},${y1} C${x1 + 60},${bend} ${x2 - 60},${bend} ${x2},${y2}` : `M${x1},${y1} C${x1 + 40},${y1} ${x2 - 40},${y2} ${x2},${y2}`;
  const stroke = (1 + edge.weight * 4).toFixed(2);
  const label = Math.round(edge.weight * 1000);
  const lx = (x1 + x2) / 2;
  const ly = x2 <= x1 ? bend - 4 : (y1 + y2) / 2 - 6;
  return [
    `<g class="edge"><title>${escapeXml(`${edge.from} → ${edge.to}: ${edge.count} transitions, weight ${label}`)}</title>`,
    `<path d="${d}" fill="none" stroke="#555" stroke-width="${stroke}" marker-end="url(#arrow)"/>`,
    `<text x="${lx}" y="${ly}" text-anchor="middle" fill="#333">${label}</text></g>`,
  ].join("");
}

function nodeSvg(node: string, at: Point, score: number): string {
  const label = node === START ? "start" : node === END ? "end" : node;
  const fill = node === START || node === END ? "#eef" : score < 0 ? "#fde2e2" : score > 0 ? "#e3f6e3" : "#fff";
  const shown = label.length > 30 ? `${label.slice(0, 29)}…` : label;
  const scoreLine =
    node === START || node === END
      ? ""
      : `<text x="${at.x + BOX_WIDTH / 2}" y="${at.y + 32}" text-anchor="middle" fill="#555" font-size="10">score ${score}</text>`;
  return [
    `<g class="node"><title>${escapeXml(label)}</title>`,
    `<rect x="${at.x}" y="${at.y}" width="${BOX_WIDTH}" height="${BOX_HEIGHT}" rx="6" fill="${fill}" stroke="#333"/>`,
    `<text x="${at.x + BOX_WIDTH / 2}" y="${at.y + (scoreLine === "" ? 24 : 17)}" text-anchor="middle">${escapeXml(shown)}</text>`,
    `${scoreLine}</g>`,
  ].join("");
}

function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}
