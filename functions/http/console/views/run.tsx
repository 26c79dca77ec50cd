import { raw } from "hono/html";
import type { StoredRun } from "../../../chain/stored-run";
import { highlightJson, highlightProgram } from "../highlight";
import type { Session } from "../session";
import { Layout } from "./layout";
import { Badge, counted, formatCount, formatMs, formatTime } from "./parts";

type Attempt = StoredRun["attempts"][number];

function shortJson(value: unknown, max = 160): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return "–";
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function AttemptSection(props: { attempt: Attempt }) {
  const { attempt } = props;
  return (
    <section class="attempt" aria-label={`Attempt ${attempt.attempt}`}>
      <h2>
        Attempt {attempt.attempt} <Badge status={attempt.ok ? "succeeded" : "failed"} /> <span class="muted">{formatMs(attempt.durationMs)}</span>
      </h2>
      <pre class="program">
        <code class="hljs language-typescript">{raw(highlightProgram(attempt.program))}</code>
      </pre>
      {attempt.trace.length === 0 ? (
        <p class="muted">This program called no tool.</p>
      ) : (
        <table class="trace">
          <caption>Tool calls, in order</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Tool</th>
              <th scope="col">Arguments</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Duration
              </th>
              <th scope="col" class="num">
                Size
              </th>
            </tr>
          </thead>
          <tbody>
            {attempt.trace.map((call, i) => (
              <tr>
                <td>{i + 1}</td>
                <th scope="row">
                  <a href={`/console/tools/${encodeURIComponent(call.tool)}`}>{call.tool}</a>
                </th>
                <td>
                  <code>{shortJson(call.arguments)}</code>
                </td>
                <td>
                  <Badge status={call.ok ? "ok" : "failed"} label={call.status === undefined ? (call.ok ? "ok" : "failed") : String(call.status)} />
                  {call.replayed ? <span class="muted"> replayed</span> : null}
                  {call.error === undefined ? null : <div class="muted">{call.error}</div>}
                </td>
                <td class="num">{formatMs(call.durationMs)}</td>
                <td class="num">{formatBytes(call.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {attempt.error === undefined ? null : (
        <div class="message" role="note">
          <strong>{attempt.error.kind}</strong>: {attempt.error.message}
          {attempt.error.line === undefined ? null : <> (program line {attempt.error.line})</>}
          {attempt.attributedTool === undefined ? null : (
            <p>
              Attributed to <a href={`/console/tools/${encodeURIComponent(attempt.attributedTool)}`}>{attempt.attributedTool}</a>
              {attempt.attributedBy === undefined ? null : <span class="muted"> (by {attempt.attributedBy.replace("_", " ")})</span>}: the next attempt was
              asked for with this error and that tool's full protocol.
            </p>
          )}
        </div>
      )}
      {attempt.logs.length === 0 ? null : (
        <details>
          <summary>Program log ({counted(attempt.logs.length, "line")})</summary>
          <pre class="log">{attempt.logs.join("\n")}</pre>
        </details>
      )}
    </section>
  );
}

/** One run: task, outcome, each attempt's program and trace, errors and their attribution, answer. */
export function RunPage(props: { session: Session; run: StoredRun }) {
  const { run } = props;
  return (
    <Layout title={`Run ${run.id}`} section="runs" session={props.session}>
      <p>
        <a href="/console/runs">← All runs</a>
      </p>
      <h1>{run.task}</h1>
      <dl class="facts">
        <dt>Run</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <Badge status={run.status} />
        </dd>
        {run.error === undefined ? null : (
          <>
            <dt>Why</dt>
            <dd id="run-error">
              <code>{run.error.code}</code> {run.error.message}
            </dd>
          </>
        )}
        <dt>Started</dt>
        <dd>{formatTime(run.createdAt)}</dd>
        <dt>Duration</dt>
        <dd>{formatMs(run.timings.totalMs)}</dd>
        <dt>Tokens</dt>
        <dd>
          {formatCount(run.usage.totalTokens)} ({formatCount(run.usage.promptTokens)} prompt, {formatCount(run.usage.completionTokens)} completion) in{" "}
          {counted(run.modelCalls.length, "model call")}
        </dd>
        <dt>Candidate tools</dt>
        <dd>
          {run.candidates.join(", ")} <span class="muted">({run.candidateSource})</span>
        </dd>
      </dl>
      <h2>Answer</h2>
      {run.answer === undefined ? (
        <p class="muted">No answer{run.error === undefined ? ": every attempt failed." : ` (${run.error.code}).`}</p>
      ) : (
        <pre id="answer">
          <code>{raw(highlightJson(run.answer))}</code>
        </pre>
      )}
      {run.attempts.map((attempt) => (
        <AttemptSection attempt={attempt} />
      ))}
    </Layout>
  );
}
