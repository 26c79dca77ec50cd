import type { Hono } from "hono";
import type { ConsoleEnv } from "./context";
import { learningChart, type CurveDay } from "./learning-chart";
import { LearningPage, type ObservedSummary, type SignalCalibration } from "./views/learning";

const SESSIONS_SHOWN = 20;

/** The learning page: the tenant's learning curve as a chart, the implicit-learning switch, the latest observed conversations. */
export function registerLearningPage(app: Hono<ConsoleEnv>): void {
  app.get("/learning", async (c) => {
    const [curve, settings, sessions, calibration] = await Promise.all([
      c.var.api.call<{ days: CurveDay[] }>("GET", "/v1/learning-curve"),
      c.var.api.call<{ implicit: boolean }>("GET", "/v1/settings/learning"),
      c.var.api.call<{ sessions: ObservedSummary[] }>("GET", `/v1/observed-sessions?limit=${SESSIONS_SHOWN}`),
      c.var.api.call<SignalCalibration>("GET", "/v1/routing/calibration"),
    ]);
    const error = [curve, settings, sessions, calibration].flatMap((a) => (a.ok ? [] : [a.message]))[0];
    const changed = c.req.query("changed");
    return c.html(
      <LearningPage
        session={c.var.session}
        chart={learningChart(curve.ok ? curve.data.days : [])}
        implicit={settings.ok ? settings.data.implicit : true}
        sessions={sessions.ok ? sessions.data.sessions : []}
        {...(calibration.ok ? { calibration: calibration.data } : {})}
        {...(error === undefined ? {} : { error })}
        {...(changed === undefined ? {} : { notice: "Saved." })}
      />,
    );
  });

  app.post("/learning/settings", async (c) => {
    const form = await c.req.parseBody();
    const current = await c.var.api.call<Record<string, unknown>>("GET", "/v1/settings/learning");
    const implicit = form["implicit"] === "true";
    await c.var.api.call("PUT", "/v1/settings/learning", { ...(current.ok ? current.data : {}), implicit });
    return c.redirect("/console/learning?changed", 303);
  });
}
