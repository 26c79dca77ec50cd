import { expect } from "vitest";
import { type CalibrationReport, RECALIBRATE_INTERVAL_MS } from "../../functions/routing/routing-calibration";
import { createTenant, type TestService } from "./service";
import { tenantObject } from "./tenant-object";

/**
 * The tenant's routing calibration made now: asking for it notes a stale one as due, and the
 * tenant object's alarm is run, slice after slice, until it is made (the runtime would run the
 * same alarm on its own, a moment later). A recalibration is due no sooner than
 * RECALIBRATE_INTERVAL_MS after the last was made: its alarm's time is waited for first. Returns
 * the calibration routing then uses.
 */
export async function calibrated(service: TestService, tenantId: string, key: string): Promise<CalibrationReport> {
  const object = await tenantObject(service, tenantId);
  for (let slice = 0; slice < 100; slice += 1) {
    const report = await service.json<CalibrationReport>("GET", "/v1/routing/calibration", { key });
    expect(report.status).toBe(200);
    if (!report.body.stale) return report.body;
    const alarm = await object.alarmAt();
    // Waited for at most the interval (an alarm set later is another store's due work).
    const wait = alarm === null ? 0 : Math.min(alarm - Date.now(), RECALIBRATE_INTERVAL_MS);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await object.runAlarm();
  }
  throw new Error("the calibration was not made in 100 alarm slices");
}

/**
 * A tenant named `name` with `tools`, taught `tasks` (each task's words teach its tools), then
 * calibrated. `routedFirst`: each task is routed once before it is taught, as a chatbot searches
 * before it calls, so the object keeps each task's vector for the replay.
 */
export async function taughtTenant(
  service: TestService,
  name: string,
  tools: object[],
  tasks: { id: string; task: string; tools: string[] }[],
  { routedFirst = false } = {},
): Promise<{ key: string; report: CalibrationReport }> {
  const { key } = await createTenant(service, name);
  expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", tools } })).status).toBe(200);
  if (routedFirst) for (const { task } of tasks) expect((await service.json("POST", "/v1/route", { key, body: { task, k: 5 } })).status).toBe(200);
  expect((await service.json("POST", "/v1/graph/trajectories", { key, body: { trajectories: tasks } })).status).toBe(200);
  return { key, report: await calibrated(service, name, key) };
}
