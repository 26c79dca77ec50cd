import type { Session } from "../session";
import { Layout } from "./layout";
import { EmptyState, ErrorMessage, formatTime } from "./parts";

/** Sign in with a tenant API key, or with the admin token for the tenant list. */
export function SignInPage(props: { error?: string; signedOut?: boolean; next?: string }) {
  const next = props.next === undefined ? null : <input type="hidden" name="next" value={props.next} />;
  return (
    <Layout title="Sign in" section="sign-in">
      <h1>Sign in</h1>
      <ErrorMessage message={props.error} />
      {props.signedOut === true ? (
        <p class="message info" role="status">
          You are signed out.
        </p>
      ) : null}
      {props.next === undefined ? null : (
        <p class="message info" role="status">
          An app asks to connect to your tools: sign in to approve or deny it.
        </p>
      )}
      <form method="post" action="/console/sign-in" id="sign-in">
        {next}
        <label for="api-key">Tenant API key</label>
        <input id="api-key" name="key" type="password" autocomplete="off" required placeholder="atc_<tenant>_…" aria-describedby="api-key-help" />
        <p id="api-key-help" class="muted">
          The key is kept in an HttpOnly, Secure session cookie sealed by the service, and never shown again. Under <code>npm start</code> the demo tenant's key
          is in <code>.wrangler/state/demo-api-key</code>.
        </p>
        <div class="actions">
          <button type="submit">Sign in</button>
        </div>
      </form>
      <details>
        <summary>Administrators</summary>
        <form method="post" action="/console/sign-in" id="admin-sign-in">
          <input type="hidden" name="as" value="admin" />
          {next}
          <label for="admin-token">Admin token</label>
          <input id="admin-token" name="key" type="password" autocomplete="off" required />
          <div class="actions">
            <button type="submit">Sign in as administrator</button>
          </div>
        </form>
      </details>
    </Layout>
  );
}

/** The administrator's view: every tenant. */
export function AdminPage(props: { session: Session; tenants: { id: string; name: string; createdAt: string }[]; error?: string }) {
  return (
    <Layout title="Tenants" section="admin" session={props.session}>
      <h1>Tenants</h1>
      <ErrorMessage message={props.error} />
      {props.tenants.length === 0 ? (
        <EmptyState
          title="No tenants yet"
          command={`curl -X POST $BASE/admin/tenants -H "Authorization: Bearer $ADMIN" -H 'content-type: application/json' -d '{"id":"acme","name":"Acme"}'`}
        >
          <p>Create a tenant; its first API key is shown once in the answer.</p>
        </EmptyState>
      ) : (
        <table id="tenants">
          <caption>{props.tenants.length} tenants. Sign in with a tenant's API key to see its tools, graph, runs and jobs.</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {props.tenants.map((t) => (
              <tr>
                <th scope="row">
                  <code>{t.id}</code>
                </th>
                <td>{t.name}</td>
                <td>{formatTime(t.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
