// The Graph page's drawing: lays the ToolNet graph out with d3-force and draws it as plain SVG
// (presentation attributes, no stylesheet needed), so the same picture downloads as a file.
import { forceCollide, forceLink, forceManyBody, forceSimulation, forceX, forceY } from "d3-force";

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

/** Ticks of the simulation before the first paint: fewer for big graphs, which settle slower but must show fast. */
function tickCount(nodes) {
  return nodes < 200 ? 300 : nodes < 600 ? 200 : 120;
}

function layout(data) {
  const nodes = data.nodes.map((n) => ({ ...n }));
  const links = data.edges.map(([from, to, weight, count]) => ({ source: nodes[from].id, target: nodes[to].id, weight: weight / 1000, count }));
  const simulation = forceSimulation(nodes)
    .force("link", forceLink(links).id((n) => n.id).distance(70).strength((l) => 0.2 + l.weight))
    .force("charge", forceManyBody().strength(-60).distanceMax(400))
    .force("collide", forceCollide(nodes.length > 400 ? 12 : 20))
    .force("x", forceX(0).strength(0.04))
    .force("y", forceY(0).strength(0.04))
    .stop();
  simulation.tick(tickCount(nodes.length));
  return { nodes, links };
}

function draw(svg, data) {
  const { nodes, links } = layout(data);
  const xs = nodes.map((n) => n.x);
  const ys = nodes.map((n) => n.y);
  const pad = 60;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  svg.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + pad} ${Math.max(...ys) - minY + pad}`);
  const defs = svgElement("defs", {});
  const marker = svgElement("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 18, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
  marker.append(svgElement("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: COLOURS.edge }));
  defs.append(marker);
  svg.append(defs);
  const edgeLayer = svgElement("g", { class: "edges" });
  for (const link of links) {
    edgeLayer.append(
      svgElement("line", {
        class: "edge",
        x1: link.source.x, y1: link.source.y, x2: link.target.x, y2: link.target.y,
        stroke: COLOURS.edge, "stroke-opacity": 0.6, "stroke-width": (0.75 + link.weight * 6).toFixed(2), "marker-end": "url(#arrow)",
        "data-weight": Math.round(link.weight * 1000),
      }),
    );
  }
  svg.append(edgeLayer);
  const nodeLayer = svgElement("g", { class: "nodes" });
  const circles = new Map();
  for (const node of nodes) {
    const special = node.kind !== "tool";
    const colour = special ? COLOURS.special : node.broken ? COLOURS.broken : COLOURS.tool;
    const group = svgElement("g", {
      class: `node ${special ? "special" : "tool"}${node.broken ? " broken" : ""}`,
      transform: `translate(${node.x.toFixed(1)},${node.y.toFixed(1)})`,
      tabindex: special ? -1 : 0,
      role: special ? "presentation" : "button",
      "aria-label": special ? node.id : `${node.id}${node.broken ? ", broken" : ""}, score ${node.score}`,
      "data-tool": node.id,
    });
    const circle = svgElement("circle", { r: special ? 9 : 7, fill: colour.fill, stroke: colour.stroke, "stroke-width": node.broken ? 2.5 : 1.5 });
    const label = svgElement("text", { x: 10, y: 4, "font-size": 10, "font-family": "system-ui, sans-serif", fill: COLOURS.text });
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
  if (!svg || !source || !panel) return;
  const data = JSON.parse(source.textContent || "{}");
  const circles = draw(svg, data);
  let selected;
  const select = (id) => {
    if (selected) {
      const previous = circles.get(selected);
      previous.circle.setAttribute("stroke", previous.colour.stroke);
      previous.circle.setAttribute("stroke-width", previous.broken ? 2.5 : 1.5);
    }
    selected = id;
    const current = circles.get(id);
    if (current) {
      current.circle.setAttribute("stroke", COLOURS.selected);
      current.circle.setAttribute("stroke-width", 4);
    }
    showTool(panel, data, id);
  };
  svg.addEventListener("click", (event) => {
    const group = event.target.closest && event.target.closest("g.node.tool");
    if (group) select(group.getAttribute("data-tool"));
  });
  svg.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const group = event.target.closest && event.target.closest("g.node.tool");
    if (group) {
      event.preventDefault();
      select(group.getAttribute("data-tool"));
    }
  });
  document.getElementById("download-svg")?.addEventListener("click", () => download(svg));
  svg.setAttribute("data-drawn", String(data.nodes.length));
  performance.mark("graph-drawn");
}

start();
