import type { Hono } from "hono";
import type { StoredRun } from "../../chain/stored-run";
import { tenantOf, type ConsoleEnv } from "./context";
import { readAnswer } from "./service-api";
import { MessagePage } from "./views/message";
import { RunPage } from "./views/run";
import { RunsPage } from "./views/runs";

const LISTED_RUNS = 50;

/** Runs list, run pages, and starting a run from the page (streamed, or plain without script). */
export function registerRunPages(app: Hono<ConsoleEnv>): void {
  app.get("/runs", async (c) => {
    const { tenant } = tenantOf(c);
    return c.html(<RunsPage session={c.var.session} runs={await tenant.activity.runs(LISTED_RUNS)} />);
  });

  app.get("/runs/:id", async (c) => {
    const id = c.req.param("id");
    const run = await c.var.api.call<StoredRun>("GET", `/v1/runs/${encodeURIComponent(id)}`);
    if (!run.ok) {
      const title = run.status === 404 ? "Run not found" : "The run could not be read";
      return c.html(
        <MessagePage session={c.var.session} title={title} message={run.message} back={{ href: "/console/runs", label: "All runs" }} />,
        run.status === 404 ? 404 : 502,
      );
    }
    return c.html(<RunPage session={c.var.session} run={run.data} />);
  });

  // Without script: the run finishes, then the page shows it.
  app.post("/runs", async (c) => {
    const task = (await c.req.parseBody())["task"];
    const run = await c.var.api.call<StoredRun>("POST", "/v1/runs", { task: typeof task === "string" ? task : "" });
    if (!run.ok) {
      const { tenant } = tenantOf(c);
      return c.html(<RunsPage session={c.var.session} runs={await tenant.activity.runs(LISTED_RUNS)} error={run.message} />, run.status === 503 ? 503 : 400);
    }
    return c.redirect(`/console/runs/${run.data.id}`, 303);
  });

  // With script: the service's own server-sent events, passed through as they come.
  app.post("/runs/stream", async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { task?: unknown };
    const response = await c.var.api.send("POST", "/v1/runs", { task: typeof body.task === "string" ? body.task : "" }, "text/event-stream");
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return response;
    const answer = await readAnswer<unknown>(response);
    return c.text(answer.ok ? "The run did not stream." : answer.message, response.status === 503 ? 503 : 400);
  });
}
