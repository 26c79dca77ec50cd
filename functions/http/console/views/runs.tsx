import type { RunSummary } from "../../../storage/tenant-activity";
import type { Session } from "../session";
import { Layout } from "./layout";
import { Badge, EmptyState, ErrorMessage, formatCount, formatMs, formatTime } from "./parts";

const RUN_COMMAND = `curl -X POST $BASE/v1/runs -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\
     -d '{"task":"How many movies has Bradley Cooper acted in?"}'`;

/** The newest runs, and a form that starts one and streams its progress (server-sent events). */
export function RunsPage(props: { session: Session; runs: RunSummary[]; error?: string }) {
  return (
    <Layout title="Runs" section="runs" session={props.session} scripts={["/console/assets/live.js"]}>
      <h1>Runs</h1>
      <ErrorMessage message={props.error} />
      <form id="new-run" method="post" action="/console/runs" data-stream="/console/runs/stream">
        <label for="task">Start a run: the task</label>
        <textarea id="task" name="task" rows={2} required placeholder="Who directed Inception?"></textarea>
        <div class="actions">
          <button type="submit">Run</button>
        </div>
      </form>
      <section id="live-run" aria-live="polite" hidden>
        <h2>Running</h2>
        <ol id="live-events" class="log"></ol>
      </section>
      {props.runs.length === 0 ? (
        <EmptyState title="No runs yet" command={RUN_COMMAND}>
          <p>Runs need a model endpoint (MODEL_BASE_URL and MODEL_API_KEY, or PUT /v1/settings/model). Start one above or with:</p>
        </EmptyState>
      ) : (
        <table id="runs">
          <caption>{props.runs.length === 1 ? "The newest run" : `The ${props.runs.length} newest runs`}</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Attempts
              </th>
              <th scope="col" class="num">
                Tokens
              </th>
              <th scope="col" class="num">
                Duration
              </th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {props.runs.map((run) => (
              <tr>
                <th scope="row">
                  <a href={`/console/runs/${run.id}`}>{run.task.length > 120 ? `${run.task.slice(0, 117)}…` : run.task}</a>
                </th>
                <td>
                  <Badge status={run.status} />
                </td>
                <td class="num">{run.attempts}</td>
                <td class="num">{formatCount(run.totalTokens)}</td>
                <td class="num">{formatMs(run.durationMs)}</td>
                <td>{formatTime(run.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
