// Where the Graph page puts each node (pure, no DOM): the learned transitions first, laid out from
// start to end in columns (a node's column is its longest learned path from start, so every edge
// points right except those closing a cycle), rows within a column kept apart by d3-force so labels
// do not overlap; the tools with no learned transition go in a grid below, drawn only on demand.
import { forceCollide, forceSimulation, forceX, forceY, forceLink } from "d3-force";

export const COLUMN_WIDTH = 240;
export const ROW_HEIGHT = 26;
const GRID_COLUMNS = 5;

/** Indices of the nodes that are an end of at least one learned edge. */
export function learnedNodeIndices(data) {
  const used = new Set();
  for (const [from, to] of data.edges) {
    used.add(from);
    used.add(to);
  }
  return used;
}

/** Column of each learned node: longest path from a source over learned edges (cycles broken by visit order); end last. */
export function columns(data) {
  const learned = learnedNodeIndices(data);
  const successors = new Map();
  const incoming = new Map();
  for (const [from, to] of data.edges) {
    if (from === to) continue;
    if (!successors.has(from)) successors.set(from, []);
    successors.get(from).push(to);
    incoming.set(to, (incoming.get(to) ?? 0) + 1);
  }
  const column = new Map();
  const start = data.nodes.findIndex((n) => n.kind === "start");
  const sources = [...learned].filter((i) => i === start || !incoming.has(i));
  const queue = (sources.length > 0 ? sources : [...learned].slice(0, 1)).map((i) => [i, 0]);
  const visits = new Map();
  while (queue.length > 0) {
    const [at, depth] = queue.shift();
    if ((column.get(at) ?? -1) >= depth) continue;
    // A node is pushed right at most once per other node: cycles cannot loop for ever.
    const seen = (visits.get(at) ?? 0) + 1;
    if (seen > learned.size) continue;
    visits.set(at, seen);
    column.set(at, depth);
    for (const next of successors.get(at) ?? []) queue.push([next, depth + 1]);
  }
  for (const i of learned) if (!column.has(i)) column.set(i, 0);
  const end = data.nodes.findIndex((n) => n.kind === "end");
  if (end >= 0 && column.has(end)) {
    const others = [...column].filter(([i]) => i !== end).map(([, c]) => c);
    column.set(end, (others.length > 0 ? Math.max(...others) : 0) + 1);
  }
  return column;
}

/** Positions {index → {x, y}} of the learned nodes, and of every other tool too when `all`. */
export function positions(data, all) {
  const column = columns(data);
  const nodes = [...column.entries()].map(([index, col]) => ({ index, col, x: col * COLUMN_WIDTH, y: 0 }));
  const byIndex = new Map(nodes.map((n) => [n.index, n]));
  const links = data.edges.filter(([from, to]) => byIndex.has(from) && byIndex.has(to) && from !== to).map(([from, to]) => ({ source: byIndex.get(from), target: byIndex.get(to) }));
  forceSimulation(nodes)
    .force("x", forceX((n) => n.col * COLUMN_WIDTH).strength(1))
    .force("y", forceY(0).strength(0.05))
    .force("link", forceLink(links).strength(0.3).distance(COLUMN_WIDTH))
    .force("collide", forceCollide(ROW_HEIGHT / 2))
    .stop()
    .tick(200);
  const placed = new Map();
  // Columns are fixed; only the rows come from the simulation.
  for (const n of nodes) placed.set(n.index, { x: n.col * COLUMN_WIDTH, y: n.y });
  if (all) {
    const bottom = nodes.length === 0 ? 0 : Math.max(...nodes.map((n) => n.y)) + ROW_HEIGHT * 3;
    let slot = 0;
    data.nodes.forEach((node, index) => {
      if (placed.has(index) || node.kind !== "tool") return;
      placed.set(index, { x: (slot % GRID_COLUMNS) * COLUMN_WIDTH, y: bottom + Math.floor(slot / GRID_COLUMNS) * ROW_HEIGHT });
      slot += 1;
    });
  }
  return placed;
}
