import type { Child } from "hono/jsx";
import type { Session } from "../session";

export type Section = "tools" | "graph" | "route" | "learning" | "runs" | "jobs" | "connections" | "admin" | "sign-in";

const SECTIONS: { id: Section; href: string; label: string }[] = [
  { id: "tools", href: "/console/tools", label: "Tools" },
  { id: "graph", href: "/console/graph", label: "Graph" },
  { id: "route", href: "/console/route", label: "Route" },
  { id: "learning", href: "/console/learning", label: "Learning" },
  { id: "runs", href: "/console/runs", label: "Runs" },
  { id: "jobs", href: "/console/jobs", label: "Jobs" },
  { id: "connections", href: "/console/connections", label: "Connections" },
];

/** The form field every state-changing form carries (checked against the session). */
export function CsrfField(props: { session: Session }) {
  return <input type="hidden" name="csrf" value={props.session.csrf} />;
}

/** Every console page: skip link, navigation, who is signed in, and the page's content. */
export function Layout(props: { title: string; section: Section; session?: Session | undefined; children?: Child; scripts?: string[] }) {
  const { session } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · atc-edge console`}</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        {session === undefined ? null : <meta name="csrf-token" content={session.csrf} />}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/console">
            atc-edge console
          </a>
          {session?.kind === "tenant" ? (
            <nav aria-label="Sections">
              <ul>
                {SECTIONS.map((s) => (
                  <li>
                    <a href={s.href} aria-current={s.id === props.section ? "page" : undefined}>
                      {s.label}
                    </a>
                  </li>
                ))}
                <li>
                  <a href="/docs">API reference</a>
                </li>
              </ul>
            </nav>
          ) : null}
          {session === undefined ? null : (
            <div class="who">
              <span>{session.kind === "tenant" ? `tenant ${session.tenantId}` : "administrator"}</span>
              <form method="post" action="/console/sign-out">
                <CsrfField session={session} />
                <button type="submit">Sign out</button>
              </form>
            </div>
          )}
        </header>
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
        {(props.scripts ?? []).map((src) => (
          <script src={src} defer></script>
        ))}
      </body>
    </html>
  );
}
