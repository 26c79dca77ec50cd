import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { tenantOf, type ConsoleEnv } from "./context";
import { jobProgress } from "./job-progress";
import { JobPage, JobsPage } from "./views/jobs";
import { MessagePage } from "./views/message";

const LISTED_JOBS = 30;
/** How often a live job page is told about progress, and for how long at most. */
const POLL_MS = 500;
const MAX_STREAM_MS = 10 * 60_000;

/** Jobs list, job pages, and each job's progress as server-sent events until it finishes. */
export function registerJobPages(app: Hono<ConsoleEnv>): void {
  app.get("/jobs", async (c) => {
    const { tenant } = tenantOf(c);
    const listed = await tenant.jobs.list(LISTED_JOBS);
    const jobs = await Promise.all(listed.map((j) => tenant.jobs.get(j.id)));
    const shown = jobs.flatMap((job) => (job === undefined ? [] : [{ ...jobProgress(job), createdAt: job.createdAt }]));
    return c.html(<JobsPage session={c.var.session} jobs={shown} />);
  });

  app.get("/jobs/:id", async (c) => {
    const { tenant } = tenantOf(c);
    const job = await tenant.jobs.get(c.req.param("id"));
    if (job === undefined) {
      return c.html(
        <MessagePage
          session={c.var.session}
          title="Job not found"
          message={`No job ${c.req.param("id")}.`}
          back={{ href: "/console/jobs", label: "All jobs" }}
        />,
        404,
      );
    }
    return c.html(<JobPage session={c.var.session} job={jobProgress(job)} />);
  });

  app.get("/jobs/:id/events", async (c) => {
    const { tenant } = tenantOf(c);
    const id = c.req.param("id");
    if ((await tenant.jobs.get(id)) === undefined) return c.text(`No job ${id}.`, 404);
    return streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      const until = Date.now() + MAX_STREAM_MS;
      while (open && Date.now() < until) {
        const job = await tenant.jobs.get(id);
        if (job === undefined) break;
        const progress = jobProgress(job);
        await stream.writeSSE({ event: "progress", data: JSON.stringify(progress) });
        if (progress.finished) break;
        await stream.sleep(POLL_MS);
      }
    });
  });
}
