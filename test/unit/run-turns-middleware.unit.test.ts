import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../functions/http/app-env";
import { runTurns } from "../../functions/services/run-turns";
import { runRequestsTakeTurns } from "../../functions/http/middleware/run-turns";

/** An app with the middleware where the service has it, and handlers that log when they run. */
function app(log: string[]): Hono<AppEnv> {
  const hono = new Hono<AppEnv>();
  hono.use("/v1/runs", runRequestsTakeTurns);
  hono.post("/v1/runs", (c) => {
    log.push("run request");
    return c.json({}, 201);
  });
  hono.get("/v1/runs", (c) => {
    log.push("list runs");
    return c.json([]);
  });
  return hono;
}

describe("runRequestsTakeTurns", () => {
  it("makes a run request wait behind the run phases already waiting their turn, before any of its own work", async () => {
    const log: string[] = [];
    const earlier = runTurns.take().then(() => log.push("earlier run phase"));
    const response = app(log).fetch(new Request("http://atc.test/v1/runs", { method: "POST", body: "{}" }));
    await Promise.all([earlier, response]);
    expect(log).toEqual(["earlier run phase", "run request"]);
  });

  it("lets other requests on the path pass at once", async () => {
    const log: string[] = [];
    const earlier = runTurns.take().then(() => log.push("earlier run phase"));
    const response = app(log).fetch(new Request("http://atc.test/v1/runs"));
    await Promise.all([earlier, response]);
    expect(log).toEqual(["list runs", "earlier run phase"]);
  });
});
