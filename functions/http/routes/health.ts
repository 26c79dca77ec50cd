import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";

export const SERVICE_VERSION = "0.1.0";

const Health = z.object({ status: z.literal("ok"), service: z.string(), version: z.string() }).openapi("Health");

/** `GET /health`: liveness, no storage touched. */
export function registerHealthRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      tags: ["service"],
      summary: "Liveness check",
      responses: { 200: { description: "The service answers", content: { "application/json": { schema: Health } } } },
    }),
    (c) => c.json({ status: "ok" as const, service: "atc-edge", version: SERVICE_VERSION }, 200),
  );
}
