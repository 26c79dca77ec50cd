import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { SERVICE_NAME, SERVICE_VERSION } from "../../common/service-version";
import type { AppEnv } from "../app-env";

const Health = z.object({ status: z.literal("ok"), service: z.string(), version: z.string() }).openapi("Health");

/** `GET /health`: liveness, no storage touched. */
export function registerHealthEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      tags: ["service"],
      summary: "Liveness check",
      responses: { 200: { description: "The service answers", content: { "application/json": { schema: Health } } } },
    }),
    (c) => c.json({ status: "ok" as const, service: SERVICE_NAME, version: SERVICE_VERSION }, 200),
  );
}
