// Where the Graph page puts each node (pure, no DOM): the learned transitions first, laid out from
// start to end in columns (a node's column is its longest learned path from start, so every edge
// points right except those closing a cycle), rows within a column kept apart by d3-force so labels
// do not overlap; the tools with no learned transition go in a grid below, drawn only on demand.
import { forceCollide, forceSimulation, forceX, forceY, forceLink } from "d3-force";

export const COLUMN_WIDTH = 240;
export const ROW_HEIGHT = 26;
const GRID_COLUMNS = 5;
/** Where a label starts right of its node, and the room kept between a label and the next column. */
const LABEL_OFFSET = 10;
const LABEL_GAP = 24;
/** A generous width of one character of a 12 px system-ui label (they average about 6.5 px). */
const CHAR_WIDTH = 7.5;

/** How far right of its node a label may reach (an estimate: the layout is pure, with no DOM to measure). */
export function labelWidth(name) {
  return LABEL_OFFSET + name.length * CHAR_WIDTH;
}

/** A column wide enough for its longest label (long names such as TMDB's would run into the next column). */
function columnWidthFor(names) {
  return Math.max(COLUMN_WIDTH, ...names.map((name) => labelWidth(name) + LABEL_GAP));
}

/** The x of each column's left edge, each column as wide as its longest label needs. */
function columnStarts(data, nodes) {
  const namesByColumn = new Map();
  for (const n of nodes) namesByColumn.set(n.col, [...(namesByColumn.get(n.col) ?? []), data.nodes[n.node].id]);
  const starts = new Map();
  let x = 0;
  for (const col of [...namesByColumn.keys()].sort((a, b) => a - b)) {
    starts.set(col, x);
    x += columnWidthFor(namesByColumn.get(col));
  }
  return starts;
}

/** Indices of the nodes that are an end of at least one learned edge. */
export function learnedNodeIndices(data) {
  const used = new Set();
  for (const [from, to] of data.edges) {
    used.add(from);
    used.add(to);
  }
  return used;
}

/** The learned edges without those that close a cycle (found by a depth-first walk from the sources). */
function acyclicEdges(learned, successors, roots) {
  const state = new Map();
  const kept = [];
  const visit = (at) => {
    state.set(at, "open");
    for (const next of successors.get(at) ?? []) {
      if (state.get(next) === "open") continue;
      kept.push([at, next]);
      if (!state.has(next)) visit(next);
    }
    state.set(at, "done");
  };
  for (const root of roots) if (!state.has(root)) visit(root);
  for (const i of learned) if (!state.has(i)) visit(i);
  return kept;
}

/** Column of each learned node: its longest path from a source over learned edges (cycles broken); end last. */
export function columns(data) {
  const learned = learnedNodeIndices(data);
  const successors = new Map();
  const hasIncoming = new Set();
  for (const [from, to] of data.edges) {
    if (from === to) continue;
    if (!successors.has(from)) successors.set(from, []);
    successors.get(from).push(to);
    hasIncoming.add(to);
  }
  const start = data.nodes.findIndex((n) => n.kind === "start");
  const roots = [...learned].filter((i) => i === start || !hasIncoming.has(i));
  const edges = acyclicEdges(learned, successors, roots);
  // Longest path in the acyclic part, in topological order (Kahn).
  const indegree = new Map([...learned].map((i) => [i, 0]));
  const next = new Map();
  for (const [from, to] of edges) {
    indegree.set(to, (indegree.get(to) ?? 0) + 1);
    if (!next.has(from)) next.set(from, []);
    next.get(from).push(to);
  }
  const column = new Map([...learned].map((i) => [i, 0]));
  const ready = [...learned].filter((i) => indegree.get(i) === 0);
  while (ready.length > 0) {
    const at = ready.shift();
    for (const to of next.get(at) ?? []) {
      column.set(to, Math.max(column.get(to) ?? 0, (column.get(at) ?? 0) + 1));
      indegree.set(to, (indegree.get(to) ?? 0) - 1);
      if (indegree.get(to) === 0) ready.push(to);
    }
  }
  const end = data.nodes.findIndex((n) => n.kind === "end");
  if (end >= 0 && column.has(end)) {
    const others = [...column].filter(([i]) => i !== end).map(([, c]) => c);
    column.set(end, (others.length > 0 ? Math.max(...others) : 0) + 1);
  }
  return column;
}

/**
 * Pushes nodes of one column at least a row apart, in the simulation's order: nodes started on one
 * spot can end up side by side (apart in x, which the fixed columns then undo), their labels on top of each other.
 */
function separateRows(placed) {
  const byColumn = new Map();
  for (const spot of placed.values()) byColumn.set(spot.x, [...(byColumn.get(spot.x) ?? []), spot]);
  for (const spots of byColumn.values()) {
    spots.sort((a, b) => a.y - b.y);
    for (let i = 1; i < spots.length; i++) spots[i].y = Math.max(spots[i].y, spots[i - 1].y + ROW_HEIGHT);
  }
}

/** Positions {index → {x, y}} of the learned nodes, and of every other tool too when `all`. */
export function positions(data, all) {
  const column = columns(data);
  // d3-force writes its own `index` on each node: ours is `node`.
  const nodes = [...column.entries()].map(([node, col]) => ({ node, col, x: col * COLUMN_WIDTH, y: 0 }));
  const byIndex = new Map(nodes.map((n) => [n.node, n]));
  const links = data.edges
    .filter(([from, to]) => byIndex.has(from) && byIndex.has(to) && from !== to)
    .map(([from, to]) => ({ source: byIndex.get(from), target: byIndex.get(to) }));
  forceSimulation(nodes)
    .force("x", forceX((n) => n.col * COLUMN_WIDTH).strength(1))
    .force("y", forceY(0).strength(0.05))
    .force("link", forceLink(links).strength(0.3).distance(COLUMN_WIDTH))
    .force("collide", forceCollide(ROW_HEIGHT / 2))
    .stop()
    .tick(200);
  const placed = new Map();
  // Columns are fixed; only the rows come from the simulation, kept a row apart within a column.
  const starts = columnStarts(data, nodes);
  for (const n of nodes) placed.set(n.node, { x: starts.get(n.col), y: n.y });
  separateRows(placed);
  if (all) placeGrid(data, placed, nodes.length === 0 ? 0 : Math.max(...nodes.map((n) => n.y)) + ROW_HEIGHT * 3);
  return placed;
}

/** The tools with no learned transition, in a grid below the learned part, each grid column as wide as its longest name. */
function placeGrid(data, placed, top) {
  const rest = [];
  data.nodes.forEach((node, index) => {
    if (!placed.has(index) && node.kind === "tool") rest.push(index);
  });
  const starts = [0];
  for (let col = 0; col < GRID_COLUMNS - 1; col++) {
    const names = rest.filter((_, slot) => slot % GRID_COLUMNS === col).map((index) => data.nodes[index].id);
    starts.push(starts[col] + columnWidthFor(names));
  }
  rest.forEach((index, slot) => {
    placed.set(index, { x: starts[slot % GRID_COLUMNS], y: top + Math.floor(slot / GRID_COLUMNS) * ROW_HEIGHT });
  });
}
