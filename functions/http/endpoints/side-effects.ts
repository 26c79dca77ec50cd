import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { SideEffectSettings } from "../../probing/side-effects";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";

const Settings = SideEffectSettings.openapi("SideEffectSettings");

/** Which non-GET operations probing and tool play may call: for real, against a simulated copy, or not at all. */
export function registerSideEffectEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/settings/side-effects",
      tags: ["settings"],
      summary: "Which non-GET operations probing and tool play may call (default: none for real, none simulated)",
      security: tenantSecurity,
      responses: { 200: { description: "Settings", content: { "application/json": { schema: Settings } } }, ...problems(401, 429) },
    }),
    async (c) => c.json(await c.var.tenant.settings.sideEffects(), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/settings/side-effects",
      tags: ["settings"],
      summary: "Replace the side-effect settings",
      description:
        "`realUnsafe`: tools or sources whose non-GET operations may be probed and played against the real upstream. `simulatedUnsafe`: tools or sources (or `all`) whose non-GET operations are probed and played against a simulated copy of their imported definition. Any other non-GET operation is skipped and reported as skipped.",
      security: tenantSecurity,
      request: { body: jsonBody(Settings) },
      responses: { 200: { description: "Settings", content: { "application/json": { schema: Settings } } }, ...problems(400, 401, 415, 429) },
    }),
    async (c) => c.json(await c.var.tenant.settings.updateSideEffects(c.req.valid("json")), 200),
  );
}
