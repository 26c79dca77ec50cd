import { describe, expect, it } from "vitest";
import type { TenantApi } from "../../durable-objects/tenant-api";
import { routeWithTaskVector, type TaskVector } from "../../functions/toolnet/tool-embeddings";

/**
 * The first routing step reads the tenant's model settings (might they name an embeddings model?)
 * and routes; without a service-wide embeddings model the two go out together, so the step is one
 * round trip to the tenant's object, not two.
 */
describe("routeWithTaskVector", () => {
  it("routes without waiting for the tenant's settings when nothing names an embeddings model, once", async () => {
    const events: string[] = [];
    let releaseSettings: () => void = () => undefined;
    const settingsRead = new Promise<undefined>((resolve) => {
      releaseSettings = () => resolve(undefined);
    });
    const tenant = {
      settings: {
        get: async (key: string) => {
          events.push(`settings.get ${key}`);
          await settingsRead;
          events.push("settings answered");
          return undefined;
        },
      },
    } as unknown as TenantApi;
    const routes: (TaskVector | undefined)[] = [];
    const answer = routeWithTaskVector({} as Env, "t1", tenant, "weather in Paris", async (query) => {
      routes.push(query);
      events.push("route");
      return "answer";
    });
    // Let both calls go out; the settings have not answered yet.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events).toEqual(["settings.get model", "route"]);
    releaseSettings();
    expect(await answer).toBe("answer");
    expect(routes).toEqual([undefined]);
    expect(events).toEqual(["settings.get model", "route", "settings answered"]);
  });
});
