import type { JobProgress } from "../job-progress";
import type { Session } from "../session";
import { Layout } from "./layout";
import { Badge, EmptyState, ErrorMessage, formatPercent, formatTime, Notice } from "./parts";

const PROBE_COMMAND = `curl -X POST $BASE/v1/probe -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{}'`;

function Bar(props: { id: string; fraction: number; label: string }) {
  return (
    <span class="bar">
      <progress id={props.id} max="1" value={props.fraction.toFixed(3)} aria-label={props.label}></progress>
      <span data-percent-for={props.id}>{formatPercent(props.fraction)}</span>
    </span>
  );
}

/** Probe and optimise jobs, newest first, each with its progress. */
export function JobsPage(props: { session: Session; jobs: (JobProgress & { createdAt: string })[]; error?: string }) {
  return (
    <Layout title="Jobs" section="jobs" session={props.session} scripts={["/console/assets/live.js"]}>
      <h1>Jobs</h1>
      <ErrorMessage message={props.error} />
      {props.jobs.length === 0 ? (
        <EmptyState title="No jobs yet" command={PROBE_COMMAND}>
          <p>Probing documents tools from real responses. Start it from the Tools page, or with:</p>
        </EmptyState>
      ) : (
        <table id="jobs">
          <caption>Background jobs, newest first; running ones update live</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">Tools</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {props.jobs.map((job) => (
              <tr data-job={job.id} data-live={job.finished ? undefined : `/console/jobs/${job.id}/events`}>
                <th scope="row">
                  <a href={`/console/jobs/${job.id}`}>{job.id}</a>
                </th>
                <td>{job.kind}</td>
                <td>{job.tools.length === 1 ? job.tools[0]?.tool : `${job.tools.length} tools`}</td>
                <td data-field="status">
                  <Badge status={job.status} />
                </td>
                <td>
                  <Bar id={`job-${job.id}`} fraction={job.fraction} label={`Progress of ${job.id}`} />
                </td>
                <td>{formatTime(job.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

/** A job page's title by the job's kind. */
const JOB_TITLES: Record<string, string> = { probe: "Probe", optimize: "Optimise", import: "Import", examples: "Example requests" };

/** One job: overall bar and a bar per tool, updated live over server-sent events while it runs. */
export function JobPage(props: { session: Session; job: JobProgress; notice?: string }) {
  const { job } = props;
  return (
    <Layout title={`Job ${job.id}`} section="jobs" session={props.session} scripts={["/console/assets/live.js"]}>
      <p>
        <a href="/console/jobs">← All jobs</a>
      </p>
      <h1>
        {JOB_TITLES[job.kind] ?? "Background"} job <code>{job.id}</code>
      </h1>
      <Notice message={props.notice} />
      <div id="job" data-job={job.id} data-live={job.finished ? undefined : `/console/jobs/${job.id}/events`}>
        <p data-field="status">
          <Badge status={job.status} />
        </p>
        <Bar id={`job-${job.id}`} fraction={job.fraction} label="Whole job" />
        {job.lastError === null ? null : <ErrorMessage message={`Last error: ${job.lastError}`} />}
        <table id="job-tools">
          <caption>Progress per tool</caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {job.tools.map((t) => (
              <tr data-tool={t.tool}>
                <th scope="row">
                  <a href={`/console/tools/${encodeURIComponent(t.tool)}`}>{t.tool}</a>
                </th>
                <td data-field="status">
                  <Badge status={t.status} />
                </td>
                <td>
                  <Bar id={`tool-${t.tool}`} fraction={t.fraction} label={`Progress of ${t.tool}`} />
                </td>
                <td data-field="note">{t.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}
