import type { Session } from "../session";
import type { LearningChart } from "../learning-chart";
import { CsrfField, Layout } from "./layout";
import { counted, EmptyState, ErrorMessage, Notice } from "./parts";

export interface ObservedSummary {
  id: string;
  lastAt: string;
  closedAt: string | null;
  trajectories: { task: string | null; terms: string; tools: string[] }[];
}

const percent = (share: number): string => `${Math.round(share * 100)} %`;

/** GET /v1/routing/calibration as the page reads it. */
export interface SignalCalibration {
  weights: Record<string, number>;
  replays: Record<string, { judged: number; grid: number[]; hits: number[] }>;
  madeAt: string | null;
  stale: boolean;
}

const SIGNAL_NAMES: Record<string, string> = {
  history: "Similar earlier tasks lead the first step",
  transitions: "Learned transitions (later steps)",
  embeddings: "Embeddings (when a model is set)",
  learned: "Learned words (share of the learned field's setting)",
  starts: "Usual first tools (first step)",
  unmatched: "Tools chosen where the words found nothing (first step)",
};

/** Each signal's weight for this tenant, and what its replay judged (weight 0: muted). */
function SignalWeightsTable(props: { calibration: SignalCalibration }) {
  const { weights, replays, madeAt, stale } = props.calibration;
  return (
    <>
      <h2>How much each signal counts</h2>
      <p class="muted">
        Chosen from this tenant's own recent tasks, replayed with each signal at every weight (the tool's text counts 1).{" "}
        {madeAt === null ? "Not judged yet: the defaults apply." : `Chosen ${madeAt}.`}
        {stale ? " Being judged again in the background." : ""}
      </p>
      <table id="signal-weights">
        <thead>
          <tr>
            <th>Signal</th>
            <th>Weight</th>
            <th>Judged on</th>
            <th>Held the right tool (per weight tried)</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(weights).map(([signal, weight]) => {
            const replay = replays[signal];
            return (
              <tr data-signal={signal}>
                <td>{SIGNAL_NAMES[signal] ?? signal}</td>
                <td class="weight">{weight === 0 ? "0 (muted)" : String(weight)}</td>
                <td>{replay?.judged ?? 0}</td>
                <td>{replay === undefined ? "" : replay.grid.map((w, i) => `${w}: ${replay.hits[i] ?? 0}`).join(", ")}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** The chart itself: plain SVG, drawn on the server, readable without a script. */
function Chart(props: { chart: LearningChart }) {
  const { chart } = props;
  const { plot } = chart;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const last = chart.points.at(-1);
  const summary =
    last === undefined
      ? "No data."
      : `Last day ${last.day}: ${last.share === null ? "no search followed by a call" : `${percent(last.share)} of ${counted(last.searches, "search", "searches")} offered the tool called next`}.`;
  return (
    <svg
      id="learning-chart"
      viewBox={`0 0 ${chart.width} ${chart.height}`}
      role="img"
      aria-labelledby="learning-chart-title learning-chart-desc"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="learning-chart-title">Learning curve</title>
      <desc id="learning-chart-desc">{summary}</desc>
      {ticks.map((t) => {
        const y = plot.bottom - t * (plot.bottom - plot.top);
        return (
          <g class="tick">
            <line x1={plot.left} x2={plot.right} y1={y} y2={y} stroke="#d0d7de" stroke-width="1" />
            <text x={plot.left - 8} y={y + 4} text-anchor="end" font-size="11" fill="#57606a">
              {percent(t)}
            </text>
          </g>
        );
      })}
      {chart.bars.map((bar) => (
        <rect class="sessions" x={bar.x} y={bar.y} width={bar.width} height={bar.height} fill="#d8b9ff" data-day={bar.day} data-sessions={bar.sessions}>
          <title>{`${bar.day}: learned from ${counted(bar.sessions, "conversation")}`}</title>
        </rect>
      ))}
      {chart.line === "" ? null : <polyline points={chart.line} fill="none" stroke="#0550ae" stroke-width="2.5" />}
      {chart.points.map((p) =>
        p.y === null || p.share === null ? null : (
          <circle class="share" cx={p.x} cy={p.y} r="4" fill="#0550ae" data-day={p.day} data-share={p.share.toFixed(3)}>
            <title>{`${p.day}: ${percent(p.share)} of ${counted(p.searches, "search", "searches")} offered the tool called next`}</title>
          </circle>
        ),
      )}
      {chart.points.map((p, i) =>
        i === 0 || i === chart.points.length - 1 || chart.points.length <= 8 ? (
          <text x={p.x} y={plot.bottom + 18} text-anchor="middle" font-size="11" fill="#57606a">
            {p.day}
          </text>
        ) : null,
      )}
      <g id="learning-chart-legend" font-size="11" fill="#57606a">
        <line x1={plot.left} x2={plot.left + 20} y1={chart.height - 14} y2={chart.height - 14} stroke="#0550ae" stroke-width="2.5" />
        <text x={plot.left + 26} y={chart.height - 10}>
          line: share of searches that offered the tool called next
        </text>
        <rect x={plot.left + 370} y={chart.height - 20} width="12" height="12" fill="#d8b9ff" />
        <text x={plot.left + 388} y={chart.height - 10}>{`bars: conversations learned (max ${chart.maxSessions})`}</text>
      </g>
    </svg>
  );
}

/** Implicit learning at a glance: the curve, the switch, and the latest observed conversations. */
export function LearningPage(props: {
  session: Session;
  chart: LearningChart;
  implicit: boolean;
  sessions: ObservedSummary[];
  calibration?: SignalCalibration;
  error?: string;
  notice?: string;
}) {
  return (
    <Layout title="Learning" section="learning" session={props.session}>
      <h1>Learning from use</h1>
      <p class="muted">
        What chatbots search for and then call (over MCP, or REST calls with a <code>Conversation-Id</code> header) teaches routing, with no feedback call. The
        line is the share of searches whose offered tools included the tool called next, per day; the bars are the conversations learned from.
      </p>
      <ErrorMessage message={props.error} />
      <Notice message={props.notice} />
      {props.chart.points.length === 0 ? (
        <EmptyState title="Nothing observed yet" command="find_tools, then call_tool, in one MCP session">
          <p>Connect a chatbot over MCP (or send a Conversation-Id with /v1/route and the tool calls that follow); its conversations show up here.</p>
        </EmptyState>
      ) : (
        <figure class="chart">
          <Chart chart={props.chart} />
        </figure>
      )}
      <form method="post" action="/console/learning/settings" class="actions">
        <CsrfField session={props.session} />
        <input type="hidden" name="implicit" value={props.implicit ? "false" : "true"} />
        <span>{props.implicit ? "Implicit learning is on." : "Implicit learning is off."}</span>
        <button type="submit" class="secondary">
          {props.implicit ? "Turn implicit learning off" : "Turn implicit learning on"}
        </button>
      </form>
      {props.calibration === undefined ? null : <SignalWeightsTable calibration={props.calibration} />}
      <h2>Latest conversations</h2>
      {props.sessions.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul id="observed-sessions">
          {props.sessions.map((s) => (
            <li>
              <code>{s.id}</code> {s.closedAt === null ? "(open)" : ""}
              {s.trajectories.map((t) => (
                <div>
                  {t.task ?? `terms: ${t.terms}`} → {t.tools.join(" → ")}
                </div>
              ))}
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}
