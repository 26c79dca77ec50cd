import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { Connection } from "../../oauth/connections";
import type { Session } from "../session";
import { Layout, CsrfField } from "./layout";
import { EmptyState, ErrorMessage, formatTime, Notice } from "./parts";

/**
 * The consent page of MCP authorization: which client asks, where its token will go, what it may
 * do, and for which tenant. Everything about the client is self-asserted at registration (JSX
 * escapes it), so the page says so and shows the redirect's host, which the client cannot fake.
 */
export function ConsentPage(props: { session: Session; details: ConsentDescription; handle: string; tenants: { id: string; name: string }[] }) {
  const { details, session } = props;
  return (
    <Layout title={`Connect ${details.clientName}`} section="connections" session={session}>
      <h1>
        Allow <q>{details.clientName}</q> to use your tools?
      </h1>
      <p class="muted">This app registered itself; its name is not verified.</p>
      <p>
        Its access will be sent to <strong>{details.redirectHost}</strong>.
      </p>
      {details.redirectIsLoopback ? (
        <p class="message" role="alert">
          This sends access to an app on your computer. Continue only if you just started connecting from it.
        </p>
      ) : null}
      <h2>It will be able to</h2>
      <ul id="consent-scope">
        <li>use this tenant's MCP server at /mcp: find tools for a task, call them with the tenant's stored credentials, run tasks, give feedback;</li>
        <li>for one hour at a time, renewed for up to 30 days unless you revoke it under Connections.</li>
      </ul>
      <p>It will not see your API keys or credentials, and cannot use the REST API, the console or the admin API.</p>
      <form method="post" action="/console/authorize" id="consent">
        <CsrfField session={session} />
        <input type="hidden" name="handle" value={props.handle} />
        {session.kind === "admin" ? (
          <>
            <label for="consent-tenant">For tenant</label>
            <select id="consent-tenant" name="tenant" required>
              {props.tenants.map((t) => (
                <option value={t.id}>{`${t.id} (${t.name})`}</option>
              ))}
            </select>
          </>
        ) : (
          <p>
            For tenant <code>{session.tenantId}</code>.
          </p>
        )}
        <div class="actions">
          <button type="submit" name="decision" value="approve">
            Allow
          </button>
          <button type="submit" name="decision" value="deny" class="secondary">
            Deny
          </button>
        </div>
      </form>
    </Layout>
  );
}

/** The tenant's connected MCP clients, with their last use, each revocable. */
export function ConnectionsPage(props: { session: Session; connections: Connection[]; notice?: string; error?: string }) {
  return (
    <Layout title="Connections" section="connections" session={props.session}>
      <h1>Connected apps</h1>
      <Notice message={props.notice} />
      <ErrorMessage message={props.error} />
      {props.connections.length === 0 ? (
        <EmptyState title="No app is connected">
          <p>
            Add this service's <code>/mcp</code> URL as a connector in Claude, ChatGPT, VS Code or Cursor; you approve it here, and it appears in this list.
          </p>
        </EmptyState>
      ) : (
        <table id="connections">
          <caption>{props.connections.length} apps hold access to this tenant's MCP server.</caption>
          <thead>
            <tr>
              <th scope="col">App (as it named itself)</th>
              <th scope="col">Approved</th>
              <th scope="col">Last used</th>
              <th scope="col">Access ends</th>
              <th scope="col">Revoke</th>
            </tr>
          </thead>
          <tbody>
            {props.connections.map((c) => (
              <tr>
                <th scope="row">{c.clientName}</th>
                <td>{formatTime(c.approvedAt)}</td>
                <td>{c.lastUsedAt === undefined ? "never" : formatTime(c.lastUsedAt)}</td>
                <td>{c.expiresAt === undefined ? "–" : formatTime(c.expiresAt)}</td>
                <td>
                  <form method="post" action="/console/connections/revoke">
                    <CsrfField session={props.session} />
                    <input type="hidden" name="grant" value={c.grantId} />
                    <button type="submit" aria-label={`Revoke ${c.clientName}`}>
                      Revoke
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
