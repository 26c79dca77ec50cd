import { expect } from "vitest";
import type { CalibrationReport } from "../../functions/routing/routing-calibration";
import type { TestService } from "./service";
import { tenantObject } from "./tenant-object";

/**
 * The tenant's routing calibration made now: asking for it notes a stale one as due, and the
 * tenant object's alarm is run, slice after slice, until it is made (the runtime would run the
 * same alarm on its own, a moment later). Returns the calibration routing then uses.
 */
export async function calibrated(service: TestService, tenantId: string, key: string): Promise<CalibrationReport> {
  const object = await tenantObject(service, tenantId);
  for (let slice = 0; slice < 100; slice += 1) {
    const report = await service.json<CalibrationReport>("GET", "/v1/routing/calibration", { key });
    expect(report.status).toBe(200);
    if (!report.body.stale) return report.body;
    await object.runAlarm();
  }
  throw new Error("the calibration was not made in 100 alarm slices");
}
