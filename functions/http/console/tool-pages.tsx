import type { Hono } from "hono";
import type { ProtocolVersion } from "../../storage/tenant-protocols";
import { protocolStore, type ProtocolRead } from "../../storage/protocol-store";
import type { ToolDefinition } from "../../tools/definition";
import { tenantOf, type ConsoleContext, type ConsoleEnv } from "./context";
import { toolStatusRows, type ToolStatusRow } from "./tool-status";
import { MessagePage } from "./views/message";
import { type LearnedWordsView, ToolPage, type VersionView } from "./views/tool";
import { ToolsPage } from "./views/tools";

/** How many recent runs the success rates are computed over. */
export const ACTIVITY_RUNS = 200;

/** Every tool's status row, from the tenant object's read methods. */
export async function loadToolRows(c: ConsoleContext): Promise<ToolStatusRow[]> {
  const { tenant } = tenantOf(c);
  const [tools, activity] = await Promise.all([tenant.registry.listTools(), tenant.activity.tools(ACTIVITY_RUNS)]);
  const current = await tenant.protocols.currentMany(tools.map((t) => t.definition.name));
  return toolStatusRows(tools, current, activity);
}

async function renderTools(c: ConsoleContext, error?: string, status: 200 | 400 | 404 | 409 | 422 | 503 = 200): Promise<Response> {
  return c.html(<ToolsPage session={c.var.session} rows={await loadToolRows(c)} {...(error === undefined ? {} : { error })} />, status);
}

function viewOf(read: ProtocolRead | undefined): Pick<VersionView, "protocol" | "problem"> {
  if (read?.status === "found") return { protocol: read.protocol };
  return read?.status === "malformed" ? { protocol: null, problem: read.problem } : { protocol: null };
}

type Versions = { current: (ProtocolVersion & { pinned: boolean }) | null; versions: ProtocolVersion[] };

async function renderTool(
  c: ConsoleContext,
  name: string,
  message: { error?: string; notice?: string } = {},
  status: 200 | 400 | 404 | 409 = 200,
): Promise<Response> {
  const { api, session } = c.var;
  const tool = await api.call<{ definition: ToolDefinition; hash: string }>("GET", `/v1/tools/${encodeURIComponent(name)}`);
  if (!tool.ok)
    return c.html(<MessagePage session={session} title="Tool not found" message={tool.message} back={{ href: "/console/tools", label: "All tools" }} />, 404);
  const [listed, learned] = await Promise.all([
    api.call<Versions>("GET", `/v1/tools/${encodeURIComponent(name)}/protocol/versions`),
    api.call<LearnedWordsView>("GET", `/v1/tools/${encodeURIComponent(name)}/learned-words`),
  ]);
  const { current, versions } = listed.ok ? listed.data : { current: null, versions: [] };
  // The protocol values are immutable KV entries at keys the tenant's own object handed out.
  const store = protocolStore(c.env, tenantOf(c).session.tenantId);
  const values = await Promise.all(versions.map((v) => store.read(v.kvKey)));
  const views: VersionView[] = versions.map((v, i) => ({
    version: v.version,
    source: v.source,
    score: v.score,
    createdAt: v.createdAt,
    hash: v.hash,
    jobId: v.jobId,
    current: current?.version === v.version,
    pinned: current?.version === v.version && current.pinned,
    ...viewOf(values[i]),
  }));
  const rows = await loadToolRows(c);
  return c.html(
    <ToolPage
      session={session}
      definition={tool.data.definition}
      hash={tool.data.hash}
      status={rows.find((r) => r.name === name)}
      versions={views}
      learned={learned.ok ? learned.data : undefined}
      {...(listed.ok ? {} : { error: listed.message })}
      {...message}
    />,
    status,
  );
}

/** Messages the tool page shows after a redirect (post/redirect/get), by code. */
function noticeFor(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  if (code === "unpinned") return "The protocol is no longer pinned: new versions become current again.";
  const pinned = /^pinned:(\d+)$/.exec(code);
  return pinned === null ? undefined : `Version ${pinned[1]} is now current and pinned.`;
}

function failureStatus(status: number): 400 | 404 | 409 {
  return status === 404 ? 404 : status === 409 ? 409 : 400;
}

/** Tools list and tool pages, and their actions: probe, optimise, pin, roll back. */
export function registerToolPages(app: Hono<ConsoleEnv>): void {
  app.get("/tools", (c) => renderTools(c));

  app.post("/probe", async (c) => {
    const started = await c.var.api.call<{ jobId: string }>("POST", "/v1/probe", {});
    if (!started.ok) return renderTools(c, started.message, failureStatus(started.status));
    return c.redirect(`/console/jobs/${started.data.jobId}`, 303);
  });

  app.get("/tools/:name", (c) => {
    const notice = noticeFor(c.req.query("notice"));
    return renderTool(c, c.req.param("name"), notice === undefined ? {} : { notice });
  });

  app.post("/tools/:name/probe", async (c) => {
    const name = c.req.param("name");
    const started = await c.var.api.call<{ jobId: string }>("POST", "/v1/probe", { tools: [name] });
    if (!started.ok) return renderTool(c, name, { error: started.message }, failureStatus(started.status));
    return c.redirect(`/console/jobs/${started.data.jobId}`, 303);
  });

  app.post("/tools/:name/optimize", async (c) => {
    const name = c.req.param("name");
    const started = await c.var.api.call<{ jobId: string }>("POST", `/v1/tools/${encodeURIComponent(name)}/optimize`, { settings: {} });
    if (!started.ok) return renderTool(c, name, { error: started.message }, failureStatus(started.status));
    return c.redirect(`/console/jobs/${started.data.jobId}`, 303);
  });

  app.post("/tools/:name/pin", async (c) => {
    const name = c.req.param("name");
    const field = (await c.req.parseBody())["version"];
    const version = typeof field === "string" && /^\d+$/.test(field) ? Number(field) : null;
    const pinned = await c.var.api.call<unknown>("PUT", `/v1/tools/${encodeURIComponent(name)}/protocol/pin`, { version });
    if (!pinned.ok) return renderTool(c, name, { error: pinned.message }, failureStatus(pinned.status));
    return c.redirect(`/console/tools/${encodeURIComponent(name)}?notice=${version === null ? "unpinned" : `pinned:${version}`}`, 303);
  });
}
