import type { Session } from "../session";
import type { ToolStatusRow } from "../tool-status";
import { CsrfField, Layout } from "./layout";
import { Badge, counted, EmptyState, ErrorMessage, formatPercent, Notice } from "./parts";

export const IMPORT_COMMAND = `curl -X POST $BASE/v1/tools/import -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\
     -d '{"format":"list","source":"things","tools":[{"name":"getThing","method":"GET","url":"https://api.example.com/v1/things/{thing_id}"}]}'`;

/** Every tool with its probe status, protocol version, pin and recent call success. */
export function ToolsPage(props: { session: Session; rows: ToolStatusRow[]; error?: string; notice?: string }) {
  const { rows } = props;
  const unprobed = rows.filter((r) => r.probe !== "documented").length;
  return (
    <Layout title="Tools" section="tools" session={props.session}>
      <h1>Tools</h1>
      <ErrorMessage message={props.error} />
      <Notice message={props.notice} />
      {rows.length === 0 ? (
        <EmptyState title="No tools yet" command={IMPORT_COMMAND}>
          <p>Register tools from an OpenAPI document or a bare list, then come back here to probe them.</p>
        </EmptyState>
      ) : (
        <>
          <div class="actions">
            <form method="post" action="/console/probe">
              <CsrfField session={props.session} />
              <button type="submit" disabled={unprobed === 0}>
                {unprobed === 0 ? "Every tool is documented" : `Probe ${counted(unprobed, "undocumented tool")}`}
              </button>
            </form>
          </div>
          <table id="tools">
            <caption>
              {counted(rows.length, "tool")}, {rows.length - unprobed} documented. Success rate is over tool calls in the last 200 runs.
            </caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Operation</th>
                <th scope="col">Source</th>
                <th scope="col">Probe</th>
                <th scope="col">Protocol</th>
                <th scope="col" class="num">
                  Recent calls
                </th>
                <th scope="col" class="num">
                  Success
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr data-tool={row.name}>
                  <th scope="row">
                    <a href={`/console/tools/${encodeURIComponent(row.name)}`}>{row.name}</a>
                  </th>
                  <td>
                    <code>{row.operation}</code>
                  </td>
                  <td>{row.source}</td>
                  <td>
                    <Badge status={row.probe} />
                    {row.stale ? <span class="muted"> (older definition documented)</span> : null}
                  </td>
                  <td>
                    {row.version === null ? (
                      <span class="muted">none</span>
                    ) : (
                      <>
                        v{row.version} <span class="muted">{row.versionSource}</span>
                        {row.pinned ? <Badge status="warn" label="pinned" /> : null}
                      </>
                    )}
                  </td>
                  <td class="num">{row.calls}</td>
                  <td class="num">{formatPercent(row.successRate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Layout>
  );
}
