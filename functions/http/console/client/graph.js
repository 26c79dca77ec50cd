// The Graph page's drawing: the learned transitions first, from start to end (graph-layout.js),
// every other tool on demand, and a search; plain SVG (presentation attributes, no stylesheet
// needed), so the same picture downloads as a file.
import { labelWidth, learnedNodeIndices, positions } from "./graph-layout.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const COLOURS = {
  tool: { fill: "#ddf4ff", stroke: "#0550ae" },
  broken: { fill: "#ffebe9", stroke: "#a40e26" },
  special: { fill: "#1b1f24", stroke: "#1b1f24" },
  selected: "#bf5700",
  edge: "#57606a",
  text: "#1b1f24",
};

/** @param {string} name @param {Record<string, string | number>} attributes */
function svgElement(name, attributes) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/** Draw the learned part of the graph (or every tool, `all`), columns from start to end; returns each node's circle. */
function draw(svg, data, all) {
  svg.replaceChildren();
  const placed = positions(data, all);
  const xs = [...placed.values()].map((p) => p.x);
  const ys = [...placed.values()].map((p) => p.y);
  const pad = 40;
  const minX = Math.min(0, ...xs) - pad;
  const minY = Math.min(0, ...ys) - pad;
  // Room on the right for the longest label of the last column.
  const right = Math.max(0, ...[...placed].map(([index, p]) => p.x + labelWidth(data.nodes[index].id)));
  const width = right - minX + pad;
  const height = Math.max(0, ...ys) - minY + pad;
  svg.setAttribute("viewBox", `${minX} ${minY} ${width} ${height}`);
  // Drawn at its own size (one unit, one pixel) in a scrolling box: shrunk to fit, a large graph's labels were too small to read.
  svg.setAttribute("width", String(Math.round(width)));
  svg.setAttribute("height", String(Math.round(height)));
  const defs = svgElement("defs", {});
  // Sized in drawing units, not by stroke width: at one unit per pixel a heavy edge's arrow would hide the labels.
  const marker = svgElement("marker", {
    id: "arrow",
    viewBox: "0 0 10 10",
    refX: 18,
    refY: 5,
    markerUnits: "userSpaceOnUse",
    markerWidth: 10,
    markerHeight: 10,
    orient: "auto-start-reverse",
  });
  marker.append(svgElement("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: COLOURS.edge }));
  defs.append(marker);
  svg.append(defs);
  const edgeLayer = svgElement("g", { class: "edges" });
  for (const [from, to, weight] of data.edges) {
    const a = placed.get(from);
    const b = placed.get(to);
    if (!a || !b) continue;
    edgeLayer.append(
      svgElement("line", {
        class: "edge",
        x1: a.x,
        y1: a.y,
        x2: b.x,
        y2: b.y,
        stroke: COLOURS.edge,
        "stroke-opacity": 0.7,
        "stroke-width": (0.75 + (weight / 1000) * 6).toFixed(2),
        "marker-end": "url(#arrow)",
        "data-weight": weight,
      }),
    );
  }
  svg.append(edgeLayer);
  const nodeLayer = svgElement("g", { class: "nodes" });
  const circles = new Map();
  for (const [index, at] of placed) {
    const node = data.nodes[index];
    const special = node.kind !== "tool";
    const colour = special ? COLOURS.special : node.broken ? COLOURS.broken : COLOURS.tool;
    const group = svgElement("g", {
      class: `node ${special ? "special" : "tool"}${node.broken ? " broken" : ""}`,
      transform: `translate(${at.x.toFixed(1)},${at.y.toFixed(1)})`,
      tabindex: special ? -1 : 0,
      role: special ? "presentation" : "button",
      "aria-label": special ? node.id : `${node.id}${node.broken ? ", broken" : ""}, score ${node.score}`,
      "data-tool": node.id,
    });
    const circle = svgElement("circle", { r: special ? 9 : 7, fill: colour.fill, stroke: colour.stroke, "stroke-width": node.broken ? 2.5 : 1.5 });
    const label = svgElement("text", { x: 10, y: 4, "font-size": 12, "font-family": "system-ui, sans-serif", fill: COLOURS.text });
    label.textContent = special ? node.id.replace(/[<>]/g, "") : node.id;
    group.append(circle, label);
    nodeLayer.append(group);
    circles.set(node.id, { circle, colour, broken: node.broken });
  }
  svg.append(nodeLayer);
  return circles;
}

function text(tag, content, className) {
  const element = document.createElement(tag);
  element.textContent = content;
  if (className) element.className = className;
  return element;
}

/** The side panel for one tool: successors by weight and its recent feedback. */
function showTool(panel, data, id) {
  const at = data.nodes.findIndex((n) => n.id === id);
  const node = data.nodes[at];
  if (!node) return;
  const successors = data.edges
    .filter(([from]) => from === at)
    .map(([, to, weight, count]) => ({ to: data.nodes[to].id, weight, count }))
    .sort((a, b) => b.weight - a.weight);
  panel.replaceChildren();
  const heading = text("h2", "");
  const link = text("a", id);
  link.href = `/console/tools/${encodeURIComponent(id)}`;
  heading.append(link);
  panel.append(heading);
  const facts = [
    `Evaluator score: ${node.score}`,
    node.calls === 0 ? "No calls in recent runs." : `Recent calls: ${node.calls}, ${Math.round((node.successRate ?? 0) * 100)} % succeeded.`,
    node.recentScores.length === 0 ? "No recent evaluator feedback." : `Recent feedback: ${node.recentScores.join(", ")}`,
  ];
  if (node.broken) facts.unshift("Marked broken.");
  for (const fact of facts) panel.append(text("p", fact));
  panel.append(text("h3", "Successors"));
  if (successors.length === 0) {
    panel.append(text("p", "None learned yet.", "muted"));
  } else {
    const list = document.createElement("ol");
    for (const edge of successors) list.append(text("li", `${edge.to.replace(/[<>]/g, "")} — weight ${edge.weight} (${edge.count} transitions)`));
    panel.append(list);
  }
}

function download(svg) {
  const copy = svg.cloneNode(true);
  copy.setAttribute("xmlns", SVG_NS);
  copy.setAttribute("width", "1600");
  copy.setAttribute("height", "1200");
  const blob = new Blob([`<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}`], { type: "image/svg+xml" });
  const anchor = document.createElement("a");
  anchor.href = URL.createObjectURL(blob);
  anchor.download = "toolnet-graph.svg";
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(anchor.href), 1_000);
}

function start() {
  const svg = document.getElementById("graph");
  const source = document.getElementById("graph-data");
  const panel = document.getElementById("graph-panel");
  const toggle = document.getElementById("show-all");
  const search = document.getElementById("graph-search");
  if (!svg || !source || !panel) return;
  const data = JSON.parse(source.textContent || "{}");
  // Nothing learned yet: every tool is the only picture there is.
  let all = learnedNodeIndices(data).size === 0;
  let circles = new Map();
  let selected;
  const highlight = (id, on) => {
    const entry = circles.get(id);
    if (!entry) return;
    entry.circle.setAttribute("stroke", on ? COLOURS.selected : entry.colour.stroke);
    entry.circle.setAttribute("stroke-width", on ? 4 : entry.broken ? 2.5 : 1.5);
  };
  const render = () => {
    circles = draw(svg, data, all);
    if (selected) highlight(selected, true);
    if (toggle) toggle.textContent = all ? "Show learned transitions only" : `Show all ${data.nodes.filter((n) => n.kind === "tool").length} tools`;
    svg.setAttribute("data-drawn", String(circles.size));
  };
  const select = (id) => {
    if (selected) highlight(selected, false);
    selected = id;
    highlight(id, true);
    showTool(panel, data, id);
  };
  render();
  svg.addEventListener("click", (event) => {
    const group = event.target.closest?.("g.node.tool");
    if (group) select(group.getAttribute("data-tool"));
  });
  svg.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const group = event.target.closest?.("g.node.tool");
    if (group) {
      event.preventDefault();
      select(group.getAttribute("data-tool"));
    }
  });
  toggle?.addEventListener("click", () => {
    all = !all;
    render();
  });
  // Search: the first tool whose name contains the text is selected (and drawn, if it was not).
  search?.addEventListener("change", () => {
    const wanted = search.value.trim().toLowerCase();
    if (wanted === "") return;
    const found = data.nodes.find((n) => n.kind === "tool" && n.id.toLowerCase().includes(wanted));
    if (!found) {
      panel.replaceChildren(text("p", `No tool matches “${search.value.trim()}”.`, "muted"));
      return;
    }
    if (!circles.has(found.id)) {
      all = true;
      render();
    }
    select(found.id);
    svg.querySelector(`g.node[data-tool="${CSS.escape(found.id)}"]`)?.focus();
  });
  document.getElementById("download-svg")?.addEventListener("click", () => download(svg));
  performance.mark("graph-drawn");
}

start();
