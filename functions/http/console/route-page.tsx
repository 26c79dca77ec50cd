import type { Hono } from "hono";
import { sha256Hex } from "../../tenants/api-keys";
import { type ConsoleContext, type ConsoleEnv, tenantOf } from "./context";
import { exampleTasks } from "./route-examples";
import { RoutePage, type RouteCandidate } from "./views/route";

const CANDIDATES = 10;

/** Tasks to try, from the tenant's own tools' descriptions (so they match its catalog). */
async function catalogExamples(c: ConsoleContext): Promise<string[]> {
  const tools = await tenantOf(c).tenant.registry.listTools();
  return exampleTasks(tools.map((t) => ({ name: t.definition.name, description: t.definition.description, source: t.source })));
}

/**
 * The routing page: an operator types a task and sees the ranked candidates with their `why`
 * (POST /v1/route), and marks the right tool. A mark is explicit feedback, learned at once: the
 * task and tool become a trajectory (first-step history) and the tool gets the top score.
 */
export function registerRoutePage(app: Hono<ConsoleEnv>): void {
  app.get("/route", async (c) => {
    const task = (c.req.query("task") ?? "").trim();
    const marked = c.req.query("marked");
    const notice = marked === undefined ? undefined : `Learned: ${marked} is the right tool for this task.`;
    if (task === "") return c.html(<RoutePage session={c.var.session} task="" candidates={[]} examples={await catalogExamples(c)} />);
    const answer = await c.var.api.call<{ via: string; candidates: RouteCandidate[] }>("POST", "/v1/route", { task, k: CANDIDATES });
    if (!answer.ok) return c.html(<RoutePage session={c.var.session} task={task} candidates={[]} error={answer.message} />, answer.status === 400 ? 400 : 502);
    return c.html(
      <RoutePage session={c.var.session} task={task} candidates={answer.data.candidates} via={answer.data.via} {...(notice === undefined ? {} : { notice })} />,
    );
  });

  app.post("/route/mark", async (c) => {
    const form = await c.req.parseBody();
    const task = typeof form["task"] === "string" ? form["task"].trim() : "";
    const tool = typeof form["tool"] === "string" ? form["tool"] : "";
    const fail = (message: string) => c.html(<RoutePage session={c.var.session} task={task} candidates={[]} error={message} />, 400);
    if (task === "" || tool === "") return fail("Type a task and mark one of its candidates.");
    const id = `console:${(await sha256Hex(`${task}\n${tool}`)).slice(0, 32)}`;
    const taught = await c.var.api.call("POST", "/v1/graph/trajectories", { trajectories: [{ id, tools: [tool], task }], unknownTools: "error" });
    if (!taught.ok) return fail(taught.message);
    const scored = await c.var.api.call("POST", "/v1/feedback", { tools: [tool], scores: [3] });
    if (!scored.ok) return fail(scored.message);
    return c.redirect(`/console/route?task=${encodeURIComponent(task)}&marked=${encodeURIComponent(tool)}`, 303);
  });
}
