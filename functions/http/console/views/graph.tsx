import type { Session } from "../session";
import { Layout } from "./layout";
import { counted, EmptyState, JsonData } from "./parts";

/** What the browser draws: every tool, observed transitions with their weights, and each tool's recent feedback. */
export interface GraphView {
  nodes: { id: string; kind: "tool" | "start" | "end"; score: number; broken: boolean; calls: number; successRate: number | null; recentScores: number[] }[];
  /** [from node index, to node index, weight ×1000, transitions]: indices keep the page small at thousands of edges. */
  edges: [number, number, number, number][];
}

const TRAJECTORY_COMMAND = `curl -X POST $BASE/v1/graph/trajectories -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\
     -d '{"trajectories":[{"id":"t1","tools":["getSearchMovie","getMovieMovieIdCredits"]}]}'`;

/** The ToolNet graph drawn as SVG in the browser (learned transitions first, start to end; the rest on demand), with a search and a detail panel. */
export function GraphPage(props: { session: Session; graph: GraphView }) {
  const tools = props.graph.nodes.filter((n) => n.kind === "tool").length;
  if (tools === 0) {
    return (
      <Layout title="Graph" section="graph" session={props.session}>
        <h1>Tool graph</h1>
        <EmptyState title="No tools, so no graph" command="npm start   # loads the demo tenant's 87 tools">
          <p>Register tools first (see the Tools page); the graph grows from runs and imported trajectories.</p>
        </EmptyState>
      </Layout>
    );
  }
  return (
    <Layout title="Graph" section="graph" session={props.session} scripts={["/console/assets/graph.js"]}>
      <h1>Tool graph</h1>
      <p class="muted">
        {counted(tools, "tool")}, {counted(props.graph.edges.length, "learned transition")}. The learned transitions are drawn first, from start (left) to end
        (right); edge width is the transition weight; tools drawn in red are broken (negative evaluator score, most recent calls failing, or probing failed).
        Select a tool (click, or Tab and Enter) to see its successors and feedback.
      </p>
      {props.graph.edges.length === 0 ? (
        <p class="message info" role="status">
          No transitions learned yet: runs and chatbots' conversations teach the graph, or import trajectories: <code>{TRAJECTORY_COMMAND}</code>
        </p>
      ) : null}
      <div class="actions">
        <label for="graph-search">Find a tool</label>
        <input id="graph-search" type="search" placeholder="name, then Enter" />
        <button type="button" id="show-all" class="secondary">
          {`Show all ${counted(tools, "tool")}`}
        </button>
        <button type="button" id="download-svg" class="secondary">
          Download SVG
        </button>
      </div>
      <div class="graph-wrap">
        <div class="graph-canvas">
          {/* biome-ignore lint/a11y/useSemanticElements: an SVG drawing cannot be a <fieldset>; "group" names its selectable nodes as one widget */}
          <svg id="graph" role="group" aria-label={`ToolNet graph of ${counted(tools, "tool")}`} xmlns="http://www.w3.org/2000/svg"></svg>
        </div>
        <aside id="graph-panel" aria-live="polite">
          <h2>Tool</h2>
          <p class="muted">Nothing selected.</p>
        </aside>
      </div>
      <JsonData id="graph-data" value={props.graph} />
    </Layout>
  );
}
